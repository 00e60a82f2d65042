//! Prohibitions (SPEC §4): a sentence of the user's that forbids or restricts
//! — "don't…", "never…", "不要…", "别…", "никогда…", "nunca…", "nicht…",
//! "ne… pas", "しないで", "하지 마"… — kept as its own sentence, not its whole
//! message. English, Chinese, Russian, Spanish, Portuguese, German, French,
//! Japanese and Korean. Only the user's own sentences: what they pasted
//! (errors, logs, tables, code, quotes) is never a rule, and a rule is kept
//! whole, never clipped.

use std::sync::LazyLock;

use regex::Regex;

use crate::summary::read::pasted::{outside_quotes, own_words};
use crate::summary::read::wrapped::unwrapped;

/// A sentence longer than this is a paste or a paragraph with no full
/// stop, not a rule someone typed: a rule is kept whole or not at all.
pub(crate) const MAX_CHARS: usize = 1_000;

static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?]+(?:\s+|\z)|[。！？]+|\n+").expect("a valid pattern"));
static LIST_MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A(?:[-*•>]+|\d{1,3}[.)])\s+").expect("a valid pattern"));

/// Markers that forbid wherever they stand in a sentence.
static ANYWHERE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)",
        // English
        r"\b(?:don[’']?t|do\s+not|never|must\s+not|mustn[’']?t|shouldn[’']?t|should\s+not|may\s+not|not\s+allowed|forbidden|prohibited|under\s+no\s+circumstances|avoid)\b",
        r"|禁止",
        // Russian
        r"|\bникогда\b|\bнельзя\b|\bзапрещ\w*|ни\s+в\s+коем\s+случае|\bне\s+(?:надо|нужно|стоит|смей|вздумай)\b",
        r"|\bне\s+\w+(?:ай|яй|ей|уй|ой|йте|ите|ьте)\b",
        // Spanish and Portuguese
        r"|\bnunca\b|\bjamás\b|\bjamais\b|\bprohibido\b|\bproibido\b",
        r"|\bno\s+(?:debes|debe|deberías|hagas|toques|uses|borres|elimines|cambies|modifiques|subas|pongas|añadas|agregues)\b",
        r"|\bnão\s+(?:pode|deve|faça|mexa|use|apague|altere|mude|toque|remova|suba|coloque|adicione)\b",
        // German
        r"|\bnicht\b|\bniemals\b|\bnie\b|\bverboten\b|\bauf\s+keinen\s+fall\b",
        // French
        r"|\bne\s+\S+(?:\s+\S+)?\s+(?:pas|jamais|plus)\b|\bn[’']\S+\s+(?:pas|jamais|plus)\b|\bjamais\b|\binterdit\b",
        // Japanese
        r"|ないで|ないように|てはいけない|ではいけない|てはならない|ちゃだめ|ちゃダメ|じゃだめ|じゃダメ|するな|禁止",
        // Korean
        r"|지\s*마|지\s*말|금지|절대|안\s*돼|하면\s*안",
    ))
    .expect("a valid pattern")
});

/// Chinese markers (别 is checked apart: it also starts 别人, ends 特别…).
/// In Japanese the same characters mean otherwise (不要 is "not needed").
static CHINESE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"不要|不准|不許|不许|勿|不可以|不得|千万不|千萬不|永远不|永遠不|绝不|絕不|決不|决不")
        .expect("a valid pattern")
});

/// Whether `text` is Japanese: it has hiragana (katakana alone may be a
/// quoted name in Chinese text).
fn is_japanese(text: &str) -> bool {
    text.chars().any(|c| matches!(c, '\u{3041}'..='\u{309f}'))
}

/// Markers that forbid at a sentence's start only ("No force pushes.",
/// "Не трогай CI.", "Não mexa…", "Kein Deploy…"): elsewhere they are mere
/// negations. "No," and "No." are answers, not rules.
static OPENING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\A(?:no\s+\p{L}|не\s+\p{L}|não\s+\p{L}|keine?n?\s+\p{L}|ne\s+\p{L})").expect("a valid pattern")
});

/// Characters that make 别 part of another word (特别, 区别, 告别, 级别…).
const BIE_BEFORE: &[char] = &[
    '特', '区', '區', '分', '告', '级', '級', '类', '類', '性', '识', '識', '差', '辨', '派', '离', '離', '鉴', '鑒',
];
const BIE_AFTER: &[char] = &['人', '的', '处', '處', '名', '墅', '称', '稱'];

fn forbids_in_chinese(sentence: &str) -> bool {
    let chars: Vec<char> = sentence.chars().collect();
    chars.iter().enumerate().any(|(i, c)| {
        (*c == '别' || *c == '別')
            && !i
                .checked_sub(1)
                .is_some_and(|before| BIE_BEFORE.contains(&chars[before]))
            && !chars.get(i + 1).is_some_and(|after| BIE_AFTER.contains(after))
    })
}

/// Whether one sentence forbids or restricts something; `japanese`: the
/// text it stands in is Japanese, where Chinese markers are other words.
fn forbids(sentence: &str, japanese: bool) -> bool {
    ANYWHERE.is_match(sentence)
        || OPENING.is_match(sentence)
        || (!japanese && (CHINESE.is_match(sentence) || forbids_in_chinese(sentence)))
}

/// The sentences of `text` that forbid something, in order, each trimmed of
/// list markers: the user's own (nothing pasted, no marker inside quotes),
/// whole, and at most [`MAX_CHARS`] characters.
pub(crate) fn prohibitions(text: &str) -> Vec<String> {
    // A rule wrapped over two lines is one rule, not a tail that starts mid-word.
    let text = unwrapped(&own_words(text));
    let text = text.as_str();
    let japanese = is_japanese(text);
    let mut found = Vec::new();
    let mut start = 0;
    for end in SENTENCE_END.find_iter(text).map(|m| m.end()).chain([text.len()]) {
        if end <= start {
            continue;
        }
        let sentence = text[start..end].trim();
        let sentence = LIST_MARKER.replace(sentence, "");
        let sentence = sentence.trim();
        start = end;
        if !sentence.is_empty() && sentence.chars().count() <= MAX_CHARS && forbids(&outside_quotes(sentence), japanese)
        {
            let kept = sentence.to_owned();
            if !found.contains(&kept) {
                found.push(kept);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_prohibitions_are_whole_sentences() {
        assert_eq!(
            prohibitions("Ship it today. Don't touch prod! Also never force-push.\nThanks"),
            ["Don't touch prod!", "Also never force-push."]
        );
        assert_eq!(
            prohibitions("- Do NOT drop the audit_log table; it is evidence in case INC-4471."),
            ["Do NOT drop the audit_log table; it is evidence in case INC-4471."]
        );
        assert_eq!(
            prohibitions("No force pushes on Fridays."),
            ["No force pushes on Fridays."]
        );
        assert_eq!(prohibitions("Don’t rename the crate."), ["Don’t rename the crate."]);
    }

    #[test]
    fn every_language_the_spec_names_is_heard() {
        for rule in [
            "不要刪除日誌。",
            "别动生产环境。",
            "Никогда не пушь в main.",
            "Не трогай конфиг CI.",
            "Не удаляйте миграции.",
            "Nunca hagas push a main.",
            "No toques la base de datos.",
            "Não mexa no banco de dados.",
            "Nunca faça deploy na sexta.",
            "Bitte nicht die Datenbank löschen.",
            "Niemals auf main pushen.",
            "Ne touche pas à la configuration.",
            "N'utilise jamais la production.",
            "本番環境には触らないで。",
            "main に直接プッシュしてはいけない。",
            "프로덕션은 건드리지 마세요.",
            "절대 main에 푸시하지 마.",
        ] {
            assert_eq!(prohibitions(rule), [rule], "{rule}");
        }
    }

    #[test]
    fn ordinary_sentences_are_not_rules() {
        for text in [
            "Please add a test for the parser.",
            "No, that is wrong.",
            "No.",
            "It failed with 3 errors.",
            "特别感谢。",
            "这两个有什么区别？",
            "Это работает.",
            "Ich habe es gemacht.",
            "C'est bon.",
            "The cannot-be-blank check passes.",
            "`stagger` は `fade-up` に統一（CSSでは区別不要）",
            "- JS実行時間: 大幅短縮（WebGL初期化、RAF loop不要）\n- `stagger` は `fade-up` に統一します。",
        ] {
            assert!(prohibitions(text).is_empty(), "{text}: {:?}", prohibitions(text));
        }
        // The same characters in Chinese text forbid.
        assert_eq!(prohibitions("不要删除日志。"), ["不要删除日志。"]);
        assert_eq!(prohibitions("不要删除日志。看「ログ」"), ["不要删除日志。"]);
    }

    #[test]
    fn a_long_rule_is_kept_whole_and_a_wall_of_text_is_no_rule() {
        let rule = format!(
            "Never {} without asking me first.",
            "touch the billing tables ".repeat(15)
        );
        assert!(rule.chars().count() > 300);
        assert_eq!(prohibitions(&rule), [rule]);
        let wall = format!("Never {}.", "x ".repeat(600));
        assert!(prohibitions(&wall).is_empty());
    }

    #[test]
    fn pasted_text_is_never_a_rule() {
        for text in [
            "The tree breaks with this error:\nNo default view of type 'tree' could be found!",
            "| MAX_QUEUE_SIZE | 50 | Cap to avoid unbounded memory |",
            "```\n// never call this twice\n```",
            "> Do not reply to this message.",
            "Feb 8 21:51:50.720 |DEBU| never retried hook=stop",
            "Traceback (most recent call last):\nValueError: must not be empty",
            "Rename the button \"Don't save\" to \"Discard\".",
            "Caused by: java.lang.IllegalStateException: must not be null",
            "Error: Do not call this method twice (at Registry.get)",
            "limit | note\n---|---\nqueue | do not use more than 3 retries",
        ] {
            assert!(prohibitions(text).is_empty(), "{text}: {:?}", prohibitions(text));
        }
        assert_eq!(
            prohibitions("I get this error:\nnever mind the disk\n\nDon't restart the worker."),
            ["Don't restart the worker."]
        );
    }

    #[test]
    fn a_repeated_rule_is_found_once() {
        assert_eq!(prohibitions("Don't push. Don't push."), ["Don't push."]);
    }

    #[test]
    fn a_rule_a_terminal_wrapped_is_one_rule_from_its_first_word() {
        assert_eq!(
            prohibitions("Никогда не сливай эту ветку в main, пока все проверки в CI не стан\nут зелёными. Спасибо."),
            ["Никогда не сливай эту ветку в main, пока все проверки в CI не стан ут зелёными."]
        );
        assert_eq!(
            prohibitions(
                "Please tidy the release script and do not push the tag before the changel\nog has an entry for it."
            ),
            ["Please tidy the release script and do not push the tag before the changel og has an entry for it."]
        );
    }
}
