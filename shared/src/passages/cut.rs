//! Where a video's captions are cut into passages: the one rule.
//!
//! A passage is a run of consecutive cues of one video, begun at the cue
//! after the previous passage and closed by the first cue that brings it
//! to [`SECONDS`] from its start, or to [`MAX_CHARS`] of text (a model
//! reads about 256 word pieces, roughly 1,000 characters of speech), or
//! by the video's end. Passages do not overlap: every cue is in exactly
//! one passage (pinned by `every_cue_is_in_exactly_one_passage`).
//!
//! Why 40 seconds: about 100 spoken words, one exchange on one subject.
//! `docs/passage-length.md` compares 20, 40 and 60 seconds on the
//! judgment set (`scripts/passage_length.py`): no length stands out (the
//! three lie within a few relevant episodes of each other, and not in
//! order of length, which is what 24 subjects' noise looks like), so the
//! length is chosen for cost and reading: 40 seconds is half the vectors
//! of 20 to store and scan, reads as an answer, and stays inside the
//! model's 256 word pieces where 60 seconds nears the 1,000-character
//! cap.

use std::ops::Range;

use crate::format::Cue;

/// A passage's length in seconds, at least.
pub const SECONDS: f64 = 40.0;

/// A passage's text, at most (unless one cue alone is longer).
pub const MAX_CHARS: usize = 1_000;

/// The passages of `cues`, as ranges of cue positions.
pub fn cut(cues: &[Cue]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut first = 0;
    let mut chars = 0;
    for (i, cue) in cues.iter().enumerate() {
        chars += cue.text.len() + 1;
        let seconds = cue.end - cues[first].start;
        let next_too_long = cues
            .get(i + 1)
            .is_some_and(|n| chars + n.text.len() > MAX_CHARS);
        if seconds >= SECONDS || next_too_long || i + 1 == cues.len() {
            out.push(first..i + 1);
            first = i + 1;
            chars = 0;
        }
    }
    out
}

/// The text of the cues `range`, joined by spaces: what is embedded,
/// ranked by words and shown.
pub fn text(cues: &[Cue], range: Range<usize>) -> String {
    let mut text = String::new();
    for cue in &cues[range] {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(cue.text.trim());
    }
    text
}

/// A passage's fingerprint: its text's xxh3, low 32 bits. A passage whose
/// current text has another is not shown (its video changed since it was
/// embedded).
pub fn fingerprint(text: &str) -> u32 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes()) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cue(start: f64, end: f64, text: &str) -> Cue {
        Cue {
            start,
            end,
            text: text.into(),
        }
    }

    #[test]
    fn every_cue_is_in_exactly_one_passage() {
        let cues: Vec<Cue> = (0..100)
            .map(|i| cue(i as f64 * 7.0, i as f64 * 7.0 + 7.0, "some words here"))
            .collect();
        let passages = cut(&cues);
        let mut next = 0;
        for p in &passages {
            assert_eq!(p.start, next);
            assert!(p.end > p.start);
            next = p.end;
        }
        assert_eq!(next, cues.len());
        // 7-second cues: six make 42 s, the first run to reach 40.
        assert_eq!(passages[0], 0..6);
        assert!(cut(&[]).is_empty());
    }

    #[test]
    fn a_passage_closes_before_its_text_outgrows_the_model() {
        let long = "w".repeat(400);
        let cues: Vec<Cue> = (0..5)
            .map(|i| cue(i as f64, i as f64 + 1.0, &long))
            .collect();
        assert_eq!(cut(&cues), vec![0..2, 2..4, 4..5]);
    }
}
