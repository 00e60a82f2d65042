//! Prose given way: cut at a sentence boundary, or between words when even
//! its first sentence is too long for the room.

use std::sync::LazyLock;

use regex::Regex;

static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?]+[)\]\x22']?(?:\s|\z)|[。！？]|\n").expect("a valid pattern"));

/// Below this much room a sentence is not cut between words: a fragment
/// that short says nothing.
const MIN_FRAGMENT_TOKENS: u64 = 32;

/// The longest beginning of `text` that ends at a sentence boundary and
/// fits; a first sentence too long for the room is cut between words, when
/// the room is worth it. Each sentence is counted once (a long narrative is
/// cut many times while a summary is fitted); the cut is then counted whole.
pub(super) fn cut_at_sentence(text: &str, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let ends: Vec<usize> = SENTENCE_END.find_iter(text).map(|m| m.end()).collect();
    let mut running = 0_u64;
    let mut start = 0;
    let mut kept = 0;
    for (at, end) in ends.iter().enumerate() {
        running += count(&text[start..*end]);
        start = *end;
        if running > max_tokens {
            break;
        }
        kept = at + 1;
    }
    // Pieces counted apart can count a little less than counted together.
    while kept > 0 && count(text[..ends[kept - 1]].trim_end()) > max_tokens {
        kept -= 1;
    }
    if kept > 0 {
        return text[..ends[kept - 1]].trim_end().to_owned();
    }
    if max_tokens < MIN_FRAGMENT_TOKENS {
        return String::new();
    }
    let mut words_end = 0;
    let mut running = count("…");
    let mut previous = 0;
    for (at, _) in text.match_indices(char::is_whitespace) {
        running += count(&text[previous..at]);
        previous = at;
        if running > max_tokens {
            break;
        }
        words_end = at;
    }
    while words_end > 0 && count(&format!("{}…", text[..words_end].trim_end())) > max_tokens {
        words_end = text[..words_end].trim_end().rfind(char::is_whitespace).unwrap_or(0);
    }
    if words_end == 0 {
        String::new()
    } else {
        format!("{}…", text[..words_end].trim_end())
    }
}
