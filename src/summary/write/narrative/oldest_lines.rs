//! The extractive narrative given way: its oldest steps of work left out,
//! then its oldest request lines merged into one `- Earlier:` line.

use super::sections::{ASKED_MARK, BRIEF_MARK, WORK_MARK};
use super::sentence_cut::cut_at_sentence;
use crate::summary::read::sentences::head_of;

const EARLIER: &str = "- Earlier: ";
const EARLIER_ENTRY_CHARS: usize = 60;

/// An old line as one short entry of the merged line: its request,
/// clipped (an earlier merged line keeps a little more).
fn entry(line: &str) -> String {
    let (text, limit) = match line.strip_prefix(EARLIER) {
        Some(earlier) => (earlier, EARLIER_ENTRY_CHARS * 3),
        None => {
            let line = line.strip_prefix("- ").unwrap_or(line);
            (line.split(" → ").next().unwrap_or(line), EARLIER_ENTRY_CHARS)
        }
    };
    let text = text.trim();
    let clipped = head_of(text, limit);
    if clipped.len() < text.len() {
        format!("{}…", clipped.trim_end())
    } else {
        clipped.to_owned()
    }
}

fn assemble(header: &[&str], earlier: &[String], left_out: usize, rest: &[&str]) -> String {
    let mut lines: Vec<String> = header.iter().map(|l| (*l).to_owned()).collect();
    if !earlier.is_empty() || left_out > 0 {
        let note = if left_out > 0 {
            format!("({left_out} older left out) ")
        } else {
            String::new()
        };
        lines.push(format!("{EARLIER}{note}{}", earlier.join("; ")));
    }
    lines.extend(rest.iter().map(|l| (*l).to_owned()));
    lines.join("\n")
}

/// `text` with its oldest steps of work left out, as few as will make it
/// fit (the agent's before the user's own words); all of them when even
/// that does not.
fn drop_oldest_steps(text: &str, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps: Vec<(usize, u64)> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.starts_with(WORK_MARK))
        .map(|(at, line)| (at, count(line)))
        .collect();
    steps.sort_by_key(|(at, _)| {
        let line = lines[*at];
        (line.starts_with(ASKED_MARK) || line.starts_with(BRIEF_MARK), *at)
    });
    let mut dropped = 0;
    let mut whole = count(text);
    while whole > max_tokens && dropped < steps.len() {
        // Counted apart the lines err low: drop what the excess says, then count again.
        let mut excess = whole - max_tokens;
        while excess > 0 && dropped < steps.len() {
            excess = excess.saturating_sub(steps[dropped].1.max(1));
            dropped += 1;
        }
        let gone: std::collections::HashSet<usize> = steps[..dropped].iter().map(|(at, _)| *at).collect();
        let kept: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(at, _)| !gone.contains(at))
            .map(|(_, line)| *line)
            .collect();
        let text = kept.join("\n");
        whole = count(&text);
        if whole <= max_tokens || dropped == steps.len() {
            return text;
        }
    }
    text.to_owned()
}

/// Gives way in two steps: first the oldest steps of work are left out;
/// then the oldest `- ` lines merge into one `- Earlier:` line, as few as
/// will make it fit; when even all of them merged are too long, the oldest
/// entries are left out (the stored turns still hold them). Lines and
/// entries are counted once each, the choice then counted whole.
pub(super) fn merge_oldest_lines(text: &str, max_tokens: u64, count: &dyn Fn(&str) -> u64) -> String {
    let text = drop_oldest_steps(text, max_tokens, count);
    if count(&text) <= max_tokens {
        return text;
    }
    let text = text.as_str();
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let split = all.iter().position(|l| l.starts_with("- ")).unwrap_or(all.len());
    let (header, body) = all.split_at(split);
    if body.is_empty() {
        return cut_at_sentence(&header.join("\n"), max_tokens, count);
    }
    let entries: Vec<String> = body.iter().map(|line| entry(line)).collect();
    // Estimates from pieces counted apart (line breaks and separators left
    // out, so they err low); what they choose is counted whole.
    let head = count(&header.join("\n")) + count(EARLIER);
    let mut whole_from = vec![0_u64; body.len() + 1];
    for k in (0..body.len()).rev() {
        whole_from[k] = whole_from[k + 1] + count(body[k]);
    }
    let entry_tokens: Vec<u64> = entries.iter().map(|e| count(e)).collect();
    let merged = |k: usize| assemble(header, &entries[..k], 0, &body[k..]);
    let mut merged_tokens = 0;
    for k in 1..=body.len() {
        merged_tokens += entry_tokens[k - 1];
        if head + merged_tokens + whole_from[k] <= max_tokens {
            // Counted whole it may come out a little over: merge one more.
            if let Some(fitting) = (k..=body.len()).map(merged).find(|text| count(text) <= max_tokens) {
                return fitting;
            }
            break;
        }
    }
    // Even everything merged is too long: leave out the oldest entries.
    let note = count("(0000 older left out) ");
    let mut kept_tokens: u64 = entry_tokens.iter().sum();
    for left_out in 1..=entries.len() {
        kept_tokens -= entry_tokens[left_out - 1];
        if head + note + kept_tokens <= max_tokens {
            let fitting = (left_out..=entries.len())
                .map(|left_out| assemble(header, &entries[left_out..], left_out, &[]))
                .find(|text| count(text) <= max_tokens);
            if let Some(fitting) = fitting {
                return fitting;
            }
            break;
        }
    }
    cut_at_sentence(&header.join("\n"), max_tokens, count)
}
