//! Sentences that only announce what the agent will look at or do next
//! ("Let me check the logs.", "현재 상태를 파악하겠습니다.", "ログを確認します。"),
//! in the languages agents answer in: a summary's lines say what came of the
//! work, and an announcement says nothing of it.

use std::sync::LazyLock;

use regex::Regex;

/// Announcements that open with their verb: English, and the other languages
/// written with spaces or led by a pronoun (Chinese).
static OPENS_AS_ANNOUNCEMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // A word of assent before it ("Good point, let me…", "Right — let me…").
        r"(?i)\A(?:(?:good point|good catch|got it|right|sure|understood|alright|ok(?:ay)?|great|perfect|thanks)",
        r"\s*[,.!—–-]+\s*)?",
        r"(?:now,?\s+|next,?\s+|first,?\s+|ok(?:ay)?,?\s+|then,?\s+)?",
        r"(?:(?:let me|let's|i'll|i will|i'm going to|i need to|i should|i can now|time to|going to)\b",
        // Russian, Spanish, Portuguese, German, French.
        r"|(?:теперь\s+|сначала\s+|сейчас\s+|далее\s+)?(?:давайте|давай|проверю|посмотрю|изучу|прочитаю|проверим|посмотрим|изучим|запущу|начну с)(?:\s|[.,!]|\z)",
        r"|(?:ahora\s+|primero\s+)?(?:voy a|vamos a|déjame|dejame|permíteme)\b",
        r"|(?:agora\s+|primeiro\s+)?(?:vou|vamos|deixe-me|deixa eu)\s",
        r"|(?:jetzt\s+|zuerst\s+)?(?:lass mich|lassen sie mich|ich werde|ich schaue|ich prüfe)\b",
        r"|(?:maintenant,?\s+|d'abord,?\s+)?(?:je vais|laissez-moi|laisse-moi|voyons)\b",
        // Chinese: "让我…", "我来…", "接下来…".
        r"|(?:现在|首先|然后)?(?:让我|我来|我先|我会|我需要|接下来|下面我))",
    ))
    .expect("a valid pattern")
});

/// Announcements that close with their verb: Korean's "…하겠습니다" (I will)
/// and the present of looking ("…확인합니다"), Japanese's "…を確認します".
static CLOSES_AS_ANNOUNCEMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?:(?:하|보|드리|해 보)겠습니다|(?:확인|파악|조사|검토|분석|탐색|살펴|읽|찾|알아)(?:합니다|봅니다|습니다|보겠습니다)",
        r"|(?:確認|調査|検索|チェック|把握|参照|調べ|見て|読んで|探して|見)(?:します|しましょう|してみます|していきます|みます|いきます|ます))",
        r"[.。!！]?\z",
    ))
    .expect("a valid pattern")
});

/// How long an announcement that closes with its verb may be: a longer
/// sentence carries a finding or a decision before it.
const CLOSING_ANNOUNCEMENT_CHARS: usize = 60;

/// A Korean or Japanese sentence in the polite form of what the agent does
/// now or will ("Working tree 정리부터 시작합니다.", "次に、…スクリプトを作成します。"),
/// which English says with "Let me…".
static DOING_WORK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // Korean: a verb of the work in the present ("…을 추가합니다"), or
        // anything in the future ("…세우겠습니다"); not what must be done
        // ("실행해야 합니다") nor what is ("필요합니다", "동일합니다").
        r"(?:(?:기록|시작|진행|확인|작성|실행|수정|정리|처리|추가|분류|삭제|제거|변경|업데이트|생성|구현|검토|분석|조사|파악|적용|반영|커밋|설치|빌드|테스트)합니다",
        r"|[^야]\s?겠습니다",
        // Japanese: a verb of the work in the polite present.
        r"|(?:作成|確認|実行|修正|削除|除去|追加|更新|変更|処理|実装|変換|統一|開始|調査|検索|記録|コミット|インストール|ビルド|テスト)(?:します|しましょう|していきます)",
        r"|(?:始め|進め|行い)ます)[.。!！]?\z",
    ))
    .expect("a valid pattern")
});

/// Whether a Korean or Japanese sentence says, in the polite form, the work
/// the agent turns to now or will ("EC decision도 기록합니다.",
/// "AboutSection のコメントも更新します。"). Unlike [`is_announcement`], the
/// sentence may say what an edit did: the caller keeps it when it names
/// something.
pub(crate) fn announces_work(sentence: &str) -> bool {
    DOING_WORK.is_match(sentence.trim())
}

/// A short note that work is under way or waited for ("All 4 agents are
/// still working.", "Two agents done, waiting for the remaining two..."):
/// what they found is said when they are done.
static PROGRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:still (?:working|running|waiting|going|in progress)|waiting (?:for|on) (?:the (?:remaining|rest|other|last)|\w+ (?:agents?|workers?|jobs?|builds?))",
        r"|(?:agents?|workers?) (?:are |is )?(?:done|completed|finished|running)\b)",
    ))
    .expect("a valid pattern")
});

/// How many words a progress note has at most.
const PROGRESS_WORDS: usize = 10;

/// A sentence that only announces what comes next ("Let me check the
/// logs."), or notes that work is still under way.
pub(crate) fn is_announcement(sentence: &str) -> bool {
    let sentence = sentence.trim();
    OPENS_AS_ANNOUNCEMENT.is_match(sentence)
        || sentence.chars().count() <= CLOSING_ANNOUNCEMENT_CHARS && CLOSES_AS_ANNOUNCEMENT.is_match(sentence)
        || is_progress_note(sentence)
}

fn is_progress_note(sentence: &str) -> bool {
    sentence.split_whitespace().count() <= PROGRESS_WORDS && PROGRESS.is_match(sentence)
}

/// An invitation to the user ("Let me know if…"): no step of the agent's.
static INVITATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\A(?:(?:sure|great|ok(?:ay)?|right|perfect|alright)\s*[,.!—–-]+\s*)?",
        r"(?:let me know|let us know|tell me|feel free|lass(?:en sie)? mich wissen|дайте знать|déjame saber|avísame)\b",
        r"|말씀해 주시면|알려 주시면|알려주시면|お知らせください|告诉我",
    ))
    .expect("a valid pattern")
});

/// An announcement of the agent's own next step (not "Let me know if…").
pub(crate) fn is_next_step(sentence: &str) -> bool {
    is_announcement(sentence) && !is_progress_note(sentence.trim()) && !INVITATION.is_match(sentence.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announcements_in_the_languages_agents_answer_in() {
        for sentence in [
            "Let me check the logs.",
            "Now, I'll run the tests.",
            "Good point, let me check and clean up.",
            "Right — let me look at the config.",
            "현재 상태를 파악하겠습니다.",
            "최근 retro와 미처리 항목을 추가로 확인합니다.",
            "이제 untracked 파일이 정리되었는지 확인합니다.",
            "ログファイルを確認します。",
            "まず設定を見てみます。",
            "让我检查一下配置文件。",
            "接下来运行测试。",
            "Давайте проверим логи.",
            "Сначала посмотрю конфигурацию.",
            "Voy a revisar los registros.",
            "Lass mich die Logs prüfen.",
            "Je vais vérifier les journaux.",
            "Vou verificar os logs.",
            "All 4 agents are still working.",
            "Two agents done, waiting for the remaining two...",
            "Three agents done.",
            "Telegram bot agent completed.",
        ] {
            assert!(is_announcement(sentence), "{sentence}");
        }
    }

    #[test]
    fn findings_and_decisions_are_no_announcements() {
        for sentence in [
            "The root cause is a missing index on `turns`.",
            "Task 1 완료.",
            "`.entire/`, `.opencode/`, `.release-loop/` 모두 gitignore 대상이 아닙니다.",
            "현재 상태를 정리했습니다.",
            "ROADMAP の該当項目は完了済みでした。",
            "配置文件里缺少超时设置。",
            "Логи показывают ошибку таймаута.",
            "Letting it run overnight fixed it.",
            "원인은 아직 모르겠습니다.",
            // Said just before the edit that does it, it says what the edit did.
            "ROADMAP에서 `py.typed` 항목을 완료 처리합니다.",
            "global.css からダークモード変数も削除します。",
            "정리가 필요합니다.",
            "17ファイルにダークモード参照があります。",
            "AboutSection は about.astro のみから使用されています。",
            "我将超时改为了30秒。",
            "Tests pass; waiting for your go-ahead to merge.",
            "Phase 1: 28/28 tasks done (100%)",
            "Phase 3 done.",
            "The retry job is still running out of memory on every node after the 774ms backoff change landed.",
            "Waiting for the user's answer was the blocker, so cleanup went first.",
            "Right, the test fails on the second attempt.",
            // Long: it says what was found before its closing verb.
            "문제 맥락을 다시 확인합니다: feature worktree에서 만든 EC decision이 worktree 제거 시 main DB에 없어서 `ec decision show`가 실패했습니다.",
        ] {
            assert!(!is_announcement(sentence), "{sentence}");
        }
    }

    #[test]
    fn an_invitation_to_the_user_is_no_next_step() {
        assert!(is_next_step("I'll continue with task 3 after the compaction."));
        assert!(is_next_step("/compact 실행 후 task 3을 이어서 진행하겠습니다."));
        assert!(!is_next_step("Let me know if you want the old flag back."));
        assert!(!is_next_step("Sure, let me know if you want the old flag."));
        assert!(!is_next_step("필요하시면 말씀해 주시면 진행하겠습니다."));
        assert!(!is_next_step("Three agents done, waiting for the last."));
    }
}
