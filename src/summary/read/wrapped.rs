//! Lines a terminal or an editor wrapped (SPEC §4, *Readable lines*): text
//! copied out of a terminal keeps a line break wherever the screen ended,
//! mid-sentence and even mid-word (`…den få` / `r inte merges…`). A line
//! break ends a sentence for the segmenter, so the wrapped line's rest read
//! as a sentence of its own and a summary line began inside a word. Such
//! breaks are taken out before the text is cut into sentences.

/// How wide a line must be, in terminal columns, to have been wrapped:
/// a line typed short ended where its writer ended it.
const WRAP_COLUMNS: usize = 60;

/// A character a terminal shows two columns wide (CJK, kana, Hangul,
/// full-width forms): those scripts put no space between words, so a line
/// wrapped among them joins with nothing between.
pub(super) fn is_wide(c: char) -> bool {
    matches!(
        u32::from(c),
        0x1100..=0x115F | 0x2E80..=0x303E | 0x3041..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x20000..=0x3FFFD
    )
}

fn columns(line: &str) -> usize {
    line.chars().map(|c| if is_wide(c) { 2 } else { 1 }).sum()
}

/// Whether `line` ends where a sentence or a clause before a list may end.
fn ends_sentence(line: &str) -> bool {
    let end = line
        .trim_end()
        .trim_end_matches(['"', '\'', '”', '’', ')', ']', '*', '_', '`', '»', '」', '』', '）']);
    end.ends_with(['.', '!', '?', ':', ';', '…', '。', '！', '？', '：', '；'])
}

/// Whether `line` opens something of its own: a list item, a heading, a
/// quote, a table row, a fence, code.
fn opens_block(line: &str) -> bool {
    let trimmed = line.trim_start();
    let numbered = trimmed.split_once(['.', ')']).is_some_and(|(number, _)| {
        !number.is_empty() && number.len() <= 3 && number.chars().all(|c| c.is_ascii_digit())
    });
    line.starts_with("    ")
        || line.starts_with('\t')
        || numbered
        || trimmed.starts_with(['-', '*', '•', '>', '#', '|', '`', '+'])
}

/// What joins `line` to the one before it (`before`) when the break
/// between them is a wrap: a space, nothing (between wide characters), or
/// `None` when the break is the writer's.
fn joiner(before: &str, line: &str) -> Option<&'static str> {
    let before = before.trim_end();
    if before.trim().is_empty() || line.trim().is_empty() || columns(before) < WRAP_COLUMNS {
        return None;
    }
    if ends_sentence(before)
        || opens_block(before) && before.trim_start().starts_with(['#', '|', '`'])
        || opens_block(line)
    {
        return None;
    }
    let last = before.chars().next_back()?;
    let first = line.trim_start().chars().next()?;
    if is_wide(last) && is_wide(first) {
        Some("")
    } else if first.is_lowercase() {
        Some(" ")
    } else {
        None
    }
}

/// `text` with every wrapped line joined to the line it continues; the
/// writer's own line breaks (after a sentence, before a list item, after a
/// short line) stay.
pub(crate) fn unwrapped(text: &str) -> String {
    let mut joined = String::with_capacity(text.len());
    let mut before: Option<&str> = None;
    for line in text.split('\n') {
        match before.and_then(|before| joiner(before, line)) {
            Some(between) => {
                let kept = joined.trim_end_matches([' ', '\t', '\r']).len();
                joined.truncate(kept);
                joined.push_str(between);
                joined.push_str(line.trim_start());
            }
            None => {
                if before.is_some() {
                    joined.push('\n');
                }
                joined.push_str(line);
            }
        }
        before = Some(line);
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swedish_line_wrapped_inside_a_word_is_joined_to_the_line_it_continues() {
        let text = "Lägg till en kontroll i pipelinen, för den här grenen som vi jobbar med få\nr inte merges innan alla tester är gröna.\nTack!";
        assert_eq!(
            unwrapped(text),
            "Lägg till en kontroll i pipelinen, för den här grenen som vi jobbar med få r inte merges innan alla tester är gröna.\nTack!"
        );
    }

    #[test]
    fn russian_and_japanese_wrapped_lines_are_joined_as_their_scripts_write() {
        let russian = "Пожалуйста, добавь проверку в конвейер, чтобы эту ветку нель\nзя было сливать до зелёного CI.";
        assert_eq!(
            unwrapped(russian),
            "Пожалуйста, добавь проверку в конвейер, чтобы эту ветку нель зя было сливать до зелёного CI."
        );
        let japanese = "このブランチはすべてのテストが通るまで絶対にマージしないでください。そしてCIの設定ファイルを確認してからマー\nジの手順を書いてください。";
        assert_eq!(
            unwrapped(japanese),
            "このブランチはすべてのテストが通るまで絶対にマージしないでください。そしてCIの設定ファイルを確認してからマージの手順を書いてください。"
        );
    }

    #[test]
    fn the_writers_own_line_breaks_stay() {
        for text in [
            "fix the bug\nadd a test",
            "Read the spec and plan the work for the next sprint, every task of it:\n- the parser\n- the writer",
            "This is a long first line that the writer ended with a full stop here.\nthen a second one",
            "This is a long first line that the writer did not end with any stop at all\nThen A Capital",
            "# A heading that is long enough to look like a wrapped line of prose\nbody text",
            "テストを書いて\nドキュメントも更新して",
        ] {
            assert_eq!(unwrapped(text), text, "{text}");
        }
    }
}
