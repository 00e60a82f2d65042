//! Values the conversation changed (issue 41): "the budget is $75" and,
//! later, "trimmed the budget to $60" are one setting said twice, and a
//! reader must not be left to guess which holds. Each subject's latest
//! value is given, with the earlier ones in brackets.

use std::sync::LazyLock;

use regex::Regex;

use super::quantities::candidates;

/// How many changed values the state shows (the latest changed last)…
const SHOWN: usize = 5;
/// …and how many earlier values each carries.
const EARLIER: usize = 2;

/// A value as written: money, a number with the word after it (its unit,
/// if [`value_in`] finds it one), a bare number.
const VALUE: &str = r"[$€£¥]\d[\d,]*(?:\.\d+)?[kKmM]?\b|\d[\d,]*(?:\.\d+)?(?:[ \t]?(?:%|[\p{L}µ°/]+\b))?";
/// A subject of one to three words (`budget`, `request timeout`,
/// `max_retries`).
const SUBJECT: &str = r"[\p{L}][\p{L}\d_-]*(?:[ \t][\p{L}][\p{L}\d_-]*){0,2}?";

/// "set the timeout to 60s", "trimmed the budget from $75 to $60".
static CHANGED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        concat!(
            r"(?i)\b(?:set|setting|change[ds]?|changing|trim(?:med)?|rais(?:e|ed)|lower(?:ed)?|bump(?:ed)?|",
            r"increas(?:e|ed)|reduc(?:e|ed)|cut|mov(?:e|ed)|updat(?:e|ed)|adjust(?:ed)?|drop(?:ped)?)",
            r"[ \t]+(?:the[ \t]+|our[ \t]+|my[ \t]+|its[ \t]+|your[ \t]+)?(?P<subject>{subject})",
            r"[ \t]+(?:from[ \t]+(?P<old>{value})[ \t]+)?to[ \t]+(?P<new>{value})"
        ),
        subject = SUBJECT,
        value = VALUE
    ))
    .expect("a valid pattern")
});
/// "The budget is $75", "timeout: 30s", "retries = 5".
static STATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        concat!(
            r"(?im)(?:^|[.;!?][ \t]+|\b(?:the|our|my|your)[ \t]+)(?P<subject>{subject})",
            r"(?:[ \t]+(?:is|is now|will be|should be|stays at)[ \t]+|[ \t]*(?P<sign>[=:])[ \t]*)(?P<new>{value})"
        ),
        subject = SUBJECT,
        value = VALUE
    ))
    .expect("a valid pattern")
});

/// Words that stand for something said before, never a subject of their own.
const NOT_SUBJECTS: &[&str] = &[
    "it",
    "this",
    "that",
    "there",
    "which",
    "what",
    "here",
    "one",
    "each",
    "all",
    "step",
    "line",
    "exit code",
];

/// The value a setting holds in `written`: money, or a quantity with its
/// unit (`45s`, not `45 people`'s `45 people`), or a bare number where
/// `bare` allows one (`to 5`, `retries = 5`).
fn value_in(written: &str, bare: bool) -> Option<String> {
    let written = written.trim();
    let is_number = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.');
    if written.starts_with(['$', '€', '£', '¥']) || (bare && is_number(written)) {
        return Some(written.to_owned());
    }
    if candidates(written)
        .iter()
        .any(|(start, end)| *start == 0 && *end == written.len())
    {
        return Some(written.to_owned());
    }
    let number = written.split([' ', '\t']).next().unwrap_or_default();
    (bare && number != written && is_number(number)).then(|| number.to_owned())
}

/// A subject without the article before it (`The budget`: `budget`).
fn bare_subject(subject: &str) -> &str {
    let subject = subject.trim();
    ["the ", "our ", "my ", "your ", "a ", "an "]
        .iter()
        .find_map(|article| {
            subject
                .get(..article.len())
                .filter(|start| start.eq_ignore_ascii_case(article))
                .map(|_| &subject[article.len()..])
        })
        .unwrap_or(subject)
}

/// A subject as it is compared: no article, lower case, `_` as a space.
fn key_of(subject: &str) -> String {
    bare_subject(subject).to_lowercase().replace('_', " ")
}

/// One subject and the values it was given, in order, each once.
#[derive(Debug, Default)]
struct Said {
    subject: String,
    values: Vec<String>,
}

impl Said {
    fn give(&mut self, value: &str) {
        let value = value.trim().to_owned();
        self.values.retain(|earlier| *earlier != value);
        self.values.push(value);
    }
}

/// The values each subject was given in `texts` (in order), those it was
/// given more than one of: `budget $60 (earlier $75)`, the latest changed
/// last.
pub(crate) fn changed_values<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut said: Vec<Said> = Vec::new();
    let mut changed_last: Vec<usize> = Vec::new();
    for text in texts {
        // (where, subject, earlier value, value), in the order written.
        let mut found: Vec<(usize, String, Option<String>, String)> = Vec::new();
        for captures in CHANGED.captures_iter(text) {
            let old = captures.name("old").and_then(|m| value_in(m.as_str(), true));
            if let Some(new) = value_in(&captures["new"], true) {
                found.push((
                    captures.get(0).map_or(0, |m| m.start()),
                    captures["subject"].to_owned(),
                    old,
                    new,
                ));
            }
        }
        for captures in STATED.captures_iter(text) {
            let bare = captures.name("sign").is_some();
            if let Some(new) = value_in(&captures["new"], bare) {
                found.push((
                    captures.get(0).map_or(0, |m| m.start()),
                    captures["subject"].to_owned(),
                    None,
                    new,
                ));
            }
        }
        found.sort_by_key(|(at, ..)| *at);
        for (_, subject, old, new) in found {
            let key = key_of(&subject);
            if NOT_SUBJECTS.contains(&key.as_str()) {
                continue;
            }
            let at = match said.iter().position(|s| key_of(&s.subject) == key) {
                Some(at) => at,
                None => {
                    said.push(Said {
                        subject: bare_subject(&subject).to_owned(),
                        values: Vec::new(),
                    });
                    said.len() - 1
                }
            };
            if let Some(old) = old {
                said[at].give(&old);
            }
            said[at].give(&new);
            if said[at].values.len() > 1 {
                changed_last.retain(|earlier| *earlier != at);
                changed_last.push(at);
            }
        }
    }
    let shown = &changed_last[changed_last.len().saturating_sub(SHOWN)..];
    shown
        .iter()
        .map(|at| {
            let Said { subject, values } = &said[*at];
            let (latest, earlier) = values.split_last().unwrap_or((&values[0], &[]));
            let earlier: Vec<&str> = earlier.iter().rev().take(EARLIER).map(String::as_str).collect();
            format!("{subject} {latest} (earlier {})", earlier.join(", "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_said_again_differently_is_kept_as_its_latest_with_the_earlier_in_brackets() {
        let said = [
            "Plan the team offsite. The budget is $75 per person and the venue holds 40 people.",
            "Noted: budget $75, venue capacity 40.",
            "Actually, trim the budget to $60; the venue is fine.",
            "Trimmed the budget to $60 and set the request timeout to 45s.",
            "Set the request timeout to 90s after all.",
        ];
        assert_eq!(
            changed_values(said),
            ["budget $60 (earlier $75)", "request timeout 90s (earlier 45s)"]
        );
    }

    #[test]
    fn a_change_from_one_value_to_another_is_read_in_one_sentence() {
        assert_eq!(
            changed_values(["Raised max_retries from 3 to 5."]),
            ["max_retries 5 (earlier 3)"]
        );
    }

    #[test]
    fn values_said_once_or_repeated_unchanged_and_bare_words_are_no_change() {
        assert!(
            changed_values([
                "The timeout is 30s.",
                "Yes, the timeout is 30s.",
                "It is 12 lines long. That is 40 lines now.",
                "The answer is yes; the build is green.",
            ])
            .is_empty()
        );
    }
}
