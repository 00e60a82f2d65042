//! Who writes a compaction's summary, decided from what was gathered and
//! nothing else: the harness's own (a clean slate for `manual_recovery`),
//! the narrative prepared ahead with the delta merged in, the upstream
//! model, or the extractive summarizer.

use chrono::{DateTime, Utc};

use super::Ahead;
use crate::policy::CompactionTrigger;
use crate::policy::prepare::Reason;
use crate::records::StoredConversation;
use crate::store::prepared::Ready;

/// The writer chosen.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Plan<'a> {
    /// `manual_recovery`: the harness's text (or nothing) becomes the summary,
    /// nothing of the old one carried.
    CleanSlate(String),
    /// The harness wrote the summary: held to the rules, no model called.
    Harness(String),
    /// The narrative prepared ahead, the messages since merged in: no
    /// upstream call, whatever the budget, since it is paid for.
    Merge(&'a Ready),
    /// The upstream model, if the tenant's budget holds the call.
    Model,
    /// The extractive summarizer: no model is configured.
    Extractive,
}

/// The compaction's trigger: the one asked for, else the pending decision's
/// when it names a compaction, else `manual`.
pub(super) fn trigger(asked: Option<CompactionTrigger>, stored: &StoredConversation) -> CompactionTrigger {
    asked.unwrap_or_else(|| {
        stored
            .pending_decision
            .as_ref()
            .and_then(|pending| pending.trigger?.compaction())
            .unwrap_or(CompactionTrigger::Manual)
    })
}

/// The harness's summary as the compaction takes it: `manual_recovery`
/// always has one (empty when none was sent).
pub(super) fn harness_summary(trigger: CompactionTrigger, sent: Option<String>) -> Option<String> {
    match trigger {
        CompactionTrigger::ManualRecovery => Some(sent.unwrap_or_default()),
        _ => sent,
    }
}

/// Who writes the summary.
pub(super) fn plan<'a>(
    trigger: CompactionTrigger,
    harness_summary: Option<String>,
    chosen: &'a Result<Ready, Option<Reason>>,
    model_configured: bool,
) -> Plan<'a> {
    match (harness_summary, chosen) {
        (Some(text), _) if trigger == CompactionTrigger::ManualRecovery => Plan::CleanSlate(text),
        (Some(text), _) => Plan::Harness(text),
        (None, Ok(ready)) => Plan::Merge(ready),
        (None, Err(_)) if model_configured => Plan::Model,
        (None, Err(_)) => Plan::Extractive,
    }
}

/// What becomes of the preparation offered, and how old the one merged was.
pub(super) fn ahead(chosen: &Result<Ready, Option<Reason>>, at: DateTime<Utc>) -> (Ahead, Option<u64>) {
    match chosen {
        // A merge does not fail: the attempt succeeded with it.
        Ok(ready) => {
            let age = (at - ready.planned_at).num_milliseconds().max(0);
            (Ahead::Used(ready.seq), Some(u64::try_from(age).unwrap_or(0)))
        }
        // With none offered, only a plan not yet written can be open: it ends
        // `compacted_first` whatever this says.
        Err(reason) => (Ahead::Unused(reason.unwrap_or(Reason::Superseded)), None),
    }
}

/// The context the compaction shrinks: what the caller said, else the
/// agent's last report (unless the turns stored since outgrew it), else
/// what was counted.
pub(super) fn tokens_before(asked: Option<u64>, reported: Option<u64>, counted: u64) -> u64 {
    asked.unwrap_or_else(|| reported.map_or(counted, |used| used.max(counted)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::prepare::Covered;

    fn ready(seq: i64, planned_at: DateTime<Utc>) -> Ready {
        Ready {
            seq,
            planned_at,
            covered: Covered {
                boundary_turn: 0,
                anchor_seq: None,
                messages: 2,
                fingerprint: [0; 32],
            },
            message_tokens: vec![1, 2],
            anchor_tokens: 0,
            narrative: "prepared".to_owned(),
            model: None,
        }
    }

    #[test]
    fn a_harness_summary_is_taken_before_any_preparation_or_model() {
        let offered = Ok(ready(3, Utc::now()));
        let text = || Some("the harness's".to_owned());
        assert_eq!(
            plan(CompactionTrigger::Harness, text(), &offered, true),
            Plan::Harness("the harness's".to_owned())
        );
        assert_eq!(
            plan(CompactionTrigger::ManualRecovery, text(), &offered, true),
            Plan::CleanSlate("the harness's".to_owned())
        );
    }

    #[test]
    fn manual_recovery_without_a_summary_starts_from_a_clean_slate() {
        let summary = harness_summary(CompactionTrigger::ManualRecovery, None);
        assert_eq!(summary.as_deref(), Some(""));
        assert_eq!(harness_summary(CompactionTrigger::Manual, None), None);
        assert_eq!(
            plan(CompactionTrigger::ManualRecovery, summary, &Err(None), true),
            Plan::CleanSlate(String::new())
        );
    }

    #[test]
    fn a_preparation_that_stands_is_merged_even_with_a_model() {
        let offered = Ok(ready(3, Utc::now()));
        assert!(
            matches!(plan(CompactionTrigger::ThresholdExceeded, None, &offered, true), Plan::Merge(r) if r.seq == 3)
        );
    }

    #[test]
    fn without_a_preparation_the_model_writes_it_when_there_is_one() {
        let refused = Err(Some(Reason::CutInside));
        assert_eq!(
            plan(CompactionTrigger::ThresholdExceeded, None, &refused, true),
            Plan::Model
        );
        assert_eq!(
            plan(CompactionTrigger::ThresholdExceeded, None, &refused, false),
            Plan::Extractive
        );
        assert_eq!(
            plan(CompactionTrigger::Manual, None, &Err(None), false),
            Plan::Extractive
        );
    }

    #[test]
    fn a_merged_preparation_is_used_with_its_age_and_one_not_used_ends_for_its_reason() {
        let at = Utc::now();
        let offered = Ok(ready(7, at - chrono::Duration::milliseconds(1_500)));
        assert_eq!(ahead(&offered, at), (Ahead::Used(7), Some(1_500)));
        assert_eq!(
            ahead(&Err(Some(Reason::MessagesDiffer)), at),
            (Ahead::Unused(Reason::MessagesDiffer), None)
        );
        assert_eq!(ahead(&Err(None), at), (Ahead::Unused(Reason::Superseded), None));
    }

    #[test]
    fn the_context_shrunk_is_the_callers_else_the_larger_of_the_report_and_the_count() {
        assert_eq!(tokens_before(Some(10), Some(500), 100), 10);
        assert_eq!(tokens_before(None, Some(500), 100), 500);
        assert_eq!(
            tokens_before(None, Some(50), 100),
            100,
            "turns stored since outgrew the report"
        );
        assert_eq!(tokens_before(None, None, 100), 100);
    }
}
