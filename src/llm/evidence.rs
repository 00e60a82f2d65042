//! What compactd believes of one upstream model's context window, and on
//! what evidence (SPEC §3, *Any context size*). The upstream's own word is
//! believed at once: its model listing, or a refusal of the context. A
//! prompt answered as read at a fraction of its size is only a suspicion:
//! the upstream may have cut it (Ollama past its `num_ctx`), or may count
//! only what it did not have cached (Ollama's `prompt_eval_count`,
//! llama.cpp's `prompt_n`) or answer a usage that is no count at all. It is
//! believed when another prompt of another size is read at the same count,
//! which a cache hit never is. A belief never goes below [`FLOOR_TOKENS`]
//! and is forgotten after [`FORGOTTEN_AFTER`] without new evidence, so one
//! odd answer cannot narrow every later summary for good.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// The least window ever learned: below it no summary fits, and no chat
/// model worth summarizing with has less.
pub const FLOOR_TOKENS: u64 = 2_048;
/// What is learned is forgotten this long after its last evidence.
pub const FORGOTTEN_AFTER: Duration = Duration::from_secs(60 * 60);
/// A prompt read at less than this share of what was sent may have been cut.
const CUT_BELOW_PER_MILLE: u64 = 500;
/// Prompts shorter than this are never called cut: chat templates and
/// tokenizers differ by more than the rule's share on a few words.
const CUT_PROMPTS_FROM_TOKENS: u64 = 1_024;
/// A read of fewer tokens than this is no window: a cache hit, or a usage
/// that counts something else (a fake's constant).
const LEAST_WINDOW_READ: u64 = 1_024;
/// Two reads within this share of each other are the same cut...
const SAME_READ_PER_MILLE: u64 = 50;
/// ...and suspicions kept to compare with, newest last.
const SUSPICIONS_KEPT: usize = 8;
/// A prompt read whole at this share past a window believed from cuts
/// shows the window is larger now (the upstream was restarted with more).
const READ_PAST_PER_MILLE: u64 = 1_100;

/// Where a window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The upstream's model listing.
    Listing,
    /// A refusal of the context.
    Refusal,
    /// Prompts of different sizes read at the same count.
    Cuts,
}

impl Source {
    pub const fn name(self) -> &'static str {
        match self {
            Self::Listing => "listing",
            Self::Refusal => "refusal",
            Self::Cuts => "cuts",
        }
    }
}

/// A window believed, and when its evidence was last seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Belief {
    pub tokens: u64,
    pub source: Source,
    pub seen: Instant,
}

/// What a read of a prompt showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Read whole, or too little to tell: the answer stands.
    Whole,
    /// Read at a fraction of its size, once: the answer stands, the read is
    /// kept to compare with.
    Suspected,
    /// Read at the count another prompt of another size was: the upstream
    /// cuts there. The answer was written from part of the prompt.
    Cut { window: u64 },
}

#[derive(Debug, Clone, Copy)]
struct Suspicion {
    sent: u64,
    read: u64,
    seen: Instant,
}

/// The evidence seen of one model's window.
#[derive(Debug, Default)]
pub struct Evidence {
    belief: Option<Belief>,
    suspicions: VecDeque<Suspicion>,
    /// Their tokenizer's count against ours, in thousandths, from a refusal
    /// that gave the prompt's count.
    ratio: Option<(u64, Instant)>,
}

impl Evidence {
    /// The window believed now, if any (what is stale is forgotten here).
    pub fn belief(&mut self, now: Instant) -> Option<Belief> {
        self.forget_stale(now);
        self.belief
    }

    /// Their tokenizer's count against ours, while remembered.
    pub fn ratio(&mut self, now: Instant) -> Option<u64> {
        self.forget_stale(now);
        self.ratio.map(|(ratio, _)| ratio)
    }

    /// Reads that may have been cuts, not believed yet.
    pub fn suspicions(&mut self, now: Instant) -> usize {
        self.forget_stale(now);
        self.suspicions.len()
    }

    /// The upstream's listing gives `window`.
    pub fn listed(&mut self, window: u64, now: Instant) {
        self.believe(window, Source::Listing, now);
    }

    /// The upstream refused a prompt: its window is `window`.
    pub fn refused(&mut self, window: u64, now: Instant) {
        self.believe(window, Source::Refusal, now);
    }

    /// A refusal counted the prompt at `ratio` thousandths of ours.
    pub fn counted_at(&mut self, ratio: u64, now: Instant) {
        match self.ratio(now) {
            Some(held) if held > ratio => {}
            _ => self.ratio = Some((ratio, now)),
        }
    }

    /// The upstream answered a prompt we sent at `sent` of its tokens as
    /// read at `read` (cached tokens counted in).
    pub fn read(&mut self, sent: u64, read: u64, now: Instant) -> Reading {
        self.forget_stale(now);
        let cut = sent >= CUT_PROMPTS_FROM_TOKENS
            && read >= LEAST_WINDOW_READ
            && read.saturating_mul(1_000) < sent.saturating_mul(CUT_BELOW_PER_MILLE);
        if !cut {
            self.read_whole(read);
            return Reading::Whole;
        }
        let same = self.suspicions.iter().any(|earlier| same_cut(earlier, sent, read));
        // Or the upstream's own word puts the window where the prompt was cut.
        let agrees = self.belief.is_some_and(|belief| {
            belief.source != Source::Cuts && belief.tokens.abs_diff(read) <= tolerance(belief.tokens, read)
        });
        if same || agrees {
            self.suspicions.clear();
            self.believe(read, Source::Cuts, now);
            let window = self.belief.map_or(read, |belief| belief.tokens);
            return Reading::Cut { window };
        }
        if self.suspicions.len() == SUSPICIONS_KEPT {
            self.suspicions.pop_front();
        }
        self.suspicions.push_back(Suspicion { sent, read, seen: now });
        Reading::Suspected
    }

    /// A prompt read whole at `read`: no cut at or below it, and a window
    /// believed from cuts below it is past.
    fn read_whole(&mut self, read: u64) {
        let past = |window: u64| read.saturating_mul(1_000) > window.saturating_mul(READ_PAST_PER_MILLE);
        self.suspicions.retain(|suspicion| !past(suspicion.read));
        if let Some(belief) = self.belief
            && belief.source == Source::Cuts
            && past(belief.tokens)
        {
            self.belief = None;
        }
    }

    /// Narrows to `window` (never under the floor); evidence for the window
    /// believed, or a narrower one, renews it.
    fn believe(&mut self, window: u64, source: Source, now: Instant) {
        let window = window.max(FLOOR_TOKENS);
        self.belief = match self.belief {
            // The same window, near enough: renewed.
            Some(held) if held.tokens.abs_diff(window) <= tolerance(held.tokens, window) => Some(Belief {
                tokens: held.tokens.min(window),
                seen: now,
                ..held
            }),
            Some(held) if held.tokens < window => Some(held),
            _ => Some(Belief {
                tokens: window,
                source,
                seen: now,
            }),
        };
    }

    fn forget_stale(&mut self, now: Instant) {
        let stale = |seen: Instant| now.saturating_duration_since(seen) >= FORGOTTEN_AFTER;
        if let Some(belief) = self.belief.filter(|belief| stale(belief.seen)) {
            self.belief = None;
            // Prompts planned within a window from cuts are never cut, so
            // no evidence renews it: once forgotten, it stands as one
            // witness, and the next prompt cut there is believed at once.
            if belief.source == Source::Cuts {
                self.suspicions.push_back(Suspicion {
                    sent: 0,
                    read: belief.tokens,
                    seen: now,
                });
            }
        }
        if self.ratio.is_some_and(|(_, seen)| stale(seen)) {
            self.ratio = None;
        }
        self.suspicions.retain(|suspicion| !stale(suspicion.seen));
    }
}

/// Whether a read is the cut an earlier one was: the same count, from a
/// prompt of another size (a cache hit's count moves with the prompt's).
fn same_cut(earlier: &Suspicion, sent: u64, read: u64) -> bool {
    let tolerance = tolerance(earlier.read, read);
    earlier.read.abs_diff(read) <= tolerance && earlier.sent.abs_diff(sent) > tolerance
}

/// How far apart two counts of about the same size may be and still be the
/// same count.
fn tolerance(a: u64, b: u64) -> u64 {
    a.max(b) * SAME_READ_PER_MILLE / 1_000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn later(now: Instant, seconds: u64) -> Instant {
        now + Duration::from_secs(seconds)
    }

    #[test]
    fn one_prompt_read_at_a_fraction_is_only_suspected() {
        let now = Instant::now();
        let mut evidence = Evidence::default();

        assert_eq!(evidence.read(20_000, 3_000, now), Reading::Suspected);

        assert_eq!(evidence.belief(now), None);
        assert_eq!(evidence.suspicions(now), 1);
    }

    #[test]
    fn a_second_prompt_of_another_size_read_at_the_same_count_is_a_cut() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.read(20_000, 4_096, now);

        let reading = evidence.read(31_000, 4_080, later(now, 5));

        assert_eq!(reading, Reading::Cut { window: 4_080 });
        let belief = evidence.belief(later(now, 5)).unwrap();
        assert_eq!((belief.tokens, belief.source), (4_080, Source::Cuts));
        assert_eq!(evidence.suspicions(later(now, 5)), 0);
    }

    #[test]
    fn reads_that_move_with_the_prompt_are_a_cache_not_a_cut() {
        // A cached prefix of 12,000 tokens: each read is the rest.
        let now = Instant::now();
        let mut evidence = Evidence::default();
        for (n, sent) in [15_000_u64, 16_500, 18_200, 21_000].into_iter().enumerate() {
            let reading = evidence.read(sent, sent - 12_000, later(now, n as u64));
            assert_eq!(reading, Reading::Suspected, "{sent}");
        }
        assert_eq!(evidence.belief(later(now, 10)), None);
    }

    #[test]
    fn the_same_prompt_read_the_same_twice_proves_nothing() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.read(20_000, 3_000, now);
        assert_eq!(evidence.read(20_000, 3_000, now), Reading::Suspected);
        assert_eq!(evidence.belief(now), None);
    }

    #[test]
    fn a_read_too_small_to_be_a_window_is_no_evidence() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        for sent in [5_000, 9_000, 20_000] {
            assert_eq!(evidence.read(sent, 12, now), Reading::Whole, "a constant usage");
        }
        assert_eq!(evidence.suspicions(now), 0);
        assert_eq!(evidence.read(800, 100, now), Reading::Whole, "too short to tell");
        assert_eq!(evidence.read(20_000, 19_000, now), Reading::Whole);
        assert_eq!(evidence.belief(now), None);
    }

    #[test]
    fn a_window_is_never_learned_below_the_floor() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.refused(600, now);
        assert_eq!(evidence.belief(now).unwrap().tokens, FLOOR_TOKENS);

        let mut evidence = Evidence::default();
        evidence.read(9_000, 1_500, now);
        assert_eq!(evidence.read(12_000, 1_500, now), Reading::Cut { window: FLOOR_TOKENS });
    }

    #[test]
    fn what_is_learned_is_forgotten_after_an_hour_without_new_evidence() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.listed(8_192, now);
        evidence.counted_at(1_500, now);
        evidence.read(40_000, 5_000, now);

        let almost = later(now, FORGOTTEN_AFTER.as_secs() - 1);
        assert_eq!(evidence.belief(almost).unwrap().tokens, 8_192);
        assert_eq!(evidence.ratio(almost), Some(1_500));

        let past = later(now, FORGOTTEN_AFTER.as_secs());
        assert_eq!(evidence.belief(past), None);
        assert_eq!(evidence.ratio(past), None);
        assert_eq!(evidence.suspicions(past), 0);
    }

    #[test]
    fn new_evidence_for_the_window_renews_it_and_narrower_evidence_narrows_it() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.listed(8_192, now);
        evidence.listed(8_192, later(now, 3_000));
        let renewed = later(now, 3_000 + FORGOTTEN_AFTER.as_secs() - 1);
        assert_eq!(evidence.belief(renewed).unwrap().tokens, 8_192, "renewed");

        evidence.refused(6_000, renewed);
        let belief = evidence.belief(renewed).unwrap();
        assert_eq!((belief.tokens, belief.source), (6_000, Source::Refusal));
        evidence.listed(32_000, renewed);
        assert_eq!(
            evidence.belief(renewed).unwrap().tokens,
            6_000,
            "a wider word does not widen it"
        );
    }

    #[test]
    fn a_cut_where_the_listing_puts_the_window_is_believed_at_once() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.listed(8_192, now);

        assert_eq!(evidence.read(30_000, 8_100, now), Reading::Cut { window: 8_100 });
        assert_eq!(
            evidence.read(30_000, 3_000, now),
            Reading::Suspected,
            "elsewhere: only suspected"
        );
    }

    #[test]
    fn a_window_from_cuts_once_forgotten_is_believed_again_at_the_first_cut_there() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.read(20_000, 4_096, now);
        evidence.read(25_000, 4_096, now);
        let past = later(now, FORGOTTEN_AFTER.as_secs());
        assert_eq!(evidence.belief(past), None, "forgotten");

        assert_eq!(evidence.read(22_000, 4_090, past), Reading::Cut { window: 4_090 });
    }

    #[test]
    fn evidence_near_the_window_renews_it() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.listed(4_096, now);
        let renewed = later(now, 3_000);
        evidence.refused(4_100, renewed);

        let belief = evidence
            .belief(later(now, 3_000 + FORGOTTEN_AFTER.as_secs() - 1))
            .unwrap();
        assert_eq!((belief.tokens, belief.seen), (4_096, renewed));
    }

    #[test]
    fn a_prompt_read_whole_past_a_window_from_cuts_forgets_it() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        evidence.read(20_000, 4_096, now);
        evidence.read(25_000, 4_096, now);
        assert_eq!(evidence.belief(now).unwrap().tokens, 4_096);

        assert_eq!(evidence.read(9_000, 8_900, now), Reading::Whole);

        assert_eq!(evidence.belief(now), None, "it reads more than that now");
    }

    #[test]
    fn suspicions_are_bounded() {
        let now = Instant::now();
        let mut evidence = Evidence::default();
        // Reads far enough apart that none is another's cut.
        for n in 0..20_u64 {
            evidence.read(100_000 + n * 10, 1_100 + n * 2_000, now);
        }
        assert_eq!(evidence.suspicions(now), SUSPICIONS_KEPT);
    }
}
