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
//! Promise: an answer (its text and its structured content as sent,
//! the corpus trailer included) is at most its budget, at every budget,
//! for every tool, errors included: a tool fits its own rendering, and
//! [`fit_answer`], which every answer passes through, gives up what
//! still overflows in a fixed order and says so.

use serde_json::{Map, Value};

/// The budget of an answer when `max_chars` is not given.
pub const DEFAULT_CHARS: usize = 40_000;
/// The largest `max_chars` accepted.
pub const CEILING_CHARS: usize = 150_000;
/// The smallest `max_chars` accepted: room for a header, a few lines and
/// the footer.
pub const FLOOR_CHARS: usize = 2_000;
/// The most characters of one hit's text shown (a description or a long
/// cue); the rest is marked with `…`.
pub const MAX_HIT_CHARS: usize = 400;

/// Renders a result so that its text and its structured content together
/// fit `budget` (what a client counts): `render(room)` writes the text in
/// `room` characters, its structured content listing only what the text
/// shows. The room shrinks by the overflow (a cut that changes nothing,
/// an overflow smaller than a row, is doubled) until an answer fits, down
/// to a room of nothing, where a renderer lists its least (one row, when
/// rows remain). The room is then searched back up between the last
/// answer that overflowed and the first that fit, so no more rows go
/// than must: the structured content shrinks with the text, and a cut by
/// the whole overflow goes too far. What still overflows is
/// [`fit_answer`]'s.
pub fn fit_whole(budget: usize, render: impl Fn(usize) -> (String, Value)) -> (String, Value) {
    let rendered = |room: usize| {
        let answer = render(room);
        Probe {
            room,
            size: size(&answer.0, &answer.1),
            answer,
        }
    };
    let mut failing = rendered(budget);
    let mut cut = failing.size.saturating_sub(budget);
    let mut shrinks = 0..64;
    let mut fitting = loop {
        if failing.size <= budget || failing.room == 0 || shrinks.next().is_none() {
            return failing.answer;
        }
        let probe = rendered(failing.room.saturating_sub(cut));
        if probe.size <= budget {
            break probe;
        }
        cut = match probe.size == failing.size {
            true => cut * 2,
            false => probe.size - budget,
        };
        failing = probe;
    };
    for step in 0..16 {
        if failing.room - fitting.room <= 1 {
            break;
        }
        let probe = rendered(between(&fitting, &failing, budget, step % 2 == 1));
        match probe.size <= budget {
            true => fitting = probe,
            false => failing = probe,
        }
    }
    fitting.answer
}

/// An answer rendered in `room`, and its size.
struct Probe {
    room: usize,
    size: usize,
    answer: (String, Value),
}

/// A room strictly between `fitting`'s and `failing`'s to try next: where
/// their sizes put the budget (sizes grow about in step with the room),
/// or, every other step, the middle, so the gap at least halves.
fn between(fitting: &Probe, failing: &Probe, budget: usize, middle: bool) -> usize {
    let gap = failing.room - fitting.room;
    let guess = match middle {
        true => gap / 2,
        false => {
            let grows = failing.size.saturating_sub(fitting.size).max(1);
            (budget - fitting.size) * gap / grows
        }
    };
    (fitting.room + guess).clamp(fitting.room + 1, failing.room - 1)
}

/// The characters structured content takes, as a client receives it
/// (its compact JSON).
pub fn structured_len(v: &Value) -> usize {
    if v.is_null() {
        return 0; // no structuredContent is sent
    }
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
pub fn of_answer(budget: usize, corpus: &impl std::fmt::Display) -> usize {
    budget.saturating_sub(crate::tool::trailer_chars(&corpus.to_string()))
}

/// The budget of a call, from its `max_chars` (checked against
/// [`FLOOR_CHARS`] and [`CEILING_CHARS`] by the schema before a call
/// gets here).
pub fn of(max_chars: Option<usize>) -> usize {
    max_chars
        .unwrap_or(DEFAULT_CHARS)
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
/// longer, ending with a line that says how much was left out (within
/// the line itself when not even the first line fits).
pub fn enforce(text: String, budget: usize) -> String {
    let total = text.chars().count();
    if total <= budget {
        return text;
    }
    let notice = |left: usize| {
        format!(
            "\n… answer cut at its size budget: {left} more characters not shown. Narrow the call (fewer ids, a query with a window, a channel), or raise max_chars (at most {CEILING_CHARS}).\n"
        )
    };
    // The notice's length with the widest count it can carry.
    let room = budget.saturating_sub(notice(total).chars().count());
    let mut kept = String::new();
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let n = line.chars().count();
        if used + n > room {
            break;
        }
        kept.push_str(line);
        used += n;
    }
    if used == 0 {
        kept = text.chars().take(room).collect();
        used = room;
    }
    kept + &notice(total - used)
}

/// The last word on an answer's size: `text` and `structured` together
/// within `budget` characters, whatever the tool rendered. A tool fits
/// its own answer first, giving up what it chooses (hit lines, then rows);
/// what still overflows is given up here in a fixed order:
///
/// 1. the structured content's longest list, halved until the content
///    takes at most half the budget (each cut named under `truncated`,
///    by its path, with the number of items left out); a lone long text
///    is clipped with `…`;
/// 2. the text's last lines ([`enforce`]), with a line saying how much.
pub fn fit_answer(text: String, mut structured: Value, budget: usize) -> (String, Value) {
    if size(&text, &structured) <= budget {
        return (text, structured);
    }
    let mut cuts = Map::new();
    while structured_len(&structured) > budget / 2 {
        if !shrink_longest(&mut structured, &mut cuts) {
            break;
        }
        if let Value::Object(map) = &mut structured {
            map.insert("truncated".into(), Value::Object(cuts.clone()));
        }
    }
    let room = budget.saturating_sub(structured_len(&structured));
    (enforce(text, room), structured)
}

/// Halves the longest list in `v` (or clips its longest text when no
/// list has two items), recording the cut in `cuts` under its path;
/// false when nothing is left to shrink.
fn shrink_longest(v: &mut Value, cuts: &mut Map<String, Value>) -> bool {
    let Some((at, target)) = longest_part(v) else {
        return false;
    };
    let Some(part) = v.pointer_mut(&at) else {
        return false;
    };
    match part {
        Value::Array(items) if items.len() > 1 => {
            let keep = items.len() / 2;
            let dropped = items.len() - keep;
            items.truncate(keep);
            let before = cuts.get(&target).and_then(Value::as_u64).unwrap_or(0);
            cuts.insert(target, Value::from(before + dropped as u64));
            true
        }
        Value::String(text) if text.chars().count() > 16 => {
            *text = clip(text, text.chars().count() / 2);
            true
        }
        _ => false,
    }
}

/// The JSON pointer and dotted name of the largest shrinkable part of
/// `v`: a list of two items or more, or a text over 16 characters.
fn longest_part(v: &Value) -> Option<(String, String)> {
    let mut best: Option<(usize, String, String)> = None;
    walk(
        v,
        String::new(),
        String::new(),
        &mut |pointer, name, part| {
            let shrinkable = match part {
                Value::Array(items) => items.len() > 1,
                Value::String(t) => t.chars().count() > 16,
                _ => false,
            };
            let len = structured_len(part);
            if shrinkable && best.as_ref().is_none_or(|(b, _, _)| len > *b) {
                best = Some((len, pointer.to_string(), name.to_string()));
            }
        },
    );
    best.map(|(_, pointer, name)| (pointer, name))
}

/// Calls `visit(pointer, dotted name, part)` for every part of `v`
/// below its root, outermost first (but the [`KEPT_WHOLE`] keys).
fn walk(v: &Value, pointer: String, name: String, visit: &mut dyn FnMut(&str, &str, &Value)) {
    let children: Vec<(String, String, &Value)> = match v {
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !(pointer.is_empty() && KEPT_WHOLE.contains(&k.as_str())))
            .map(|(k, c)| (format!("{pointer}/{k}"), dotted(&name, k), c))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("{pointer}/{i}"), dotted(&name, &i.to_string()), c))
            .collect(),
        _ => Vec::new(),
    };
    for (p, n, c) in children {
        visit(&p, &n, c);
        walk(c, p, n, visit);
    }
}

/// The structured content's top-level keys [`fit_answer`] never shrinks:
/// what names the answer and what it already says it cut.
const KEPT_WHOLE: &[&str] = &["corpus", "error", "truncated"];

fn dotted(name: &str, key: &str) -> String {
    match name.is_empty() {
        true => key.to_string(),
        false => format!("{name}.{key}"),
    }
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
        assert!(cut.contains("… answer cut at its size budget: "));
        assert!(cut
            .lines()
            .all(|l| l.starts_with("line ") || l.is_empty() || l.starts_with("…")));
        assert_eq!(enforce("short\n".into(), FLOOR_CHARS), "short\n");
    }

    #[test]
    fn fit_whole_drops_no_more_rows_than_it_must_even_when_the_overflow_is_less_than_a_row() {
        // Rows of 100 characters in the text, each also listed (as 100
        // characters) in the structured content.
        let row = "r".repeat(99) + "\n";
        let render = |room: usize| {
            let rows = (room / 100).clamp(1, 40);
            (row.repeat(rows), Value::from(vec!["s".repeat(98); rows]))
        };
        let rows = |answer: &(String, Value)| answer.0.lines().count();
        for budget in [2_000, 2_001, 2_099, 2_150, 3_333, 7_999] {
            let answer = fit_whole(budget, render);
            // The most rows that fit, each costing 200 characters.
            let most = (1..=40)
                .rev()
                .find(|&n| size(&row.repeat(n), &Value::from(vec!["s".repeat(98); n])) <= budget);
            assert!(size(&answer.0, &answer.1) <= budget, "{budget}");
            assert_eq!(Some(rows(&answer)), most, "{budget}");
        }
    }

    #[test]
    fn a_long_hit_is_clipped_at_a_character_boundary() {
        assert_eq!(clip("zürich", 2), "zü…");
        assert_eq!(clip("ok", 5), "ok");
    }
}
