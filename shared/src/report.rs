//! The words a search result is told in. The command line and the MCP
//! server both print with these, so where they say the same thing (how
//! many videos and hits, how much was read, what could not be read, where
//! a hit is) they say it in the same words; each front end only lays the
//! pieces out (plain lines, or Markdown with links).

use crate::format::clock;
use crate::query::{Hit, Response, Scope, VideoResult};

/// A count and its noun, in the plural when it is not one: `1 video`,
/// `2 videos`.
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` of `of` with its share: `12 (40 %)`; `0 (0 %)` of none.
pub fn share(n: u64, of: u64) -> String {
    let pct = if of == 0 {
        0.0
    } else {
        n as f64 * 100.0 / of as f64
    };
    format!("{n} ({pct:.0} %)")
}

/// `N video(s), M hit(s)`.
pub fn counts(videos: usize, hits: usize) -> String {
    format!("{videos} video(s), {hits} hit(s)")
}

/// The first words of a result: the counts of the query as typed, then,
/// when aliases or fuzzy variants found more, the counts with them, so
/// the number an agent quotes first is the exact one.
pub fn headline(label: &str, exact: (usize, usize), with_variants: (usize, usize)) -> String {
    if exact == with_variants {
        return format!("{} for {label}", counts(with_variants.0, with_variants.1));
    }
    format!(
        "{} for {label} exactly as typed; with the aliases and fuzzy variants named below: {}",
        counts(exact.0, exact.1),
        counts(with_variants.0, with_variants.1)
    )
}

/// How much of the archive was read, and what the index did.
pub fn pages_read(r: &Response) -> String {
    format!(
        "searched {} of {} page(s) ({:.1} MB); {}",
        r.pages_read,
        r.pages_total,
        r.bytes_read as f64 / 1e6,
        r.index.describe()
    )
}

/// A page that could not be read, so was not searched.
pub fn unreadable(what: &str) -> String {
    format!("UNREADABLE (not searched): {what}")
}

/// Which archive answered.
pub fn corpus(source: &str) -> String {
    format!("(corpus: {source})")
}

/// The lines every search result ends with: what was read, the notes
/// (filters, aliases, fuzzy variants, order), coverage, and every page
/// that could not be read.
pub fn footer(r: &Response) -> Vec<String> {
    let mut lines = vec![pages_read(r)];
    lines.extend(r.notes.iter().cloned());
    lines.extend(r.coverage.describe());
    lines.extend(r.unreadable.iter().map(|u| unreadable(u)));
    lines
}

/// Where a hit is: its time in the video (`12:34`), or the field it is
/// in (`title`, `description`…) when the field has no time.
pub fn hit_place(h: &Hit) -> String {
    match (h.scope, h.start) {
        (Scope::Transcripts | Scope::Chat, Some(s)) => clock(s),
        (scope, _) => scope.as_str().to_string(),
    }
}

/// A video's date and hit count: `2023-06-01 · N hit(s)` (the date as the
/// archive stores it, or `no date`).
pub fn video_facts(v: &VideoResult, hits: usize) -> String {
    format!(
        "{} · {hits} hit(s)",
        v.upload_date.as_deref().unwrap_or("no date")
    )
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn counts_take_the_plural_unless_one() {
        assert_eq!(counted(0, "video"), "0 videos");
        assert_eq!(counted(1, "video"), "1 video");
        assert_eq!(counted(2, "hit"), "2 hits");
    }
}
