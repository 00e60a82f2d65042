//! Fitting a summary to its budget (SPEC §4), in three steps: **rank** the
//! keep set's items and what the reader gets besides ([`Ranked::new`]),
//! **place** them — tiers 1–4 while they fit, the narrative in the room they
//! leave, tiers 6–7 within their caps ([`Ranked::place`]) — and **park**
//! what does not fit, giving way until the whole, counted exactly, fits
//! ([`Ranked::park`]).

mod park;
mod place;
mod rank;

use rank::Ranked;

use super::budget::{Fitted, Parts};
use crate::summary::keep::set::KeepSet;

/// The summary of `parts` and the keep set within `max_tokens`, with what
/// became of every item the summary was to carry.
pub fn fit(parts: Parts<'_>, set: &KeepSet, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> Fitted {
    fit_unless(parts, set, max_tokens, count, &|| false).unwrap_or_default()
}

/// [`fit`], given up (`None`) as soon as `stopped` says so: its cost is
/// items × text, and nobody may be waiting for it any more (issue 23).
pub fn fit_unless(
    parts: Parts<'_>,
    set: &KeepSet,
    max_tokens: u64,
    count: &dyn Fn(&str) -> u64,
    stopped: &dyn Fn() -> bool,
) -> Option<Fitted> {
    let ranked = Ranked::new(parts, set, max_tokens, count);
    let placed = ranked.place(stopped)?;
    ranked.park(placed, stopped)
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::summary::keep::set::Place;
    use crate::summary::keep::{Sighting, Source};
    use crate::summary::kinds::KeepKind;
    use crate::summary::read::state::{STATE_HEADING, StateAtCut};
    use crate::summary::write::Presence;
    use crate::summary::write::budget::{MIN_SUMMARY_TOKENS, Shape, summary_max_tokens};
    use crate::summary::write::narrative::{KEPT_HEADING, Parked, parked_line};

    fn fit_beside(
        narrative: &str,
        beside: &str,
        shape: Shape,
        set: &KeepSet,
        max_tokens: u64,
        count: &dyn Fn(&str) -> u64,
    ) -> Fitted {
        let state = StateAtCut::default();
        let parts = Parts {
            narrative,
            shape,
            state: &state,
            beside,
            conversation: "c",
            by_model: false,
        };
        fit(parts, set, max_tokens, count)
    }

    fn words(text: &str) -> u64 {
        text.split_whitespace().count() as u64
    }

    fn place(turn: i64) -> Place {
        Place::of_turn(turn)
    }

    fn set_of(items: &[(KeepKind, &str, Source)]) -> KeepSet {
        let mut set = KeepSet::default();
        for (turn, (kind, text, source)) in items.iter().enumerate() {
            let sighting = Sighting::new(*kind, *text, *source);
            set.observe(&[sighting], &place(turn as i64));
        }
        set
    }

    #[test]
    fn files_changed_are_named_from_their_folder_and_a_folder_made_for_them_is_held_by_them() {
        let set = set_of(&[
            (KeepKind::FileChanged, "/Users/a/torre/apps/web", Source::ToolCall),
            (
                KeepKind::FileChanged,
                "/Users/a/torre/apps/web/lib/api.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/torre/apps/web/lib/logger.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/torre/apps/api/route.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/.claude/plans/plan.md",
                Source::ToolCall,
            ),
        ]);
        let fitted = fit_beside("Built the apps.", "", Shape::Prose, &set, 4_000, &words);
        let files: Vec<&str> = fitted
            .text
            .lines()
            .filter(|l| l.starts_with("- Files changed"))
            .collect();
        assert_eq!(
            files,
            [
                "- Files changed (under /Users/a/torre/apps/): api/route.ts, web/lib/logger.ts, web/lib/api.ts",
                "- Files changed: /Users/a/.claude/plans/plan.md",
            ]
        );
        let figures = fitted.figures.by_kind[&KeepKind::FileChanged];
        assert_eq!(
            (figures.checked, figures.appended, figures.present, figures.parked),
            (5, 4, 1, 0)
        );
        let presence = Presence::of(&fitted.text);
        for item in set.items() {
            assert!(presence.holds(item), "a reader finds {} in {}", item.text, fitted.text);
        }
    }

    #[test]
    fn a_file_named_whole_and_from_the_project_reads_once_and_both_are_found() {
        let set = set_of(&[
            (
                KeepKind::FileChanged,
                "/Users/a/dash/src/lib/reader.ts",
                Source::ToolCall,
            ),
            (
                KeepKind::FileChanged,
                "/Users/a/dash/src/app/page.tsx",
                Source::ToolCall,
            ),
            (KeepKind::FileChanged, "/Users/a/dash/README.md", Source::ToolCall),
            (KeepKind::FileChanged, "src/lib/reader.ts", Source::ToolCall),
        ]);
        let fitted = fit_beside("Built the dashboard.", "", Shape::Prose, &set, 4_000, &words);
        assert!(
            fitted
                .text
                .lines()
                .any(|line| line
                    == "- Files changed (under /Users/a/dash/): README.md, src/app/page.tsx, src/lib/reader.ts"),
            "{}",
            fitted.text
        );
        let presence = Presence::of(&fitted.text);
        for item in set.items() {
            assert!(presence.holds(item), "a reader finds {} in {}", item.text, fitted.text);
        }
    }

    #[test]
    fn the_budget_is_a_twentieth_of_the_window_within_its_bounds() {
        assert_eq!(summary_max_tokens(4_000, 200_000), 4_000);
        assert_eq!(summary_max_tokens(4_000, 30_000), 1_500);
        assert_eq!(summary_max_tokens(4_000, 8_000), MIN_SUMMARY_TOKENS);
        assert_eq!(summary_max_tokens(4_000, 0), 4_000);
    }

    #[test]
    fn missing_items_are_appended_once_under_the_heading() {
        let set = set_of(&[
            (KeepKind::Request, "Deploy 4711 to staging", Source::User),
            (KeepKind::Prohibition, "Never force-push to main.", Source::User),
            (KeepKind::Path, "/srv/app", Source::User),
            (KeepKind::Path, "src/lib.rs", Source::User),
            (KeepKind::FileChanged, "src/lib.rs", Source::ToolCall),
        ]);
        let fitted = fit_beside(
            "We edited src/lib.rs and deployed.",
            "",
            Shape::Prose,
            &set,
            200,
            &words,
        );
        assert_eq!(
            fitted.text,
            format!(
                "We edited src/lib.rs and deployed.\n\n{STATE_HEADING}\n- Latest request: Deploy 4711 to staging\n\n{KEPT_HEADING}\n- Rule: Never force-push to main.\n- Paths: /srv/app"
            )
        );
        let total = fitted.figures.total();
        assert_eq!(
            (total.checked, total.present, total.appended, total.parked),
            (5, 2, 3, 0)
        );
    }

    #[test]
    fn a_complete_narrative_gets_nothing_appended_and_the_request_opens_where_things_stand() {
        let set = set_of(&[
            (KeepKind::Request, "Ship it", Source::User),
            (KeepKind::Path, "src/a.rs", Source::User),
        ]);
        let fitted = fit_beside(
            "The user said: Ship it, in src/a.rs.",
            "",
            Shape::Prose,
            &set,
            100,
            &words,
        );
        assert_eq!(
            fitted.text,
            format!("The user said: Ship it, in src/a.rs.\n\n{STATE_HEADING}\n- Latest request: Ship it")
        );
        assert_eq!(fitted.figures.total().present, 2);
    }

    #[test]
    fn every_summary_fits_its_budget_and_says_what_it_parked() {
        let mut items: Vec<(KeepKind, String, Source)> = (0..200)
            .map(|i| (KeepKind::Path, format!("src/module_{i}/file.rs"), Source::User))
            .collect();
        items.push((KeepKind::Request, "Finish the migration".into(), Source::User));
        let items: Vec<(KeepKind, &str, Source)> = items.iter().map(|(k, t, s)| (*k, t.as_str(), *s)).collect();
        let set = set_of(&items);
        let narrative = "A long story. ".repeat(200);
        let fitted = fit_beside(&narrative, "", Shape::Prose, &set, 120, &words);
        assert!(fitted.tokens <= 120, "{} tokens", fitted.tokens);
        assert_eq!(fitted.tokens, words(&fitted.text));
        assert!(fitted.text.contains("- Latest request: Finish the migration"));
        let total = fitted.figures.total();
        assert!(total.parked > 0);
        let parked = Parked {
            all: total.parked as usize,
            said: total.parked as usize,
        };
        assert!(fitted.text.ends_with(&parked_line(parked, "c")), "{}", fitted.text);
        assert!(
            fitted.text.contains("for conversation \"c\": get_keep_set"),
            "{}",
            fitted.text
        );
        assert!(fitted.text.contains("src/module_199/file.rs"), "the newest first");
    }

    #[test]
    fn rules_outrank_the_narrative_and_the_oldest_rule_is_parked_last_of_all() {
        let rules: Vec<String> = (0..40).map(|i| format!("Never do thing number {i} at all.")).collect();
        let mut items: Vec<(KeepKind, &str, Source)> = rules
            .iter()
            .map(|r| (KeepKind::Prohibition, r.as_str(), Source::User))
            .collect();
        items.push((KeepKind::Path, "user/named.rs", Source::User));
        let set = set_of(&items);
        let fitted = fit_beside(
            &"Narrative that does not fit. ".repeat(5),
            "",
            Shape::Prose,
            &set,
            100,
            &words,
        );
        assert!(fitted.tokens <= 100);
        assert!(!fitted.text.contains("Narrative"), "{}", fitted.text);
        assert!(fitted.text.contains("thing number 39"));
        assert!(!fitted.text.contains("thing number 0 "), "{}", fitted.text);
        assert!(fitted.figures.by_kind[&KeepKind::Prohibition].parked > 0);
    }

    #[test]
    fn names_are_present_only_where_they_stand_alone() {
        let set = set_of(&[(KeepKind::Path, "src/a.rs", Source::User)]);
        assert!(
            fit_beside("Backed up xsrc/a.rs.bak.", "", Shape::Prose, &set, 100, &words)
                .text
                .contains("- Paths: src/a.rs")
        );
        assert_eq!(
            fit_beside("Edited src/a.rs.", "", Shape::Prose, &set, 100, &words).text,
            "Edited src/a.rs."
        );
    }

    #[test]
    fn the_agents_names_fill_what_the_narrative_leaves() {
        let set = set_of(&[
            (KeepKind::Path, "agent/one.rs", Source::Assistant),
            (KeepKind::Path, "only/tool.rs", Source::ToolResult),
        ]);
        let fitted = fit_beside("Short.", "", Shape::Prose, &set, 100, &words);
        assert!(
            fitted.text.contains("- Also named by the agent: agent/one.rs"),
            "{}",
            fitted.text
        );
        assert!(!fitted.text.contains("only/tool.rs"));
    }

    #[test]
    fn a_long_series_of_the_agents_numbered_ids_is_parked() {
        let mut items: Vec<(KeepKind, String, Source)> = (1..=6)
            .map(|n| (KeepKind::Id, format!("BF-{n}"), Source::Assistant))
            .collect();
        items.push((KeepKind::Id, "PROJ-42".to_owned(), Source::Assistant));
        let items: Vec<(KeepKind, &str, Source)> = items.iter().map(|(k, t, s)| (*k, t.as_str(), *s)).collect();
        let fitted = fit_beside("Short.", "", Shape::Lines, &set_of(&items), 400, &words);
        assert!(fitted.text.contains("PROJ-42"), "{}", fitted.text);
        assert!(!fitted.text.contains("BF-3"), "{}", fitted.text);
    }

    #[test]
    fn a_tables_numbering_by_many_prefixes_is_parked_but_lone_ids_like_it_are_not() {
        let items: Vec<(KeepKind, &str, Source)> = ["BH-1", "BH-2", "CL-1", "CL-3", "IC-2", "IC-4", "UTF-8", "PROJ-42"]
            .into_iter()
            .map(|id| (KeepKind::Id, id, Source::Assistant))
            .collect();
        let fitted = fit_beside("Short.", "", Shape::Lines, &set_of(&items), 400, &words);
        assert!(
            fitted.text.contains("UTF-8") && fitted.text.contains("PROJ-42"),
            "{}",
            fitted.text
        );
        assert!(
            !fitted.text.contains("BH-1") && !fitted.text.contains("IC-4"),
            "{}",
            fitted.text
        );
        let two_prefixes: Vec<(KeepKind, &str, Source)> =
            items.into_iter().filter(|(_, id, _)| !id.starts_with("IC")).collect();
        let fitted = fit_beside("Short.", "", Shape::Lines, &set_of(&two_prefixes), 400, &words);
        assert!(
            fitted.text.contains("BH-1"),
            "two prefixes make no table: {}",
            fitted.text
        );
    }

    #[test]
    fn a_bare_percentage_a_process_id_and_a_one_off_shell_line_are_not_listed() {
        let set = set_of(&[
            (KeepKind::Quantity, "74%", Source::Assistant),
            (KeepKind::Quantity, "PID 72315", Source::Assistant),
            (KeepKind::Quantity, "30 s timeout", Source::Assistant),
            (
                KeepKind::Command,
                "sleep 3 && tail -5 out.log | grep ERROR",
                Source::Assistant,
            ),
            (
                KeepKind::Command,
                "find . -name '*.rs' -exec wc -l {} \\;",
                Source::Assistant,
            ),
            (KeepKind::Command, "cargo build && cargo test", Source::Assistant),
        ]);
        let fitted = fit_beside("Short.", "", Shape::Lines, &set, 400, &words);
        for shown in ["30 s timeout", "cargo build && cargo test", "find . -name"] {
            assert!(fitted.text.contains(shown), "{shown}: {}", fitted.text);
        }
        for parked in ["74%", "PID 72315", "sleep 3"] {
            assert!(!fitted.text.contains(parked), "{parked}: {}", fitted.text);
        }
    }

    #[test]
    fn the_agents_searches_and_reads_are_parked_and_what_it_ran_to_change_things_is_shown() {
        let set = set_of(&[
            (
                KeepKind::Command,
                "rg -n \"decision\" src/cli/import_cmds.py",
                Source::Assistant,
            ),
            (KeepKind::Command, "git log --oneline -5", Source::Assistant),
            (KeepKind::Command, "uv run alembic upgrade head", Source::Assistant),
        ]);
        let fitted = fit_beside("Short.", "", Shape::Prose, &set, 200, &words);
        assert!(
            fitted
                .text
                .contains("- Also named by the agent: uv run alembic upgrade head"),
            "{}",
            fitted.text
        );
        assert!(!fitted.text.contains("rg -n"), "{}", fitted.text);
        assert!(!fitted.text.contains("git log"), "{}", fitted.text);
        assert_eq!(fitted.figures.by_kind[&KeepKind::Command].parked, 2);
    }

    #[test]
    fn a_narrative_that_holds_every_item_takes_the_room_they_would_have_taken() {
        let set = set_of(&[
            (
                KeepKind::Request,
                "Rotate key KEY-2231 in /etc/app/keys now",
                Source::User,
            ),
            (KeepKind::Path, "/etc/app/keys", Source::User),
            (KeepKind::Id, "KEY-2231", Source::User),
        ]);
        let narrative = "Header line.\n- Rotate key KEY-2231 in /etc/app/keys now → Rotated it.";
        let fitted = fit_beside(narrative, "", Shape::Lines, &set, 60, &words);
        assert_eq!(
            fitted.text,
            format!("{STATE_HEADING}\n- Latest request: Rotate key KEY-2231 in /etc/app/keys now\n\n{narrative}"),
            "nothing appended, nothing parked; where things stand before the extractive lines"
        );
        assert_eq!(fitted.figures.total().present, 3);
    }

    #[test]
    fn what_the_reader_has_beside_the_summary_is_not_appended_again() {
        let set = set_of(&[
            (KeepKind::Request, "Book the 9:10 train", Source::User),
            (KeepKind::Prohibition, "Never book first class.", Source::User),
        ]);
        let fitted = fit_beside(
            "Planned a trip.",
            "- (2026-10-18) Book the 9:10 train",
            Shape::Prose,
            &set,
            100,
            &words,
        );
        assert_eq!(
            fitted.text,
            format!("Planned a trip.\n\n{KEPT_HEADING}\n- Rule: Never book first class.")
        );
    }

    #[test]
    fn where_things_stand_comes_after_the_narrative_within_its_share() {
        let set = set_of(&[
            (KeepKind::Request, "Fix the retry test", Source::User),
            (KeepKind::Prohibition, "Never touch prod.", Source::User),
            (KeepKind::Path, "src/retry.rs", Source::User),
        ]);
        let state = StateAtCut {
            then: vec!["answered: Great!".into()],
            in_progress: Some("Raising the backoff in src/retry.rs to 774ms.".into()),
            task_list: None,
            changed_values: Vec::new(),
            relied_on: Vec::new(),
            last_actions: vec!["Bash `cargo test` → failed: backoff too short".into()],
            checks: None,
            commits: None,
            waiting_on_user: None,
            unanswered: Vec::new(),
            unverified: Vec::new(),
            unresolved_error: Some(format!("Bash `make` failed: {}", "word ".repeat(40))),
        };
        let parts = Parts {
            narrative: "We looked at the retries.",
            shape: Shape::Prose,
            state: &state,
            beside: "",
            conversation: "c",
            by_model: false,
        };
        let fitted = fit(parts, &set, 200, &words);
        assert_eq!(
            fitted.text,
            format!(
                "We looked at the retries.\n\n{STATE_HEADING}\n- Latest request: Fix the retry test\n- Then: answered: Great!\n\
                 - In progress: Raising the backoff in src/retry.rs to 774ms.\n- Last actions: Bash `cargo test` → failed: backoff too short\n\n\
                 {KEPT_HEADING}\n- Rule: Never touch prod."
            ),
            "the path is held where things stand; the long error is over the section's 15%"
        );
        assert_eq!(fitted.figures.by_kind[&KeepKind::Path].present, 1);
    }

    #[test]
    fn the_agents_and_the_tools_names_are_capped() {
        let mut items: Vec<(KeepKind, String, Source)> = (0..300)
            .map(|i| (KeepKind::Command, format!("make target_{i}"), Source::ToolCall))
            .collect();
        items.extend((0..300).map(|i| (KeepKind::Path, format!("out/{i}.log"), Source::ToolResult)));
        let items: Vec<(KeepKind, &str, Source)> = items.iter().map(|(k, t, s)| (*k, t.as_str(), *s)).collect();
        let mut set = set_of(&items);
        for i in 0..300 {
            let again = Sighting::new(KeepKind::Path, format!("out/{i}.log"), Source::Assistant);
            set.observe(&[again], &place(1000 + i));
        }
        let fitted = fit_beside("Short.", "", Shape::Prose, &set, 1_000, &words);
        let line = |label: &str| fitted.text.lines().find(|l| l.starts_with(label)).map_or(0, words);
        let by_agent = line("- Also named by the agent:");
        let in_output = line("- Seen in tool output and mentioned again:");
        assert!(by_agent > 0 && by_agent <= 150, "tier 6: {by_agent} words");
        assert!(in_output > 0 && in_output <= 50, "tier 7: {in_output} words");
        assert!(fitted.figures.total().parked > 0);
    }

    #[test]
    fn the_same_inputs_give_the_same_summary() {
        let set = set_of(&[
            (KeepKind::Path, "b.rs", Source::User),
            (KeepKind::Path, "a.rs", Source::User),
            (KeepKind::Quantity, "774ms", Source::User),
        ]);
        let first = fit_beside("n", "", Shape::Prose, &set, 100, &words);
        let again = fit_beside(
            "n",
            "",
            Shape::Prose,
            &KeepSet::new(set.items().to_vec(), set.clock()),
            100,
            &words,
        );
        assert_eq!(first, again);
    }

    #[test]
    fn a_fit_told_to_stop_gives_up_and_one_never_told_fits_as_fit_does() {
        let mut set = KeepSet::default();
        let place = Place::of_turn(1);
        let sightings: Vec<Sighting> = (0..50)
            .map(|n| Sighting::new(KeepKind::Path, format!("src/m/f{n}.rs"), Source::User))
            .collect();
        set.observe(&sightings, &place);
        let state = StateAtCut::default();
        let parts = Parts {
            narrative: "We worked.",
            shape: Shape::Prose,
            state: &state,
            beside: "",
            conversation: "c",
            by_model: false,
        };
        let asked = std::cell::Cell::new(0);
        // Asked before each pass over a text (an item costs a lookup now).
        let after_two = || {
            asked.set(asked.get() + 1);
            asked.get() > 2
        };
        assert_eq!(fit_unless(parts, &set, 2_000, &words, &after_two), None);
        assert_eq!(asked.get(), 3, "it gave up at the first check told to");
        assert_eq!(
            fit_unless(parts, &set, 2_000, &words, &|| false),
            Some(fit(parts, &set, 2_000, &words))
        );
    }

    /// A model's summary of `narrative` beside `state` (issue 41).
    fn fit_by_model(narrative: &str, state: &StateAtCut, set: &KeepSet, max_tokens: u64) -> Fitted {
        let parts = Parts {
            narrative,
            shape: Shape::Prose,
            state,
            beside: "",
            conversation: "c",
            by_model: true,
        };
        fit(parts, set, max_tokens, &words)
    }

    fn retry_work() -> (KeepSet, StateAtCut) {
        let set = set_of(&[
            (KeepKind::Request, "Fix the retry test in src/retry.rs", Source::User),
            (KeepKind::Path, "src/retry.rs", Source::User),
        ]);
        let state = StateAtCut {
            in_progress: Some("Raising the backoff in src/retry.rs to 774ms.".into()),
            last_actions: vec!["Bash `cargo test retry` → failed: backoff too short".into()],
            ..StateAtCut::default()
        };
        (set, state)
    }

    #[test]
    fn a_models_narrative_naming_the_file_in_progress_gets_no_state_line_repeating_it_and_the_request_opens_the_section()
     {
        let (set, state) = retry_work();
        let narrative = "The user asked: Fix the retry test in src/retry.rs. The test expects a longer wait.\n\n\
                         Where it stands: raising the backoff in src/retry.rs to 774ms. Next, run the tests again.";
        let fitted = fit_by_model(narrative, &state, &set, 300);
        assert_eq!(
            fitted.text,
            format!(
                "{STATE_HEADING}\n- Latest request: Fix the retry test in src/retry.rs\n- Last actions: Bash `cargo test retry` → failed: backoff too short\n\n{narrative}"
            ),
            "every summary carries where things stand, opened by the request (SPEC §4); of the rest, only the line the narrative does not say"
        );
        let total = fitted.figures.total();
        assert_eq!(
            (total.present, total.appended),
            (2, 0),
            "the request is held by the narrative"
        );
    }

    #[test]
    fn beside_a_models_narrative_the_agents_names_and_values_from_tool_output_are_left_out() {
        let (mut set, mut state) = retry_work();
        set.observe(
            &[
                Sighting::new(KeepKind::Path, "src/backoff.rs", Source::Assistant),
                Sighting::new(KeepKind::Command, "uv run alembic upgrade head", Source::Assistant),
            ],
            &place(9),
        );
        state.relied_on = vec!["Read `config/retry.toml` showed: \"max_wait_ms = 774\"".into()];
        let narrative = "The user asked: Fix the retry test in src/retry.rs. Raising the backoff to 774ms.";
        let by_model = fit_by_model(narrative, &state, &set, 400);
        assert!(!by_model.text.contains("From tool output"), "{}", by_model.text);
        assert!(!by_model.text.contains("src/backoff.rs"), "{}", by_model.text);
        assert!(!by_model.text.contains(KEPT_HEADING), "{}", by_model.text);
        assert_eq!(by_model.figures.total().parked, 2);
        let extractive = fit(
            Parts {
                narrative,
                shape: Shape::Lines,
                state: &state,
                beside: "",
                conversation: "c",
                by_model: false,
            },
            &set,
            400,
            &words,
        );
        assert!(
            extractive.text.contains("- From tool output: Read `config/retry.toml`"),
            "{}",
            extractive.text
        );
        assert!(extractive.text.contains("src/backoff.rs"), "{}", extractive.text);
    }

    #[test]
    fn a_models_narrative_that_lacks_the_request_and_the_file_in_progress_gets_them() {
        let (mut set, state) = retry_work();
        set.observe(
            &[Sighting::new(KeepKind::Prohibition, "Never touch prod.", Source::User)],
            &place(9),
        );
        let narrative = "We looked at the retries.\n\nNext, run the tests again.";
        let fitted = fit_by_model(narrative, &state, &set, 300);
        assert_eq!(
            fitted.text,
            format!(
                "{STATE_HEADING}\n- Latest request: Fix the retry test in src/retry.rs\n\
                 - In progress: Raising the backoff in src/retry.rs to 774ms.\n\
                 - Last actions: Bash `cargo test retry` → failed: backoff too short\n\n\
                 {KEPT_HEADING}\n- Rule: Never touch prod.\n\n{narrative}"
            ),
            "the path is held where things stand, not repeated under the kept heading"
        );
        assert_eq!(fitted.figures.by_kind[&KeepKind::Path].present, 1);
    }

    #[test]
    fn a_models_last_paragraph_is_the_last_prose_and_the_parked_line_still_closes() {
        let mut items: Vec<(KeepKind, String, Source)> = (0..200)
            .map(|i| (KeepKind::Path, format!("src/module_{i}/file.rs"), Source::Assistant))
            .collect();
        items.push((KeepKind::Request, "Finish the migration".into(), Source::User));
        let items: Vec<(KeepKind, &str, Source)> = items.iter().map(|(k, t, s)| (*k, t.as_str(), *s)).collect();
        let set = set_of(&items);
        let (_, state) = retry_work();
        let narrative = "We moved the tables over.\n\nNext: run the migration on staging.";
        let fitted = fit_by_model(narrative, &state, &set, 300);
        assert!(fitted.tokens <= 300, "{} tokens", fitted.tokens);
        let parked = fitted.figures.total().parked as usize;
        assert!(parked > 0);
        let line = parked_line(
            Parked {
                all: parked,
                said: parked,
            },
            "c",
        );
        let prose = fitted
            .text
            .strip_suffix(&line)
            .expect("the parked line closes the summary");
        assert!(
            prose.trim_end().ends_with("Next: run the migration on staging."),
            "{}",
            fitted.text
        );
        let opening = fitted
            .text
            .find("We moved the tables over.")
            .expect("the narrative is whole");
        assert!(
            fitted.text.find(STATE_HEADING).is_some_and(|at| at < opening),
            "{}",
            fitted.text
        );
        assert_eq!(fitted, fit_by_model(narrative, &state, &set, 300), "byte for byte");
    }
}
