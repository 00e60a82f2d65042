//! What of the agent's prose says little or flags something: a remark a
//! step leaves out ("Logged in.", "You're absolutely right!"), a question,
//! and a sentence that flags a gap, which a report keeps first.

use std::sync::LazyLock;

use regex::Regex;

use crate::summary::read::sentences::{announces_work, sentences};

/// A step of the agent's prose too short to tell a reader anything of its
/// own: an exclamation ("You're absolutely right!", "I can see the
/// screenshot!") or a remark of three words ("Logged in.", "결정이 명확합니다.")
/// that names nothing, counts nothing and flags nothing. Calls, commits and
/// choices are never such a step.
pub(super) fn says_little(step: &str) -> bool {
    let words = step.split_whitespace().count();
    let names_or_counts = NAMED.is_match(step);
    let exclaims = step.trim_end_matches(['*', ' ']).ends_with('!');
    // Korean says a whole sentence in three words, and Chinese and Japanese
    // without spaces in one: short in characters too.
    let written_in_han = step
        .chars()
        .any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'));
    let remark = if written_in_han && !step.trim().contains(char::is_whitespace) {
        step.chars().count() <= HAN_REMARK_CHARS
    } else {
        words <= 3 && step.chars().count() <= REMARK_CHARS
    };
    !names_or_counts && !FLAGS.is_match(step) && !DID.is_match(step) && ((exclaims && words <= 5) || remark)
}

/// A name of a file, a span of code or a value in a sentence (`global.css`,
/// `` `dark:` ``, `774ms`).
static NAMED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"[`/_=@#"0-9]|\w\.\w"#).expect("a valid pattern"));

/// Whether a step only announces, in Korean's or Japanese's polite form,
/// what the agent turns to, and names, counts and flags nothing ("EC
/// decision도 기록합니다."). Said of a named thing ("ROADMAP에서 `py.typed`
/// 항목을 완료 처리합니다.") it is the only record of what an edit did, and stays.
pub(super) fn only_announces(step: &str) -> bool {
    // What a commit's message or a check said is quoted, not announced.
    if step.starts_with("commit message:") || step.starts_with("checks found:") {
        return false;
    }
    let said = sentences(step);
    !said.is_empty()
        && said.iter().all(|sentence| announces_work(sentence))
        && !NAMED.is_match(step)
        && !FLAGS.is_match(step)
        && !REASON.is_match(step)
}

/// How long a remark that says nothing may be…
const REMARK_CHARS: usize = 18;
/// …written in Han or kana ("決定が明確です。" is one).
const HAN_REMARK_CHARS: usize = 6;

/// A sentence that gives a reason: with it, a step says why (in English,
/// Russian, Spanish, German and French between words; Korean, Japanese and
/// Chinese anywhere).
pub(super) static REASON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)\b(?:because|since|so that|instead|rather than|in order to|which means|otherwise|as a result",
        r"|потому что|поэтому|так как|чтобы|porque|para que|en lugar de|weil|damit|statt|parce que|afin de|au lieu de)\b",
        r"|때문에|므로|위해|대신|ため|ので|代わりに|因为|所以|以便|而不是",
    ))
    .expect("a valid pattern")
});

/// A short sentence that says what the agent did ("Fixed the login.") is
/// a result, however short.
static DID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:fixed|added|removed|created|updated|changed|deleted|renamed|moved|merged|pushed|committed|installed|reverted|restored|wrote|built)\b",
    )
    .expect("a valid pattern")
});

/// A sentence that flags a gap, a failure or a limit, in the languages
/// agents answer in.
pub(super) static FLAGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)[❌⚠✗✘]|n['’]t\b|\b(?:not|no|missing|only|but|however|fails?|failed|broken|still|yet)\b",
        r"|\b(?:не|нет|но|только|отсутству\w*|ошибк\w*)\b|\b(?:pero|solo|falta|nicht|kein\w*|aber|mais|pas)\b",
        r"|않|없|실패|아직|ない|ません|失敗|未|没有|失败|仍",
    ))
    .expect("a valid pattern")
});

/// Whether a table row's last mark flags a gap (`| Build | ❌ failing |
/// ✅ passing |` was set right).
pub(super) fn still_flagged(row: &str) -> bool {
    row.chars()
        .rfind(|c| matches!(c, '❌' | '⚠' | '✗' | '✘' | '✅' | '✓' | '✔'))
        .is_some_and(|mark| matches!(mark, '❌' | '⚠' | '✗' | '✘'))
}
