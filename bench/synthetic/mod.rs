//! Synthetic agent sessions shaped like real ones (bench/fidelity, and the
//! replay tests): Claude Code session JSONL and aider chat histories with
//! what real sessions hold — harness text in the user role, `ls` floods,
//! HTML and SVG markup in tool output, rules in nine languages, long
//! autonomous tool runs that fill the window mid-turn, a rule said just
//! before such a run — and the ground truth of what was planted, so what a
//! summary kept is measured without compactd's own extractor.

#![allow(dead_code)]

use serde::Serialize;
use serde_json::{Value, json};

/// What a session holds that a summary must keep, as the generator planted it.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Truth {
    pub latest_request: String,
    pub prohibitions: Vec<String>,
    pub paths: Vec<String>,
    pub urls: Vec<String>,
    pub ids: Vec<String>,
    pub commands: Vec<String>,
    pub quantities: Vec<String>,
    pub files_changed: Vec<String>,
}

impl Truth {
    /// Each item once, where it was first planted.
    fn deduplicated(mut self) -> Self {
        for list in [
            &mut self.prohibitions,
            &mut self.paths,
            &mut self.urls,
            &mut self.ids,
            &mut self.commands,
            &mut self.quantities,
            &mut self.files_changed,
        ] {
            let mut seen = std::collections::HashSet::new();
            list.retain(|item| seen.insert(item.clone()));
        }
        self
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub turns: usize,
    pub seed: u64,
    /// Every this many turns, a long autonomous run of tool calls.
    pub long_run_every: usize,
    /// Tool rounds in a long run, and the characters of each round's output.
    pub long_run_rounds: usize,
    pub long_run_output_chars: usize,
}

pub const RULES: [&str; 18] = [
    "Never force-push to main.",
    "不要修改 migrations 目录里的文件。",
    "Никогда не пушь в main.",
    "Nunca borres la tabla audit_log.",
    "Não altere o arquivo .env de produção.",
    "Bitte niemals die Produktionsdatenbank löschen.",
    "Ne touche jamais au fichier Cargo.lock.",
    "本番環境の設定には触らないで。",
    "프로덕션 설정은 건드리지 마세요.",
    "Do not drop the audit_log table; it is evidence in case INC-4471.",
    "别动 CI 的配置。",
    "Не трогай конфиг деплоя.",
    "No toques los secretos del clúster.",
    "Nunca faça deploy na sexta-feira.",
    "Nicht die öffentliche API umbenennen.",
    "N'utilise pas la base de production pour les tests.",
    "main に直接コミットしてはいけない。",
    "절대 로그를 삭제하지 마.",
];

const AREAS: [&str; 8] = [
    "billing",
    "auth",
    "search",
    "ingest",
    "reports",
    "api",
    "storage",
    "scheduler",
];
const NAMES: [&str; 10] = [
    "handler", "model", "queue", "cache", "client", "router", "worker", "schema", "retry", "index",
];
const CRATES: [&str; 5] = ["core", "api", "cli", "store", "jobs"];

struct Writer {
    records: Vec<Value>,
    next_id: usize,
    session: String,
}

impl Writer {
    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}_{:06}", self.next_id)
    }

    fn stamp(&self) -> String {
        format!(
            "2026-03-01T{:02}:{:02}:{:02}.000Z",
            (self.next_id / 3600) % 24,
            (self.next_id / 60) % 60,
            self.next_id % 60
        )
    }

    fn user(&mut self, content: Value, meta: bool) {
        let uuid = self.id("u");
        let mut record = json!({"type": "user", "sessionId": self.session, "uuid": uuid, "timestamp": self.stamp(),
                                "userType": "external", "message": {"role": "user", "content": content}});
        if meta {
            record["isMeta"] = json!(true);
        }
        self.records.push(record);
    }

    /// One assistant message, streamed as Claude Code writes it: a record a block.
    fn assistant(&mut self, text: &str, calls: &[(String, &str, Value)]) {
        let message_id = self.id("msg");
        let mut blocks = Vec::new();
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text}));
        }
        for (id, name, input) in calls {
            blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
        }
        for block in blocks {
            let uuid = self.id("a");
            self.records.push(
                json!({"type": "assistant", "sessionId": self.session, "uuid": uuid, "timestamp": self.stamp(),
                                     "message": {"id": message_id, "role": "assistant", "content": [block]}}),
            );
        }
    }

    fn results(&mut self, outputs: &[(String, String)]) {
        let content: Vec<Value> = outputs
            .iter()
            .map(|(id, text)| json!({"type": "tool_result", "tool_use_id": id, "content": text}))
            .collect();
        self.user(json!(content), false);
    }

    fn jsonl(&self) -> String {
        self.records.iter().map(|r| format!("{r}\n")).collect()
    }
}

fn code_listing(rng: &mut fastrand::Rng, path: &str, lines: usize) -> String {
    let mut out = String::new();
    for n in 1..=lines {
        let text = match rng.usize(0..6) {
            0 => format!("fn step_{n}(input: &str) -> Result<u64, Error> {{"),
            1 => "    let parsed = input.trim().parse::<u64>()?;".to_owned(),
            2 => format!("    // see {path} line {n}"),
            3 => "    Ok(parsed.saturating_mul(2))".to_owned(),
            4 => "}".to_owned(),
            _ => format!("const LIMIT_{n}: usize = {};", rng.usize(10..5000)),
        };
        out.push_str(&format!("{n:>6}→{text}\n"));
    }
    out
}

fn markup(rng: &mut fastrand::Rng) -> String {
    format!(
        "<div class=\"grid grid-cols-3 gap-4 text-gray-500\"><span class=\"badge\">{}</span></div>\n\
         <svg viewBox=\"0 0 24 24\"><path d=\"M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2z\"/></svg>\n\
         <section id=\"block-{}\"><p>Rendered {} rows</p></section>",
        rng.usize(100..2000),
        rng.usize(1000..9999),
        rng.usize(1..99)
    )
}

fn flood(rng: &mut fastrand::Rng, entries: usize) -> String {
    (0..entries)
        .map(|i| {
            format!(
                "node_modules/pkg-{}/dist/chunk-{i}.{}.js\n",
                rng.usize(0..500),
                rng.usize(1000..9999)
            )
        })
        .collect()
}

/// A Claude Code session and what it planted.
pub fn claude_code_session(spec: Spec) -> (String, Truth) {
    let mut rng = fastrand::Rng::with_seed(spec.seed);
    let mut truth = Truth::default();
    let mut w = Writer {
        records: vec![json!({"type": "summary", "summary": "Synthetic session", "leafUuid": "x"})],
        next_id: 0,
        session: format!("synthetic-{}", spec.seed),
    };
    let mut rules = RULES.iter().cycle();
    for turn in 0..spec.turns {
        // People come back to the same files: a project of 80, named again and again.
        let area = AREAS[rng.usize(0..AREAS.len())];
        let name = NAMES[rng.usize(0..NAMES.len())];
        let path = format!("src/{area}/{name}.rs");
        let mut request = format!("Please update {path} so the {name} handles empty input.");
        truth.paths.push(path.clone());
        if turn % 6 == 0 {
            let config = format!("config/{area}.toml");
            request.push_str(&format!(" Check {config} too."));
            truth.paths.push(config);
        }
        if turn % 10 == 0 {
            let ticket = format!("PROJ-{}", 100 + turn);
            request.push_str(&format!(" This is for {ticket}."));
            truth.ids.push(ticket);
        }
        if turn % 15 == 0 {
            let url = format!("https://ci.example.com/runs/{}", 80_000 + turn * 13);
            request.push_str(&format!(" The failing run is {url}."));
            truth.urls.push(url);
        }
        if turn % 20 == 0 {
            // A letter first and a digit last: a hash, not a number.
            let hash = format!("{:07x}{}", rng.u32(0xa00_0000..0xfff_ffff), turn % 10);
            request.push_str(&format!(" It regressed in commit {hash}."));
            truth.ids.push(hash);
        }
        if turn % 12 == 0 {
            let command = format!("cargo test -p {} --release", CRATES[turn % CRATES.len()]);
            request.push_str(&format!(" Run `{command}` afterwards."));
            truth.commands.push(command);
        }
        if turn % 8 == 0 {
            let quantity = match turn % 3 {
                0 => format!("{}ms", 100 + turn),
                1 => format!("port {}", 5000 + turn),
                _ => format!("{},{:03} requests", 10 + turn % 90, turn % 1000),
            };
            request.push_str(&format!(" Keep it under {quantity}."));
            truth.quantities.push(quantity);
        }
        let long_run = spec.long_run_every > 0 && turn % spec.long_run_every == spec.long_run_every - 1;
        // A rule, sometimes just before a long run fills the window.
        if turn % 23 == 5 || long_run {
            let rule = rules.next().copied().unwrap_or("Never force-push to main.");
            request.push_str(&format!("\n{rule}"));
            if !truth.prohibitions.iter().any(|r| r == rule) {
                truth.prohibitions.push(rule.to_owned());
            }
        }
        if turn % 30 == 29 {
            // Claude Code's own text in the user role.
            w.user(json!("Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to."), true);
            w.user(json!("<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>"), false);
            w.user(
                json!("<local-command-stdout>Total cost: $4.21\nTotal duration (API): 12m 3.2s</local-command-stdout>"),
                false,
            );
        }
        let reminder = "<system-reminder>\nThe TodoWrite tool hasn't been used recently. Never mention this reminder to the user.\n</system-reminder>";
        let content = if turn % 3 == 0 {
            json!([{"type": "text", "text": request}, {"type": "text", "text": reminder}])
        } else {
            json!(request)
        };
        w.user(content, false);
        truth.latest_request = request.clone();
        // The agent reads, lists, edits and tests.
        let read = w.id("toolu");
        let listing = w.id("toolu");
        w.assistant(
            &format!("Let me look at {path} first."),
            &[
                (read.clone(), "Read", json!({"file_path": format!("/repo/{path}")})),
                (
                    listing.clone(),
                    "Bash",
                    json!({"command": format!("ls -R src/{area}"), "description": "List files"}),
                ),
            ],
        );
        let listed = if turn % 25 == 0 {
            flood(&mut rng, 200)
        } else {
            format!("src/{area}/mod.rs\n{path}\n")
        };
        let lines = 10 + rng.usize(0..20);
        let mut read_out = code_listing(&mut rng, &path, lines);
        if turn % 8 == 0 {
            read_out.push_str(&markup(&mut rng));
        }
        w.results(&[(read, read_out), (listing, listed)]);
        let edited = format!("/repo/{path}");
        let edit = w.id("toolu");
        let test = w.id("toolu");
        w.assistant(
            "I'll make the change and run the tests.",
            &[
                (
                    edit.clone(),
                    "Edit",
                    json!({"file_path": edited, "old_string": "Ok(parsed)", "new_string": "Ok(parsed.max(1))"}),
                ),
                (
                    test.clone(),
                    "Bash",
                    json!({"command": format!("cargo test -p {}", CRATES[turn % CRATES.len()])}),
                ),
            ],
        );
        truth.files_changed.push(edited.clone());
        w.results(&[
            (edit, format!("The file {edited} has been updated.")),
            (
                test,
                format!(
                    "running {} tests\ntest result: ok. {} passed; 0 failed; finished in {}.{:02}s",
                    40 + turn % 9,
                    40 + turn % 9,
                    turn % 4,
                    turn % 100
                ),
            ),
        ]);
        if long_run {
            for round in 0..spec.long_run_rounds {
                let call = w.id("toolu");
                w.assistant(
                    "",
                    &[(
                        call.clone(),
                        "Bash",
                        json!({"command": format!("cat logs/{area}/run_{round}.log")}),
                    )],
                );
                let mut log = String::new();
                while log.len() < spec.long_run_output_chars {
                    log.push_str(&format!(
                        "{} INFO {area} worker={} step={} waited {}ms for lock\n",
                        round,
                        rng.usize(1..9),
                        rng.usize(1..999),
                        rng.usize(1..900)
                    ));
                }
                w.results(&[(call, log)]);
            }
            let written = format!("/repo/docs/{area}/runbook_{turn}.md");
            let write = w.id("toolu");
            w.assistant(
                "",
                &[(
                    write.clone(),
                    "Write",
                    json!({"file_path": written, "content": "# Runbook\n\nSteps…"}),
                )],
            );
            w.results(&[(write, format!("File created successfully at: {written}"))]);
            truth.files_changed.push(written);
        }
        w.assistant(
            &format!("Done: {path} now handles empty input and the tests pass."),
            &[],
        );
    }
    (w.jsonl(), truth.deduplicated())
}

/// An aider chat history in Russian and English, and what it planted.
pub fn aider_session(turns: usize, seed: u64) -> (String, Truth) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut truth = Truth::default();
    let mut out = String::from(
        "# aider chat started at 2026-03-01 10:00:00\n\n> Aider v0.86.1\n> Main model: sonnet with diff edit format\n\n",
    );
    let rules = [
        "Никогда не пушь в main.",
        "Don't touch the CI config.",
        "Не меняй схему базы без миграции.",
        "Never commit secrets to the repo.",
    ];
    for turn in 0..turns {
        let area = AREAS[rng.usize(0..AREAS.len())];
        let module = ["views", "forms", "models"][rng.usize(0..3)];
        let path = format!("app/{area}/{module}.py");
        let request = if turn % 2 == 0 {
            format!("Исправь ошибку в {path}: пустой запрос падает с 500.")
        } else {
            format!("Add a test for {path} covering the empty request.")
        };
        truth.paths.push(path.clone());
        out.push_str(&format!("#### {request}\n"));
        if turn % 9 == 3 {
            let rule = rules[(turn / 9) % rules.len()];
            out.push_str(&format!("#### {rule}\n"));
            if !truth.prohibitions.iter().any(|r| r == rule) {
                truth.prohibitions.push(rule.to_owned());
            }
        }
        if turn % 5 == 0 {
            let quantity = format!("{}ms", 200 + turn);
            out.push_str(&format!("#### Ответ должен быть быстрее {quantity}.\n"));
            truth.quantities.push(quantity);
        }
        out.push('\n');
        out.push_str(&format!("Понял. Вот исправление:\n\n{path}\n```python\n<<<<<<< SEARCH\n    return handle(request)\n=======\n    if not request.body:\n        return HttpResponse(status=400)\n    return handle(request)\n>>>>>>> REPLACE\n```\n\n"));
        out.push_str(&format!(
            "> Tokens: {:.1}k sent, {} received.\n> Applied edit to {path}\n> Commit {:07x} fix: empty request\n\n",
            rng.f64() * 9.0 + 1.0,
            rng.usize(100..900),
            rng.u32(0x100_0000..0xfff_ffff)
        ));
        truth.files_changed.push(path);
        truth.latest_request = request;
    }
    (out, truth.deduplicated())
}
