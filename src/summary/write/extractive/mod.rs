//! The summarizer that needs no model (SPEC §4): used when no upstream is
//! configured or the tenant's upstream budget is spent. Its narrative is one
//! line per user request — the request, its conclusion (the first sentence
//! that says something of the turn's last answer) and the files it changed
//! — each followed by the work that led there: what the agent found and
//! decided along the way, the commits and test runs it made, what failed.
//! On top of the anchor's lines; the budget drops the oldest work first,
//! then merges the oldest request lines, and the keep set's items are
//! appended by the same guard as any summary's.

mod choices;
mod exchange;
mod failures;
mod remarks;
mod requests;

pub(crate) use requests::request_lines;

use crate::domain::transcript::Message;
use crate::summary::read::Reading;
use crate::summary::read::sentences::{Stretch, clipped};
use crate::summary::write::narrative::{WORK_MARK, split_merged};

/// How much of a prior narrative in prose (an earlier model's) is carried.
pub(crate) const PRIOR_PROSE_CHARS: usize = 600;

/// On a transcript of this many tokens or more, the extractive summary is
/// at most a tenth of it.
pub(crate) const COMPRESSES_FROM_TOKENS: u64 = 20_000;

/// The most an extractive summary of `transcript_tokens` (the anchor and
/// the delta it replaces) may take: a tenth of a long transcript; a short
/// one's summary may take the whole budget, since what it holds word for
/// word fits beside a shorter narrative (the narrative gives way first).
pub(crate) fn max_tokens(transcript_tokens: u64, budget: u64) -> u64 {
    if transcript_tokens >= COMPRESSES_FROM_TOKENS {
        budget.min(transcript_tokens / 10)
    } else {
        budget
    }
}

/// The first line of every extractive summary.
pub(crate) fn header(why: &str) -> String {
    format!("Written by compactd without a model ({why}).")
}

/// The narrative of `messages` (read into `read`) on top of the anchor's
/// narrative: a header saying why no model wrote it, the anchor's lines,
/// then one line per request with its work.
pub(crate) fn narrative(prior: Option<&str>, messages: &[Message], read: &Reading, why: &str) -> String {
    let mut lines = vec![header(why)];
    let carried = |line: &&str| line.starts_with("- ") || line.starts_with(WORK_MARK);
    if let Some(prior) = prior.map(str::trim).filter(|p| !p.is_empty()) {
        // A prepared summary merged with later lines: its prose, then its lines.
        let (prose, since) = split_merged(prior).unwrap_or((prior, ""));
        let prior_lines: Vec<&str> = prose.lines().chain(since.lines()).filter(carried).collect();
        if !since.is_empty() && !prose.trim().is_empty() {
            lines.push(format!(
                "- Before: {}",
                clipped(prose, PRIOR_PROSE_CHARS, Stretch::None)
            ));
            lines.extend(since.lines().filter(carried).map(str::to_owned));
        } else if prior_lines.is_empty() {
            lines.push(format!(
                "- Before: {}",
                clipped(prior, PRIOR_PROSE_CHARS, Stretch::None)
            ));
        } else {
            lines.extend(prior_lines.iter().map(|l| (*l).to_owned()));
        }
    }
    lines.extend(request_lines(messages, read));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::exchange::{REQUEST_CHARS, STEP_CHARS};
    use super::*;
    use crate::domain::transcript::{Role, ToolCall};
    use crate::summary::read::HarnessPatterns;

    fn narrative(prior: Option<&str>, messages: &[Message], harness: &HarnessPatterns, why: &str) -> String {
        super::narrative(prior, messages, &Reading::of(messages, harness, messages.len()), why)
    }

    /// The agent running `command` in a shell, as call `id`…
    fn call(id: &str, command: &str) -> Message {
        Message {
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "Bash".into(),
                arguments: serde_json::json!({ "command": command }).to_string(),
            }],
            ..Message::new(Role::Assistant, "")
        }
    }

    /// …and what call `id` gave back.
    fn result(id: &str, text: &str) -> Message {
        Message {
            tool_call_id: Some(id.into()),
            ..Message::new(Role::Tool, text)
        }
    }

    fn turn(request: &str, answer: &str, file: Option<&str>) -> Vec<Message> {
        let mut messages = vec![Message::new(Role::User, request)];
        if let Some(file) = file {
            messages.push(Message {
                tool_calls: vec![ToolCall {
                    id: "c".into(),
                    name: "Write".into(),
                    arguments: format!(r#"{{"file_path":"{file}","content":"x"}}"#),
                }],
                ..Message::new(Role::Assistant, "")
            });
            messages.push(Message {
                tool_call_id: Some("c".into()),
                ..Message::new(Role::Tool, "ok")
            });
        }
        messages.push(Message::new(Role::Assistant, answer));
        messages
    }

    #[test]
    fn one_line_per_request_with_its_outcome_and_files() {
        let mut messages = turn(
            "Add a health check.",
            "Looking. Added /healthz and a test.",
            Some("src/health.rs"),
        );
        messages.extend(turn("Now document it.", "Documented in the README.", None));
        let text = narrative(None, &messages, &HarnessPatterns::default(), "no upstream");
        assert_eq!(
            text,
            "Written by compactd without a model (no upstream).\n\
             - Add a health check. → Added /healthz and a test. (files: health.rs)\n\
             - Now document it. → Documented in the README."
        );
    }

    #[test]
    fn harness_text_starts_no_line_and_a_mid_run_delta_continues() {
        let messages = vec![
            Message::new(Role::User, "<system-reminder>todo list empty</system-reminder>"),
            Message::new(Role::Assistant, "Tests pass now."),
        ];
        let text = narrative(
            Some("Written by compactd without a model (x).\n- Old request → done"),
            &messages,
            &HarnessPatterns::default(),
            "x",
        );
        assert_eq!(
            text,
            "Written by compactd without a model (x).\n- Old request → done\n- (continuing) → Tests pass now."
        );
    }

    #[test]
    fn a_prose_anchor_is_carried_as_one_line() {
        let text = narrative(
            Some("The model wrote this. It decided X."),
            &[],
            &HarnessPatterns::default(),
            "budget",
        );
        assert!(
            text.ends_with("- Before: The model wrote this. It decided X."),
            "{text}"
        );
    }

    #[test]
    fn a_merged_anchor_keeps_its_prose_as_one_line_and_its_lines() {
        let anchor = crate::summary::write::narrative::merged(
            "The model wrote this. It decided X.",
            &["- Add a test. → Added.".to_owned()],
        );
        let text = narrative(Some(&anchor), &[], &HarnessPatterns::default(), "budget");
        assert_eq!(
            text,
            "Written by compactd without a model (budget).\n- Before: The model wrote this. It decided X.\n- Add a test. → Added."
        );
    }

    #[test]
    fn long_requests_and_conclusions_are_cut_at_sentence_boundaries() {
        let request = format!(
            "Bump the client to v0.1.1 and refresh the plan template. {}",
            "Also more. ".repeat(40)
        );
        let answer = "Perfect! The retry backoff in src/billing/retry.rs is now 774ms. It was 10ms.";
        let text = narrative(None, &turn(&request, answer, None), &HarnessPatterns::default(), "x");
        let line = text.lines().nth(1).unwrap();
        assert!(
            line.starts_with("- Bump the client to v0.1.1 and refresh the plan template."),
            "{line}"
        );
        assert!(
            line.ends_with(" → The retry backoff in src/billing/retry.rs is now 774ms."),
            "the conclusion is the first sentence that says something, whole: {line}"
        );
        assert!(line.chars().count() <= REQUEST_CHARS + STEP_CHARS + 10, "{line}");
    }

    #[test]
    fn acknowledgements_and_commands_follow_the_request_they_answer() {
        let mut messages = turn("Refactor the retry loop.", "Shall I also rename it?", None);
        messages.push(Message::new(Role::User, "yes"));
        messages.push(Message::new(Role::User, "<command-name>/review</command-name>"));
        messages.push(Message::new(
            Role::User,
            "# Review\nReview the diff. Never approve your own work.",
        ));
        messages.push(Message::new(
            Role::Assistant,
            "Renamed it to backoff_loop and reviewed the diff.",
        ));
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Refactor the retry loop. [then answered: yes; ran /review] → Renamed it to backoff_loop and reviewed the diff.",
                "  · Shall I also rename it?"
            ]
        );
    }

    #[test]
    fn a_template_is_never_quoted_as_asked_and_a_loops_prompt_is_one_line() {
        let template = "---\ndescription: Create or update the feature specification.\n---\n\n\
                        The user input to you can be provided directly by the agent or as a command argument.\n\n\
                        User input:\n\n$ARGUMENTS\n\n## Outline\n\nThe text the user typed after `/specify` is the feature description. \
                        Run the script, then write the specification to SPEC_FILE using the template.";
        let mut messages = turn("Plan the photo album app.", "Planned it in three phases.", None);
        messages.extend(turn(template, "Wrote specs/001/spec.md.", None));
        let prompt = "Read TODO.md, pick the next open item, implement it, run the tests, tick it off.";
        for round in 1..=3 {
            messages.extend(turn(prompt, &format!("Ticked off item {round}."), None));
        }
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Plan the photo album app. → Wrote specs/001/spec.md.",
                "  · Planned it in three phases.",
                "- Read TODO.md, pick the next open item, implement it, run the tests, tick it off. [then sent it again 2 times] → Ticked off item 3.",
                "  · Ticked off item 1.",
                "  · Ticked off item 2.",
            ]
        );
    }

    #[test]
    fn no_line_starts_inside_a_word_of_a_swedish_russian_or_japanese_request() {
        for (request, tail) in [
            (
                "Skriv ett test som visar att kontrollen i pipelinen stoppar en röd gren, och uppdatera dokumentationen i docs/ci.md \
                 så att alla i teamet förstår varför vi gör så här. Den här grenen få\nr inte merges innan alla tester är gröna.",
                "r inte",
            ),
            (
                "Напиши тест, который показывает, что проверка в конвейере останавливает красную ветку, и обнови документацию \
                 в docs/ci.md, чтобы всей команде было понятно, зачем это нужно. Эту ветку нель\nзя сливать до зелёного CI.",
                "зя",
            ),
            (
                "赤いブランチがパイプラインで確実に止まることを示す統合テストを書いて、その結果をチーム全員が確認できるように、\
                 docs/ci.md のドキュメントも最新の手順に合わせて丁寧に更新してください。\
                 背景や理由もできるだけ詳しく、新しく入ったメンバーでも迷わずに理解できるように、具体的な例を挙げながら書いてください。\
                 レビューの観点や、失敗したときの対処方法、ロールバックの手順、関係するチームへの連絡の方法についても、それぞれ短くまとめておいてください。\
                 このブランチはすべてのテストが通るまで絶対にマー\nジしないでください。",
                "ジし",
            ),
        ] {
            let text = narrative(None, &turn(request, "Done.", None), &HarnessPatterns::default(), "x");
            for line in text.lines() {
                let said = line.trim_start_matches([' ', '-', '·']).trim_start_matches("asked: ");
                assert!(!said.starts_with(tail), "{line:?} starts inside a word:\n{text}");
            }
        }
    }

    #[test]
    fn the_work_between_a_request_and_its_conclusion_is_kept_step_by_step() {
        let messages = vec![
            Message::new(Role::User, "Implement spotter-gqc."),
            Message::new(Role::Assistant, "Let me look."),
            Message::new(
                Role::Assistant,
                "The generated migration uses ALTER TABLE, which SQLite does not support. I'll rewrite it as a table copy, since SQLite cannot alter a column. Then the rest.",
            ),
            call("1", "mix test"),
            result("1", "Exit code 2\n** (CompileError) lib/a.ex:3: undefined function x/0"),
            call("2", "git commit -m 'gqc.1'"),
            result("2", "[spotter-gqc 99b497c] gqc.1\n 3 files changed"),
            Message::new(Role::Assistant, "All green. Closed gqc.1 and moved on to gqc.2."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Implement spotter-gqc. → Closed gqc.1 and moved on to gqc.2.",
                "  · The generated migration uses ALTER TABLE, which SQLite does not support. I'll rewrite it as a table copy, since SQLite cannot alter a column.",
                "  · `mix test` failed: ** (CompileError) lib/a.ex:3: undefined function x/0",
                "  · `git commit -m 'gqc.1'` → [spotter-gqc 99b497c] gqc.1",
            ]
        );
    }

    #[test]
    fn a_look_that_found_nothing_a_call_never_run_and_a_retried_failure_say_no_more_than_they_must() {
        let messages = vec![
            Message::new(Role::User, "Plan phase 12."),
            call("1", "ls .planning/phases/12-mfa/*-PLAN.md"),
            result(
                "1",
                "Exit code 1\n(eval):1: no matches found: .planning/phases/12-mfa/*-PLAN.md",
            ),
            call("2", "git log --oneline main"),
            result("2", "<tool_use_error>Sibling tool call errored</tool_use_error>"),
            call("6", "rg -n mfa src/ | head -20"),
            result("6", "(Bash completed with no output)"),
            call("5", "jq . package.json"),
            result(
                "5",
                "Exit code 5\nparse error: Invalid numeric literal at line 1, column 4",
            ),
            call("3", "cargo build"),
            result(
                "3",
                "Exit code 101\nerror[E0433]: failed to resolve: use of unresolved module `iced`",
            ),
            call("4", "cargo build"),
            result(
                "4",
                "Exit code 101\nerror[E0425]: cannot find value `mfa` in this scope",
            ),
            Message::new(
                Role::Assistant,
                "Phase 12 has no plans yet. 계획 파일을 작성하겠습니다.",
            ),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Plan phase 12. → Phase 12 has no plans yet.",
                "  · `jq . package.json` failed: parse error: Invalid numeric literal at line 1, column 4",
                "  · `cargo build` failed 2 times, last: error[E0425]: cannot find value `mfa` in this scope",
                "  · next: 계획 파일을 작성하겠습니다.",
            ]
        );
    }

    #[test]
    fn commands_that_failed_with_one_error_are_one_step_said_at_the_last() {
        let busy = "cp: cannot create regular file '/home/m/.local/bin/applet': Text file busy";
        let not_found = "<tool_use_error>String to replace not found in file.</tool_use_error>";
        let edit = |id: &str, file: &str| Message {
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "Edit".into(),
                arguments: serde_json::json!({"file_path": file, "old_string": "a", "new_string": "b"}).to_string(),
            }],
            ..Message::new(Role::Assistant, "")
        };
        let messages = vec![
            Message::new(Role::User, "Install the applet."),
            call("1", "./install.sh"),
            result("1", &format!("Exit code 1\n{busy}")),
            call("2", "./install.sh"),
            result("2", &format!("Exit code 1\n{busy}")),
            call("3", "cargo build --release"),
            result("3", "Finished `release` profile"),
            edit("e1", "src/a.rs"),
            result("e1", not_found),
            edit("e2", "src/b.rs"),
            result("e2", not_found),
            call("5", "./lint.sh"),
            result("5", "Exit code 1"),
            call("6", "make dist"),
            result("6", "Exit code 1"),
            call("4", "killall applet; ./install.sh"),
            result("4", &format!("Exit code 1\n{busy}")),
            call("7", "killall applet; ./install.sh"),
            result("7", &format!("Exit code 1\n{busy}")),
            Message::new(Role::Assistant, "The old applet still holds the file."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Install the applet. → The old applet still holds the file.",
                "  · `src/a.rs` failed: String to replace not found in file.",
                "  · `src/b.rs` failed: String to replace not found in file.",
                "  · `./lint.sh` failed: exit code 1",
                "  · `make dist` failed: exit code 1",
                &format!("  · `killall applet; ./install.sh` failed 4 times, last: {busy}"),
            ]
        );
    }

    #[test]
    fn what_an_edit_defined_is_said_under_its_request() {
        let messages = vec![
            Message::new(Role::User, "Add a close action to annotations."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "e".into(),
                    name: "Edit".into(),
                    arguments: serde_json::json!({"file_path": "lib/annotation.ex", "old_string": "a", "new_string": "  update :close do\n  attribute :state, :atom\n  def close(a), do: a"}).to_string(),
                }],
                ..Message::new(Role::Assistant, "Adding the state attribute.")
            },
            Message::new(Role::Assistant, "Added the close action."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(
            text.ends_with("  · changed annotation.ex: attribute :state, def close(a)"),
            "{text}"
        );
    }

    #[test]
    fn a_reports_verdicts_and_the_rows_that_flag_a_gap_are_kept() {
        let report = "The audit is complete. Two gaps remain open.\n\n\
            ### Phase 1\n\n\
            | Area | Task | Status |\n|---|---|---|\n\
            | **Backend** | BF-1: API alias routes | ✅ Done |\n\n\
            **Phase 1: 28/28 tasks done (100%)**\n\n\
            ## Locales\n\n\
            | Service | Count | Goal met? |\n|---|---|---|\n\
            | **Telegram Bot** | **39** | ✅ yes |\n\
            | **Frontend** | **38** | ❌ no (-1) |\n\n\
            **Summary**\n";
        let messages = vec![
            Message::new(Role::User, "Audit every phase and the locales."),
            Message::new(Role::Assistant, report),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Audit every phase and the locales. → The audit is complete.",
                "  · Two gaps remain open.",
                "  · Phase 1: 28/28 tasks done (100%)",
                "  · Frontend — 38 — ❌ no (-1)",
            ]
        );
    }

    #[test]
    fn a_long_report_keeps_what_it_flags_before_the_rest() {
        let done: String = (1..=10).map(|n| format!("Phase {n} was audited in full.\n")).collect();
        let checks: String = (1..=7).map(|n| format!("| IS-{n} | ⚠️ to check |\n")).collect();
        let report = format!(
            "The audit is complete.\n{done}But the middleware loads only 2 of the 39 locales.\n\n\
             | Task | Status |\n|---|---|\n{checks}| Frontend zh-Hant | ❌ missing |\n"
        );
        let messages = vec![
            Message::new(Role::User, "Audit the phases."),
            Message::new(Role::Assistant, &report),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(
            text.contains("  · But the middleware loads only 2 of the 39 locales."),
            "{text}"
        );
        assert!(text.contains("  · Frontend zh-Hant — ❌ missing"), "{text}");
        assert!(!text.contains("Phase 10 was audited"), "{text}");
    }

    #[test]
    fn remarks_that_say_nothing_a_list_of_questions_and_a_lead_in_are_not_steps() {
        let messages = vec![
            Message::new(Role::User, "Why is the applet blank?"),
            Message::new(Role::Assistant, "You're absolutely right!"),
            call("1", "ps aux"),
            result("1", "mischa 1158115 cosmic-panel"),
            Message::new(Role::Assistant, "Logged in."),
            Message::new(
                Role::Assistant,
                "The subscription is created on every view. The blank rectangle might be because:\n1. no text yet",
            ),
            Message::new(Role::Assistant, "PostgreSQL isn't running."),
            Message::new(Role::Assistant, "I can see the screenshot!"),
            Message::new(Role::Assistant, "Tests still fail!"),
            Message::new(Role::Assistant, "Fixed the login."),
            Message::new(Role::Assistant, "결정이 명확합니다."),
            Message::new(
                Role::Assistant,
                "I moved the subscription out of view().\n\nWhat do you see now?\n- Still a blank rectangle?\n- Text like \"C:--W\"?\n- Nothing at all?",
            ),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Why is the applet blank? → I moved the subscription out of view().",
                "  · The subscription is created on every view.",
                "  · PostgreSQL isn't running.",
                "  · Tests still fail!",
                "  · Fixed the login.",
                "  · What do you see now?",
            ]
        );
    }

    #[test]
    fn a_korean_or_japanese_announcement_is_no_step_unless_it_names_or_explains() {
        let messages = vec![
            Message::new(Role::User, "v0.16.0 릴리스"),
            Message::new(Role::Assistant, "Working tree 정리부터 시작합니다."),
            Message::new(Role::Assistant, "EC decision도 기록합니다."),
            Message::new(Role::Assistant, "次に、IntersectionObserver スクリプトを作成します。"),
            Message::new(Role::Assistant, "ROADMAP에서 `py.typed` 항목을 완료 처리합니다."),
            Message::new(Role::Assistant, "Header.astro から検索ボタンを削除します。"),
            Message::new(
                Role::Assistant,
                "응답 대기 시간이 초과했으므로 자연스러운 순서대로 진행합니다.",
            ),
            Message::new(Role::Assistant, "아직 테스트를 실행하지 않습니다."),
            Message::new(Role::Assistant, "배포 전에 DB 마이그레이션을 먼저 실행해야 합니다."),
            Message::new(Role::Assistant, "이 서비스에는 Redis 연결 설정이 반드시 필요합니다."),
            Message::new(Role::Assistant, "キャッシュキーが Redis のキーと一致します。"),
            Message::new(Role::Assistant, "AboutSection のコメントも更新します。"),
            Message::new(Role::Assistant, "Task 1 완료."),
            Message::new(Role::Assistant, "진행 상태를 저장했습니다. compact를 실행합니다."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- v0.16.0 릴리스 → 진행 상태를 저장했습니다. compact를 실행합니다.",
                "  · ROADMAP에서 `py.typed` 항목을 완료 처리합니다.",
                "  · Header.astro から検索ボタンを削除します。",
                "  · 응답 대기 시간이 초과했으므로 자연스러운 순서대로 진행합니다.",
                "  · 아직 테스트를 실행하지 않습니다.",
                "  · 배포 전에 DB 마이그레이션을 먼저 실행해야 합니다.",
                "  · 이 서비스에는 Redis 연결 설정이 반드시 필요합니다.",
                "  · キャッシュキーが Redis のキーと一致します。",
                "  · Task 1 완료.",
            ]
        );
    }

    #[test]
    fn what_the_user_chose_is_said_as_the_option_not_its_number() {
        let messages = vec![
            Message::new(Role::User, "Build a power applet."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "q".into(),
                    name: "AskUserQuestion".into(),
                    arguments: r#"{"questions":[]}"#.into(),
                }],
                ..Message::new(Role::Assistant, "")
            },
            Message {
                tool_call_id: Some("q".into()),
                ..Message::new(
                    Role::Tool,
                    r#"User has answered your questions: "Applet or tray?"="COSMIC Panel Applet". You can now continue."#,
                )
            },
            Message::new(
                Role::Assistant,
                "The plan is written. Would you like me to:\n1. **Start implementing** Phase 1?\n2. Review the plan first?",
            ),
            Message::new(Role::User, "1"),
            Message::new(Role::Assistant, "Phase 1 is built."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(
            text.contains("[then answered: 1 (Start implementing Phase 1?)]"),
            "{text}"
        );
        assert!(
            text.contains("  · the user chose \"COSMIC Panel Applet\" for: Applet or tray?"),
            "{text}"
        );
    }

    #[test]
    fn a_server_started_in_the_background_is_said() {
        let messages = vec![
            Message::new(Role::User, "Start the API against the Docker host."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "b".into(),
                    name: "Bash".into(),
                    arguments: serde_json::json!({"command": "DB_HOST=192.168.133.114 pnpm --filter api dev", "run_in_background": true}).to_string(),
                }],
                ..Message::new(Role::Assistant, "")
            },
            Message {
                tool_call_id: Some("b".into()),
                ..Message::new(Role::Tool, "Command running in background with ID: b5f3e7a")
            },
            Message::new(Role::Assistant, "The API is up."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(
            text.contains("  · `DB_HOST=192.168.133.114 pnpm --filter api dev` → started in the background"),
            "{text}"
        );
    }

    #[test]
    fn an_announcement_already_carried_out_is_no_next_step_and_a_row_set_right_is_no_gap() {
        let messages = vec![
            Message::new(Role::User, "Fix the build."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "e".into(),
                    name: "Edit".into(),
                    arguments: r#"{"file_path":"Cargo.toml","old_string":"a","new_string":"b"}"#.into(),
                }],
                ..Message::new(
                    Role::Assistant,
                    "The build fails because `iced` is missing from Cargo.toml.\n\n| Check | Before | After |\n|---|---|---|\n| Build | ❌ failing | ✅ passing |\n\nLet me add it.",
                )
            },
            Message {
                tool_call_id: Some("e".into()),
                ..Message::new(Role::Tool, "The file Cargo.toml has been updated.")
            },
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(!text.contains("next:"), "{text}");
        assert!(!text.contains("❌"), "{text}");
    }

    #[test]
    fn a_script_of_labelled_checks_is_said_by_what_it_found_not_by_its_command() {
        let mut messages = vec![
            Message::new(Role::User, "Audit the locales."),
            call(
                "1",
                r#"echo "=== console.warn ===" && grep -rn console.warn src | wc -l; echo "=== Bot locales ===" && ls bot/locales | wc -l"#,
            ),
            result("1", "=== console.warn ===\n0\n=== Bot locales ===\n39"),
        ];
        messages.push(Message::new(Role::Assistant, "The bot has all 39 locales."));
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(
            text.contains("\n  · checks found: console.warn: 0; Bot locales: 39\n")
                || text.ends_with("  · checks found: console.warn: 0; Bot locales: 39"),
            "{text}"
        );
        assert!(!text.contains("grep -rn"), "{text}");
        let committed = vec![
            Message::new(Role::User, "Commit it."),
            call(
                "1",
                r#"echo "=== Status ===" && git status -s; echo "=== Commit ===" && git commit -qam 'fix: x'"#,
            ),
            result("1", "=== Status ===\n M a.rs\n=== Commit ===\n[main abc1234] fix: x"),
        ];
        let text = narrative(None, &committed, &HarnessPatterns::default(), "x");
        assert!(
            text.ends_with("→ [main abc1234] fix: x"),
            "a commit is said as one: {text}"
        );
    }

    #[test]
    fn a_commit_of_changes_keeps_two_lines_of_its_message_an_empty_one_all() {
        let commit = |flags: &str| {
            format!(
                "git commit {flags} -m \"$(cat <<'EOF'\nrefactor: minimal redesign\n\n- Remove three.js\n- Remove GSAP\n- Remove Lenis\n- Flatten the card\n- Dark mode: still to do\nEOF\n)\""
            )
        };
        let session = |command: String| {
            vec![
                Message::new(Role::User, "Commit it."),
                call("1", &command),
                result("1", "[main 5d6e7f8] refactor: minimal redesign"),
            ]
        };
        let text = narrative(None, &session(commit("")), &HarnessPatterns::default(), "x");
        assert_eq!(text.matches("commit message:").count(), 3, "{text}");
        assert!(
            text.ends_with("  · commit message: Remove GSAP\n  · commit message: Dark mode: still to do"),
            "what is left is kept: {text}"
        );
        let text = narrative(
            None,
            &session(commit("--allow-empty")),
            &HarnessPatterns::default(),
            "x",
        );
        assert_eq!(text.matches("commit message:").count(), 5, "{text}");
        let text = narrative(
            None,
            &session(commit("--allow-empty-message")),
            &HarnessPatterns::default(),
            "x",
        );
        assert_eq!(
            text.matches("commit message:").count(),
            3,
            "not an empty commit: {text}"
        );
    }

    #[test]
    fn a_commits_message_says_what_the_agent_wrote_of_the_work() {
        let messages = vec![
            Message::new(Role::User, "Save where we are before compacting."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "1".into(),
                    name: "Bash".into(),
                    arguments: serde_json::json!({"command": "git commit --allow-empty -m \"$(cat <<'EOF'\nTODOs: v0.16.0\n\nTask 4 (pending): release, blocked by task 3\nEOF\n)\""}).to_string(),
                }],
                ..Message::new(Role::Assistant, "")
            },
            Message {
                tool_call_id: Some("1".into()),
                ..Message::new(Role::Tool, "[main 302b107] TODOs: v0.16.0")
            },
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert!(
            text.ends_with("  · commit message: Task 4 (pending): release, blocked by task 3"),
            "{text}"
        );
    }

    #[test]
    fn the_plan_put_to_the_user_is_kept_under_its_request() {
        let plan = "# Plan: initial attribution\n\n## Goal\n\nCalculate line-level attribution at commit time by diffing the checkpoint tree against HEAD.\n\n```json\n{\"agent_lines\": 142}\n```\n\n## Files\n- `checkpoint.go`: add the InitialAttribution struct to CommittedMetadata.";
        let messages = vec![
            Message::new(Role::User, "Plan the attribution."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "p".into(),
                    name: "ExitPlanMode".into(),
                    arguments: serde_json::json!({ "plan": plan }).to_string(),
                }],
                ..Message::new(Role::Assistant, "Here is the plan.")
            },
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(2).collect::<Vec<_>>(),
            [
                "  · plan: Calculate line-level attribution at commit time by diffing the checkpoint tree against HEAD.",
                "  · plan: `checkpoint.go`: add the InitialAttribution struct to CommittedMetadata.",
            ],
            "headings and code say nothing alone: {text}"
        );
    }

    #[test]
    fn the_rest_of_a_request_is_quoted_under_it_without_what_was_pasted() {
        let request = "let's add a few things to the implementation:\n\n - make sure to add an AGENTS.md file with all the engineering decisions we have made and the constraints we have defined\n - make sure to add debugging logs that can be turned off and on with an env var\n - Postgres\n - `src/scripts/smooth-scroll.ts`\n - **File:** `src/layouts/Layout.astro`\n\n```\nnever paste this\n```\n[Tech Stack](#8-tech-stack)";
        let text = narrative(
            None,
            &turn(request, "Added both to the plan.", None),
            &HarnessPatterns::default(),
            "x",
        );
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- let's add a few things to the implementation: make sure to add an AGENTS.md file with all the engineering decisions we have made and the constraints we have defined → Added both to the plan.",
                "  · asked: make sure to add debugging logs that can be turned off and on with an env var",
                "  · asked: Postgres",
            ]
        );
    }

    #[test]
    fn an_issue_the_agent_read_is_said_under_its_request() {
        let messages = vec![
            Message::new(Role::User, "Work on bead spotter-fum."),
            Message {
                tool_calls: vec![ToolCall {
                    id: "b".into(),
                    name: "Bash".into(),
                    arguments: serde_json::json!({"command": "bd show spotter-fum"}).to_string(),
                }],
                ..Message::new(Role::Assistant, "")
            },
            Message {
                tool_call_id: Some("b".into()),
                ..Message::new(
                    Role::Tool,
                    "○ spotter-fum [EPIC] · Improve transcript readability\n\n## No-gos\n- No database schema migration.\n- No scope expansion to `PaneViewLive`.\n",
                )
            },
            Message::new(Role::Assistant, "Started on spotter-fum.1."),
        ];
        let text = narrative(None, &messages, &HarnessPatterns::default(), "x");
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            [
                "- Work on bead spotter-fum. → Started on spotter-fum.1.",
                "  · read spotter-fum [EPIC] · Improve transcript readability — No-gos: No database schema migration; No scope expansion to `PaneViewLive`",
            ]
        );
    }

    #[test]
    fn a_long_transcripts_summary_is_a_tenth_and_a_short_ones_takes_the_budget() {
        assert_eq!(max_tokens(20_000, 4_000), 2_000);
        assert_eq!(max_tokens(250_000, 4_000), 4_000);
        assert_eq!(max_tokens(3_000, 4_000), 4_000, "items fit beside a shorter narrative");
        assert_eq!(max_tokens(100, 1_500), 1_500);
    }
}
