//! Token counts with a real tokenizer (o200k, the vocabulary of current OpenAI
//! models, shipped inside the binary): four characters a token undercounts
//! CJK text fourfold.

use tiktoken_rs::{CoreBPE, o200k_base_singleton};

use crate::domain::transcript::Message;

fn tokenizer() -> &'static CoreBPE {
    o200k_base_singleton()
}

/// Loads the vocabulary now rather than on the first request that needs it.
pub(crate) fn warm_up() {
    let _ = count("warm up");
}

pub fn count(text: &str) -> u64 {
    tokenizer().encode_ordinary(text).len() as u64
}

/// Each message's tokens: its text, and its tool calls' names and arguments.
pub(crate) fn of_messages(messages: &[Message]) -> Vec<u64> {
    messages.iter().map(|m| count(&m.text_for_counting())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_is_about_four_characters_a_token() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        let tokens = count(&text);
        assert!((180..=260).contains(&tokens), "{tokens}");
    }

    #[test]
    fn cjk_text_is_counted_far_above_a_quarter_of_its_characters() {
        let text = "請不要刪除生產環境的資料庫，先備份再說。".repeat(50);
        let chars = text.chars().count() as u64;
        assert!(
            count(&text) > chars / 2,
            "{} tokens for {chars} characters",
            count(&text)
        );
    }

    #[test]
    fn nothing_is_no_tokens() {
        assert_eq!(count(""), 0);
    }
}
