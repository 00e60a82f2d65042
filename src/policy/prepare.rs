//! Summaries prepared ahead (issue 12): when a conversation's context
//! crosses `prepare_at` percent of the size trigger it is heading for, the
//! summary a compaction would write is prepared from the stored turns so
//! far; a compaction soon after merges it with the few turns since, with no
//! upstream call. This module says when a preparation is due, and whether a
//! prepared summary may stand for what a compaction is about to summarize.

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use super::config::PolicyConfig;
use super::conversation::Conversation;
use super::guard::lasting_guard;
use crate::domain::transcript::Message;

/// The size trigger a conversation is heading for: its context-pressure
/// threshold or the window's trigger, whichever comes first (`None`: it
/// has neither, so nothing is approaching).
fn size_trigger(c: &Conversation, config: &PolicyConfig) -> Option<u64> {
    let threshold = (c.size > 0).then(|| config.trigger_tokens(c.size));
    match (threshold, c.context_pressure_threshold(config)) {
        (Some(threshold), Some(pressure)) => Some(threshold.min(pressure)),
        (threshold, pressure) => threshold.or(pressure),
    }
}

fn share(tokens: u64, percent: u64) -> u64 {
    u64::try_from(u128::from(tokens) * u128::from(percent) / 100).unwrap_or(u64::MAX)
}

/// The context in use at which the conversation's summary is prepared
/// (`None`: preparation is off, or no size trigger applies).
pub(crate) fn preparation_point(c: &Conversation, config: &PolicyConfig) -> Option<u64> {
    if config.prepare_at_percent == 0 {
        return None;
    }
    size_trigger(c, config)
        .map(|trigger| share(trigger, config.prepare_at_percent))
        .filter(|point| *point > 0)
}

/// The most a compaction's delta (the messages after a prepared summary's)
/// may count for the prepared summary to stand for the rest; also how far
/// the context may grow past a preparation before it is prepared again.
pub(crate) fn max_delta_tokens(c: &Conversation, config: &PolicyConfig) -> u64 {
    size_trigger(c, config).map_or(0, |trigger| share(trigger, config.prepare_max_delta_percent))
}

/// The latest preparation planned since the boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Planned {
    /// The last stored turn it covers.
    pub through_turn: i64,
    /// The context in use when it was planned.
    pub used: u64,
}

/// Where a conversation's stored turns stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoredTurns {
    /// Turns up to this one are behind the latest boundary.
    pub boundary: i64,
    /// The newest stored turn.
    pub last: i64,
}

/// Whether a preparation is due at `at`: the context is past the
/// preparation point, turns are stored since the boundary to summarize, no
/// lasting loop guard holds (the trigger would then roll the conversation
/// over, and the preparation be wasted), and nothing is planned since the
/// boundary — or the context has grown so far past the last plan (with new
/// turns stored) that a compaction could no longer merge the turns since it.
pub(crate) fn due(
    c: &Conversation,
    turns: StoredTurns,
    planned: Option<Planned>,
    at: DateTime<Utc>,
    config: &PolicyConfig,
) -> bool {
    let Some(point) = preparation_point(c, config) else {
        return false;
    };
    if c.used < point || turns.last <= turns.boundary {
        return false;
    }
    let unplanned = match planned {
        None => true,
        Some(planned) => {
            turns.last > planned.through_turn
                && c.used >= planned.used.saturating_add(max_delta_tokens(c, config).max(1))
        }
    };
    // Checked last: every report between the point and the compaction gets here.
    unplanned && lasting_guard(c, at, config).is_none()
}

/// What a prepared summary covers: the anchor it was written on and every
/// message it summarized, hashed so that a compaction can tell whether what
/// it is about to summarize begins with exactly that.
pub(crate) fn fingerprint(anchor: Option<&str>, messages: &[Message]) -> [u8; 32] {
    let mut hash = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    match anchor {
        Some(anchor) => field(anchor.as_bytes()),
        None => field(b"\0no anchor"),
    }
    for message in messages {
        field(message.role.as_str().as_bytes());
        field(message.name.as_deref().unwrap_or("").as_bytes());
        field(message.content.as_bytes());
        field(message.tool_call_id.as_deref().unwrap_or("").as_bytes());
        for call in &message.tool_calls {
            field(call.id.as_bytes());
            field(call.name.as_bytes());
            field(call.arguments.as_bytes());
        }
        field(b"\0end of message");
    }
    hash.finalize().into()
}

/// Where a preparation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum Status {
    /// Waiting for a worker (or being written by one).
    Planned,
    /// Written: a compaction may merge it.
    Ready,
    /// A compaction merged it.
    Used,
    /// Written (its upstream tokens spent) and never used.
    Wasted,
    /// Never written.
    Dropped,
}

named!(Status);

/// Why a preparation was wasted or dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum Reason {
    /// A compaction since moved the boundary or wrote another anchor.
    AnchorChanged,
    /// The transcript does not begin with what it covers (the caller sent
    /// messages of its own, or the stored turns are not what they were).
    MessagesDiffer,
    /// `keep_recent_tokens` keeps messages it summarizes verbatim.
    CutInside,
    /// Too much was said after it for a merge to carry.
    DeltaTooBig,
    /// The compaction recorded a summary the harness wrote (or an
    /// operator's clean slate): nothing was to be written.
    HarnessSummary,
    /// The context outgrew it and a newer one was planned.
    Superseded,
    /// The conversation rolled over into a successor.
    RolledOver,
    /// Nobody compacted it for a day after it was written.
    Expired,
    /// The compaction came before it was written.
    CompactedFirst,
    /// The tenant's daily upstream budget was spent: not written.
    Budget,
    /// The upstream failed: not written (the compaction writes afresh).
    Upstream,
}

named!(Reason);

/// What a prepared summary covers, as a compaction checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Covered {
    pub boundary_turn: i64,
    /// The compaction whose summary it was written on.
    pub anchor_seq: Option<i64>,
    pub messages: usize,
    pub fingerprint: [u8; 32],
}

/// What a compaction is about to summarize.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compacting<'a> {
    pub boundary_turn: i64,
    pub anchor: Option<(&'a str, i64)>,
    pub messages: &'a [Message],
    /// Messages from here on stay verbatim.
    pub cut_at: usize,
}

/// Whether the prepared summary stands for the beginning of what is about
/// to be summarized: same boundary and anchor, the very same messages, none
/// of them kept verbatim. The delta's size is checked apart, once its
/// messages are counted ([`delta_fits`]).
pub(crate) fn covers(covered: &Covered, compacting: Compacting<'_>) -> Result<(), Reason> {
    let anchor_seq = compacting.anchor.map(|(_, seq)| seq);
    if covered.boundary_turn != compacting.boundary_turn || covered.anchor_seq != anchor_seq {
        return Err(Reason::AnchorChanged);
    }
    let Some(prefix) = compacting.messages.get(..covered.messages) else {
        return Err(Reason::MessagesDiffer);
    };
    if fingerprint(compacting.anchor.map(|(text, _)| text), prefix) != covered.fingerprint {
        return Err(Reason::MessagesDiffer);
    }
    if compacting.cut_at < covered.messages {
        return Err(Reason::CutInside);
    }
    Ok(())
}

/// Whether a delta of `delta_tokens` may be merged into a prepared summary.
pub(crate) fn delta_fits(delta_tokens: u64, c: &Conversation, config: &PolicyConfig) -> Result<(), Reason> {
    if delta_tokens <= max_delta_tokens(c, config) {
        Ok(())
    } else {
        Err(Reason::DeltaTooBig)
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};

    use super::*;
    use crate::domain::transcript::{Role, ToolCall};

    fn at() -> DateTime<Utc> {
        "2026-12-01T10:00:00Z".parse().unwrap()
    }

    fn conversation(used: u64, size: u64) -> Conversation {
        Conversation {
            used,
            size,
            ..Conversation::new(at())
        }
    }

    const TURNS: StoredTurns = StoredTurns { boundary: 0, last: 12 };

    #[test]
    fn the_point_is_85_percent_of_the_trigger_by_default() {
        let config = PolicyConfig::default();
        // A 200,000-token window triggers at 150,000: prepared from 127,500.
        assert_eq!(preparation_point(&conversation(0, 200_000), &config), Some(127_500));
        assert_eq!(max_delta_tokens(&conversation(0, 200_000), &config), 37_500);
        // The trigger's cap applies first.
        assert_eq!(preparation_point(&conversation(0, 1_000_000), &config), Some(170_000));
        assert_eq!(
            preparation_point(&conversation(0, 0), &config),
            None,
            "no window, no trigger"
        );
    }

    #[test]
    fn a_lower_context_pressure_threshold_is_the_trigger_prepared_for() {
        let config = PolicyConfig {
            context_pressure_tokens: Some(40_000),
            ..PolicyConfig::default()
        };
        assert_eq!(preparation_point(&conversation(0, 200_000), &config), Some(34_000));
        assert_eq!(
            preparation_point(&conversation(0, 0), &config),
            Some(34_000),
            "pressure applies without a window"
        );
        let own = Conversation {
            context_pressure_tokens: Some(400_000),
            ..conversation(0, 200_000)
        };
        assert_eq!(
            preparation_point(&own, &config),
            Some(127_500),
            "a threshold above the window's trigger is not the first met"
        );
    }

    #[test]
    fn zero_turns_preparation_off() {
        let config = PolicyConfig {
            prepare_at_percent: 0,
            ..PolicyConfig::default()
        };
        assert_eq!(preparation_point(&conversation(190_000, 200_000), &config), None);
        assert!(!due(&conversation(190_000, 200_000), TURNS, None, at(), &config));
    }

    #[test]
    fn due_once_the_context_crosses_the_point_with_turns_to_summarize() {
        let config = PolicyConfig::default();
        assert!(!due(&conversation(127_499, 200_000), TURNS, None, at(), &config));
        assert!(due(&conversation(127_500, 200_000), TURNS, None, at(), &config));
        let nothing_stored = StoredTurns { boundary: 12, last: 12 };
        assert!(
            !due(&conversation(140_000, 200_000), nothing_stored, None, at(), &config),
            "no stored turn since the boundary"
        );
    }

    #[test]
    fn planned_once_until_the_context_outgrows_what_a_merge_carries() {
        let config = PolicyConfig::default();
        let planned = Some(Planned {
            through_turn: 10,
            used: 128_000,
        });
        assert!(!due(&conversation(150_000, 200_000), TURNS, planned, at(), &config));
        assert!(!due(&conversation(165_499, 200_000), TURNS, planned, at(), &config));
        assert!(due(&conversation(165_500, 200_000), TURNS, planned, at(), &config));
        let no_new_turn = StoredTurns { boundary: 0, last: 10 };
        assert!(
            !due(&conversation(190_000, 200_000), no_new_turn, planned, at(), &config),
            "nothing new to cover"
        );
    }

    #[test]
    fn not_while_a_lasting_guard_would_turn_the_trigger_into_a_rollover() {
        let config = PolicyConfig::default();
        let past = conversation(140_000, 200_000);
        let busy_day = Conversation {
            compactions: 3,
            turns_since_compaction: 9,
            host_compactions_24h: vec![
                at() - chrono::Duration::hours(3),
                at() - chrono::Duration::hours(2),
                at(),
            ],
            ..past.clone()
        };
        assert!(!due(&busy_day, TURNS, None, at(), &config), "too_many_today");
        assert!(
            due(&busy_day, TURNS, None, at() + chrono::Duration::hours(22), &config),
            "a day later the guard is gone"
        );
        let little_gained = Conversation {
            compactions: 1,
            turns_since_compaction: 9,
            used_after_compaction: Some(95_000),
            ..past.clone()
        };
        assert!(!due(&little_gained, TURNS, None, at(), &config), "too_little_gained");
        let failing = Conversation {
            failed_compactions_in_row: 3,
            ..past.clone()
        };
        assert!(!due(&failing, TURNS, None, at(), &config), "failing");
        let soon = Conversation {
            compactions: 1,
            turns_since_compaction: 1,
            ..past
        };
        assert!(
            due(&soon, TURNS, None, at(), &config),
            "too_soon passes with the turns to come"
        );
    }

    fn messages() -> Vec<Message> {
        vec![
            Message::new(Role::User, "Fix the login bug in src/auth.rs."),
            Message::new(Role::Assistant, "Fixed: the session cookie lacked SameSite."),
            Message::new(Role::User, "Now add a test."),
        ]
    }

    fn covered(messages: &[Message], anchor: Option<&str>) -> Covered {
        Covered {
            boundary_turn: 4,
            anchor_seq: anchor.map(|_| 2),
            messages: messages.len(),
            fingerprint: fingerprint(anchor, messages),
        }
    }

    fn compacting<'a>(messages: &'a [Message], anchor: Option<&'a str>) -> Compacting<'a> {
        Compacting {
            boundary_turn: 4,
            anchor: anchor.map(|text| (text, 2)),
            messages,
            cut_at: messages.len(),
        }
    }

    #[test]
    fn a_preparation_covers_a_transcript_that_begins_with_its_messages() {
        let all = messages();
        let prepared = covered(&all[..2], Some("Earlier: set up CI."));
        assert_eq!(prepared.messages, 2);
        assert_eq!(covers(&prepared, compacting(&all, Some("Earlier: set up CI."))), Ok(()));
        assert_eq!(
            covers(&prepared, compacting(&all[..2], Some("Earlier: set up CI."))),
            Ok(())
        );
    }

    #[test]
    fn any_change_under_a_preparation_makes_it_unusable() {
        let all = messages();
        let prepared = covered(&all[..2], Some("anchor"));
        let mut edited = all.clone();
        edited[1].content.push('!');
        assert_eq!(
            covers(&prepared, compacting(&edited, Some("anchor"))),
            Err(Reason::MessagesDiffer)
        );
        let mut with_a_call = all.clone();
        with_a_call[1].tool_calls.push(ToolCall {
            id: "c1".into(),
            name: "Edit".into(),
            arguments: "{}".into(),
        });
        assert_eq!(
            covers(&prepared, compacting(&with_a_call, Some("anchor"))),
            Err(Reason::MessagesDiffer)
        );
        assert_eq!(
            covers(&prepared, compacting(&all[..1], Some("anchor"))),
            Err(Reason::MessagesDiffer),
            "fewer messages than it covers"
        );
        assert_eq!(
            covers(&prepared, compacting(&all, Some("another anchor"))),
            Err(Reason::MessagesDiffer),
            "same seq, other text: not what it was written on"
        );
        let mut moved = compacting(&all, Some("anchor"));
        moved.boundary_turn = 5;
        assert_eq!(covers(&prepared, moved), Err(Reason::AnchorChanged));
        let mut newer_anchor = compacting(&all, Some("anchor"));
        newer_anchor.anchor = Some(("anchor", 3));
        assert_eq!(covers(&prepared, newer_anchor), Err(Reason::AnchorChanged));
    }

    #[test]
    fn the_same_text_in_other_roles_or_splits_is_another_transcript() {
        let one = [Message::new(Role::User, "ab")];
        let two = [Message::new(Role::User, "a"), Message::new(Role::User, "b")];
        let other_role = [Message::new(Role::Assistant, "ab")];
        assert_ne!(fingerprint(None, &one), fingerprint(None, &two));
        assert_ne!(fingerprint(None, &one), fingerprint(None, &other_role));
        assert_ne!(fingerprint(None, &one), fingerprint(Some(""), &one));
        assert_eq!(fingerprint(None, &one), fingerprint(None, &one.clone()));
    }

    #[test]
    fn a_cut_inside_what_it_covers_or_a_big_delta_makes_it_unusable() {
        let all = messages();
        let prepared = covered(&all[..2], None);
        let mut cut = compacting(&all, None);
        cut.cut_at = 1;
        assert_eq!(covers(&prepared, cut), Err(Reason::CutInside));
        cut.cut_at = 2;
        assert_eq!(covers(&prepared, cut), Ok(()), "a cut right after it is fine");
        let config = PolicyConfig::default();
        let window = conversation(150_000, 200_000);
        assert_eq!(delta_fits(37_500, &window, &config), Ok(()));
        assert_eq!(delta_fits(37_501, &window, &config), Err(Reason::DeltaTooBig));
    }

    #[test]
    fn statuses_and_reasons_have_stable_names() {
        assert_eq!(
            Status::names().collect::<Vec<_>>(),
            ["planned", "ready", "used", "wasted", "dropped"]
        );
        assert_eq!(Reason::parse("delta_too_big"), Some(Reason::DeltaTooBig));
        assert_eq!(Reason::RolledOver.as_str(), "rolled_over");
        assert_eq!(Reason::ALL.len(), 11);
    }
}
