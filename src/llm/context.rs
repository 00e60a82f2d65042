//! The summary model's context window (SPEC §3, *Any context size*): set by
//! the operator, or learned from the upstream's own word — its model
//! listing, a context-length refusal's numbers, or prompts it answered
//! having read far less than was sent, the same way twice — and how its
//! tokenizer compares with ours. What is learned belongs to this model, is
//! bounded below, forgotten after an hour without new evidence, and shown
//! in `/metrics` with what it rests on.

use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};

use tokio::time::Instant;

use super::evidence::{Evidence, FORGOTTEN_AFTER, Reading};
use super::refusal::ContextRefusal;
use super::settings::Provider;

/// Ratios are kept in thousandths.
const PER_MILLE: u64 = 1_000;
/// Our count is exact for OpenAI's current models...
const OPENAI_RATIO: u64 = 1_000;
/// ...close for Anthropic's...
const ANTHROPIC_RATIO: u64 = 1_150;
/// ...and for a model we do not know, a margin: small models' vocabularies
/// split code and non-English text into more pieces than o200k does.
const UNKNOWN_RATIO: u64 = 1_400;
/// A listing that failed this often is not asked again until what is
/// learned would be forgotten anyway.
const LISTING_TRIES: u32 = 3;

/// The summary model's window as far as compactd knows it, and its
/// tokenizer's count against ours; what is learned is shared by every call
/// to this model, and by no other model.
#[derive(Debug)]
pub struct ContextWindow {
    model: String,
    configured: Option<u64>,
    default_ratio: u64,
    evidence: Mutex<Evidence>,
    /// One ask of the listing at a time, and how the last ones went.
    pub(crate) listing: tokio::sync::Mutex<ListingAsks>,
}

/// How the model listing answered so far.
#[derive(Debug, Default)]
pub(crate) struct ListingAsks {
    failures: u32,
    /// When it last answered (with a window or without) or last failed for
    /// the last time: not asked again for an hour after.
    settled: Option<Instant>,
}

impl ListingAsks {
    /// Whether the listing is worth asking now.
    pub(crate) fn worth_asking(&mut self, now: Instant) -> bool {
        if let Some(settled) = self.settled {
            if now.saturating_duration_since(settled) < FORGOTTEN_AFTER {
                return false;
            }
            *self = Self::default();
        }
        true
    }

    pub(crate) fn answered(&mut self, now: Instant) {
        self.settled = Some(now);
    }

    pub(crate) fn failed(&mut self, now: Instant) {
        self.failures += 1;
        if self.failures >= LISTING_TRIES {
            self.settled = Some(now);
        }
    }
}

impl ContextWindow {
    pub fn new(configured: Option<u64>, provider: Provider, model: &str) -> Self {
        let lower = model.to_ascii_lowercase();
        let default_ratio = match provider {
            Provider::Anthropic => ANTHROPIC_RATIO,
            Provider::OpenAi
                if ["gpt-", "o1", "o3", "o4", "chatgpt"]
                    .iter()
                    .any(|p| lower.starts_with(p)) =>
            {
                OPENAI_RATIO
            }
            Provider::OpenAi => UNKNOWN_RATIO,
        };
        Self {
            model: model.to_owned(),
            configured: configured.filter(|w| *w > 0),
            default_ratio,
            evidence: Mutex::new(Evidence::default()),
            listing: tokio::sync::Mutex::new(ListingAsks::default()),
        }
    }

    fn evidence(&self) -> std::sync::MutexGuard<'_, Evidence> {
        self.evidence.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The window, in the upstream's tokens; `None` while unknown.
    pub fn tokens(&self) -> Option<u64> {
        let learned = self.evidence().belief(Instant::now()).map(|belief| belief.tokens);
        match (self.configured, learned) {
            (Some(set), Some(learned)) => Some(set.min(learned)),
            (set, learned) => set.or(learned),
        }
    }

    /// Our count of `ours` tokens as the upstream would count them.
    pub fn theirs(&self, ours: u64) -> u64 {
        let ratio = self
            .evidence()
            .ratio(Instant::now())
            .unwrap_or(0)
            .max(self.default_ratio);
        ours.saturating_mul(ratio).div_ceil(PER_MILLE)
    }

    /// Learns from a refusal of a prompt we counted at `sent` tokens (ours).
    /// Without its numbers, the window is taken to be below what was sent.
    pub fn learn(&self, refusal: ContextRefusal, sent: u64) {
        let now = Instant::now();
        if let Some(prompt) = refusal.prompt.filter(|p| *p > 0 && sent > 0) {
            let ratio = (prompt.saturating_mul(PER_MILLE) / sent).clamp(PER_MILLE / 2, 4 * PER_MILLE);
            self.evidence().counted_at(ratio, now);
        }
        let window = refusal.window.unwrap_or_else(|| self.theirs(sent) / 2);
        self.evidence().refused(window.max(1), now);
        metrics::counter!("compactd_summary_window_evidence_total", "model" => self.model.clone(), "evidence" => "refusal")
            .increment(1);
    }

    /// What a completion that read `read` tokens (cached ones counted in) of
    /// a prompt we counted at `sent` shows of the window.
    pub fn read(&self, sent: u64, read: Option<u64>) -> Reading {
        let Some(read) = read else {
            return Reading::Whole;
        };
        let reading = self.evidence().read(sent, read, Instant::now());
        let evidence = match reading {
            Reading::Whole => return reading,
            Reading::Suspected => "cut_suspected",
            Reading::Cut { .. } => "cuts",
        };
        metrics::counter!("compactd_summary_window_evidence_total", "model" => self.model.clone(), "evidence" => evidence)
            .increment(1);
        reading
    }

    /// Learns the window a model listing gave.
    pub(crate) fn listed(&self, window: u64) {
        self.evidence().listed(window.max(1), Instant::now());
        metrics::counter!("compactd_summary_window_evidence_total", "model" => self.model.clone(), "evidence" => "listing")
            .increment(1);
    }

    /// Whether the operator set the window (it is then never asked for).
    pub(crate) const fn configured(&self) -> bool {
        self.configured.is_some()
    }

    /// The window and what it rests on, in Prometheus's text format, for
    /// `/metrics`: which model, how many tokens, from what, how long ago.
    pub fn exposition(&self) -> String {
        let now = Instant::now();
        let (belief, suspicions, ratio) = {
            let mut evidence = self.evidence();
            (evidence.belief(now), evidence.suspicions(now), evidence.ratio(now))
        };
        let model = label_value(&self.model);
        let mut text = String::new();
        let _ = writeln!(
            text,
            "# HELP compactd_summary_window_tokens The summary model's context window summaries are planned for, by what it rests on: configured, listing, refusal, cuts (prompts of different sizes read at the same count) or the least of configured and learned; absent while unknown.\n# TYPE compactd_summary_window_tokens gauge"
        );
        let learned_from = belief.map(|belief| (belief.tokens, belief.source.name()));
        let planned = match (self.configured, learned_from) {
            (Some(set), Some((learned, from))) if learned < set => Some((learned, from)),
            (Some(set), _) => Some((set, "configured")),
            (None, learned) => learned,
        };
        if let Some((tokens, from)) = planned {
            let _ = writeln!(
                text,
                "compactd_summary_window_tokens{{model=\"{model}\",evidence=\"{from}\"}} {tokens}"
            );
        }
        let _ = writeln!(
            text,
            "# HELP compactd_summary_window_evidence_age_seconds How long ago the learned window's evidence was last seen; it is forgotten at 3600.\n# TYPE compactd_summary_window_evidence_age_seconds gauge"
        );
        if let Some(belief) = belief {
            let age = now.saturating_duration_since(belief.seen).as_secs_f64();
            let from = belief.source.name();
            let _ = writeln!(
                text,
                "compactd_summary_window_evidence_age_seconds{{model=\"{model}\",evidence=\"{from}\"}} {age:.3}"
            );
        }
        let _ = writeln!(
            text,
            "# HELP compactd_summary_window_suspected_cuts Prompts answered as read at under half their size and not believed cut (yet): a cached prefix, or a usage that counts something else.\n# TYPE compactd_summary_window_suspected_cuts gauge\ncompactd_summary_window_suspected_cuts{{model=\"{model}\"}} {suspicions}"
        );
        let ratio = ratio.unwrap_or(0).max(self.default_ratio) as f64 / PER_MILLE as f64;
        let _ = writeln!(
            text,
            "# HELP compactd_summary_window_tokenizer_ratio The upstream's count of a prompt against compactd's, as assumed or learned from a refusal.\n# TYPE compactd_summary_window_tokenizer_ratio gauge\ncompactd_summary_window_tokenizer_ratio{{model=\"{model}\"}} {ratio}"
        );
        text
    }
}

/// `text` as a Prometheus label value: backslash, quote and newline escaped.
fn label_value(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_teaches_the_window_and_the_tokenizer() {
        let window = ContextWindow::new(None, Provider::OpenAi, "smollm2");
        assert_eq!(window.tokens(), None);

        window.learn(
            ContextRefusal {
                window: Some(8_192),
                prompt: Some(15_000),
            },
            10_000,
        );

        assert_eq!(window.tokens(), Some(8_192));
        assert_eq!(window.theirs(1_000), 1_500, "their tokenizer counts half again as many");
    }

    #[test]
    fn a_refusal_without_numbers_halves_what_was_sent() {
        let window = ContextWindow::new(None, Provider::OpenAi, "gpt-4o-mini");
        window.learn(ContextRefusal::default(), 20_000);
        assert_eq!(window.tokens(), Some(10_000));
        window.learn(ContextRefusal::default(), 10_000);
        assert_eq!(window.tokens(), Some(5_000), "each refusal narrows it");
        window.learn(ContextRefusal::default(), 1_000);
        assert_eq!(window.tokens(), Some(2_048), "never below the floor");
    }

    #[test]
    fn a_configured_window_holds_until_the_upstream_says_less() {
        let window = ContextWindow::new(Some(32_000), Provider::Anthropic, "claude-haiku");
        assert_eq!(window.tokens(), Some(32_000));
        assert!(
            window
                .exposition()
                .contains("compactd_summary_window_tokens{model=\"claude-haiku\",evidence=\"configured\"} 32000")
        );
        window.learn(
            ContextRefusal {
                window: Some(16_000),
                prompt: None,
            },
            20_000,
        );
        assert_eq!(window.tokens(), Some(16_000));
        assert!(
            window
                .exposition()
                .contains("compactd_summary_window_tokens{model=\"claude-haiku\",evidence=\"refusal\"} 16000")
        );
    }

    #[test]
    fn a_prompt_is_believed_cut_only_when_another_size_is_read_the_same() {
        let window = ContextWindow::new(None, Provider::OpenAi, "gpt-4o-mini");
        assert_eq!(window.read(20_000, Some(19_500)), Reading::Whole, "read whole");
        assert_eq!(window.read(20_000, None), Reading::Whole, "no usage said");
        assert_eq!(window.read(500, Some(100)), Reading::Whole, "too short to tell");

        assert_eq!(window.read(20_000, Some(4_096)), Reading::Suspected);
        assert_eq!(window.tokens(), None, "one answer changes nothing");
        assert!(
            window
                .exposition()
                .contains("compactd_summary_window_suspected_cuts{model=\"gpt-4o-mini\"} 1")
        );

        assert_eq!(window.read(26_000, Some(4_096)), Reading::Cut { window: 4_096 });
        assert_eq!(window.tokens(), Some(4_096));
        let exposition = window.exposition();
        assert!(
            exposition.contains("compactd_summary_window_tokens{model=\"gpt-4o-mini\",evidence=\"cuts\"} 4096"),
            "{exposition}"
        );
        assert!(
            exposition
                .contains("compactd_summary_window_evidence_age_seconds{model=\"gpt-4o-mini\",evidence=\"cuts\"}")
        );
    }

    #[test]
    fn a_model_name_is_escaped_as_a_label() {
        let window = ContextWindow::new(Some(8_000), Provider::OpenAi, "a\"b\\c\nd");
        assert!(
            window.exposition().contains(r#"model="a\"b\\c\nd""#),
            "{}",
            window.exposition()
        );
    }

    #[test]
    fn the_listing_is_asked_again_once_what_it_said_would_be_forgotten() {
        let now = Instant::now();
        let mut asks = ListingAsks::default();
        assert!(asks.worth_asking(now));
        asks.failed(now);
        asks.failed(now);
        assert!(asks.worth_asking(now), "two failures");
        asks.failed(now);
        assert!(!asks.worth_asking(now), "three");
        assert!(asks.worth_asking(now + FORGOTTEN_AFTER), "an hour later");
        asks.answered(now + FORGOTTEN_AFTER);
        assert!(!asks.worth_asking(now + FORGOTTEN_AFTER));
    }
}
