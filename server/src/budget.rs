//! The size budget of an answer.
//!
//! MCP clients cut or refuse large tool results, and an agent that gets a
//! cut answer cannot tell what was lost. So every answer has a budget in
//! characters (`max_chars`, default [`DEFAULT_CHARS`], at most
//! [`CEILING_CHARS`]), and the tools that list many things spend it
//! fairly: the same number of lines for every listed item, as many as fit
//! ([`lines_each`]), each cut item saying how many lines it left out and
//! how to get them. Counts are never cut: totals are counted before
//! anything is left out.
//!
//! Promise: an answer's text, corpus trailer included, is at most its
//! budget plus [`SLACK`]; when a tool's own rendering still overflows
//! (a tool without a fair rendering of its own), [`enforce`] cuts it at a
//! line and says so in the answer's last line.

use serde_json::{Map, Value};

/// The budget of an answer when `max_chars` is not given.
pub const DEFAULT_CHARS: usize = 40_000;
/// The largest `max_chars` accepted.
pub const CEILING_CHARS: usize = 150_000;
/// The smallest `max_chars` accepted: room for a header, a few lines and
/// the footer.
pub const FLOOR_CHARS: usize = 2_000;
/// Room kept for the lines a tool adds after spending the budget (the
/// corpus trailer, the cut notice).
pub const SLACK: usize = 600;
/// The most characters of one hit's text shown (a description or a long
/// cue); the rest is marked with `…`.
pub const MAX_HIT_CHARS: usize = 400;

/// The `max_chars` property every tool's schema carries.
pub fn property() -> Value {
    serde_json::json!({
        "type": "integer",
        "minimum": FLOOR_CHARS,
        "maximum": CEILING_CHARS,
        "description": format!("Size budget of the answer in characters (default {DEFAULT_CHARS}, at most {CEILING_CHARS}). Lists are cut fairly to fit and say what was left out and how to get it; counts stay complete."),
    })
}

/// Renders a result so that its text and its structured content together
/// fit `budget` (what a client counts): `render(room)` writes the text in
/// `room` characters; the room shrinks by the overflow until both fit
/// (the structured content lists only what the text shows, so it shrinks
/// too).
pub fn fit_whole(budget: usize, render: impl Fn(usize) -> (String, Value)) -> (String, Value) {
    let mut room = budget;
    let mut result = render(room);
    for _ in 0..6 {
        let size = size(&result.0, &result.1);
        if size <= budget || room <= FLOOR_CHARS / 2 {
            break;
        }
        room = room.saturating_sub(size - budget).max(FLOOR_CHARS / 2);
        result = render(room);
    }
    result
}

/// The characters structured content takes, as a client receives it
/// (its compact JSON).
pub fn structured_len(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.chars().count())
}

/// The characters of a result, text and structured content together:
/// what `max_chars` bounds.
pub fn size(text: &str, structured: &Value) -> usize {
    text.chars().count() + structured_len(structured)
}

/// What a tool answering on `corpus` may spend of the call's budget:
/// [`of`] less what the corpus trailer will add, so the whole answer the
/// client gets fits `max_chars`.
pub fn of_answer(args: &Map<String, Value>, corpus: &impl std::fmt::Display) -> usize {
    of(args).saturating_sub(crate::tool::trailer_chars(&corpus.to_string()))
}

/// The budget of a call, from its `max_chars`.
pub fn of(args: &Map<String, Value>) -> usize {
    args.get("max_chars")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_CHARS, |n| n as usize)
        .clamp(FLOOR_CHARS, CEILING_CHARS)
}

/// The largest `n` such that the first `n` lines of every block (all of a
/// shorter block) fit in `room` characters; `blocks` holds each block's
/// line lengths. Every block gets the same `n`, so none is starved for
/// another's sake.
pub fn lines_each(blocks: &[Vec<usize>], room: usize) -> usize {
    let cost = |n: usize| -> usize { blocks.iter().map(|b| b.iter().take(n).sum::<usize>()).sum() };
    let longest = blocks.iter().map(Vec::len).max().unwrap_or(0);
    // cost is monotone in n: find the last n that fits.
    let (mut lo, mut hi) = (0, longest);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if cost(mid) <= room {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// `text` cut to at most `max` characters (at a character boundary),
/// marked with `…` when cut.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Cuts `text` to `budget` characters at a line boundary when it is
/// longer, ending with a line that says how much was left out.
pub fn enforce(text: String, budget: usize) -> String {
    let total = text.chars().count();
    if total <= budget {
        return text;
    }
    let mut kept = String::new();
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if used + n > budget.saturating_sub(SLACK) {
            break;
        }
        kept.push_str(line);
        used += n;
    }
    format!(
        "{kept}\n… answer cut at its size budget of {budget} characters: {} more characters not shown. Narrow the call (fewer ids, a query with a window, a channel), or raise max_chars (at most {CEILING_CHARS}).\n",
        total - used
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_gets_the_same_number_of_lines_as_many_as_fit() {
        let blocks = vec![vec![10; 50], vec![10; 2], vec![10; 7]];
        // n = 7: 70 + 20 + 70 = 160; n = 8: 80 + 20 + 70 = 170.
        assert_eq!(lines_each(&blocks, 165), 7);
        assert_eq!(lines_each(&blocks, 170), 8);
        assert_eq!(lines_each(&blocks, 5), 0);
        assert_eq!(lines_each(&blocks, 10_000), 50);
    }

    #[test]
    fn an_answer_over_budget_is_cut_at_a_line_and_says_so() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let cut = enforce(text.clone(), FLOOR_CHARS);
        assert!(cut.chars().count() <= FLOOR_CHARS, "{}", cut.len());
        assert!(cut.contains("… answer cut at its size budget of 2000 characters"));
        assert!(cut
            .lines()
            .all(|l| l.starts_with("line ") || l.is_empty() || l.starts_with("…")));
        assert_eq!(enforce("short\n".into(), FLOOR_CHARS), "short\n");
    }

    #[test]
    fn a_long_hit_is_clipped_at_a_character_boundary() {
        assert_eq!(clip("zürich", 2), "zü…");
        assert_eq!(clip("ok", 5), "ok");
    }
}
