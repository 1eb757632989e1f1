//! Which videos of a transcript page can hold a hit, decided on the
//! page's raw bytes, so that confirming a page read whole parses only
//! those videos instead of all of them.
//!
//! The index gives where each video sits in the page file (its span, as
//! built); the query gives words one of which every match must hold
//! ([`super::terms::Terms::required_words`]). A video is a *candidate*
//! when its bytes hold one of those words in any ASCII letter case, or a
//! byte that could make one after normalisation: a backslash (a JSON
//! escape can spell any letter) or a non-ASCII char that does not only
//! separate words ([`crate::text::only_separates`]).
//!
//! # Why no match is lost
//!
//! Normalising ASCII only lowercases it, and a char that only separates
//! words acts as ASCII punctuation does, so text made of those holds a
//! word (as a token) only where the word's bytes occur in some letter
//! case. A phrase matches only where each of its words is a token, and an
//! alias or fuzzy variant is one of the phrases the words were taken
//! from. So a stretch of the page with none of the words and no other
//! byte cannot hold a match, whatever video it belongs to.
//!
//! What the index could get wrong is only *where videos are*, if the file
//! changed since the build. That is checked on the bytes read, not
//! trusted: the spans must be ascending and inside the page, each must
//! open with `{` and close with `}`, only commas and white space may lie
//! between two, the page must open its `videos` array just before the
//! first and close it just after the last, and every word or byte that
//! makes a video a candidate must lie inside a span. Each candidate is
//! then parsed as one video object. Any failure sends the caller to
//! parse the whole page. A non-candidate stretch is never parsed, and
//! need not be one video: whatever it holds cannot match.
//!
//! A field searched outside the page (the channel's name, in the
//! `metadata` scope) is the caller's to check.

use std::ops::Range;

use super::prefilter::{non_ascii_offsets, offsets_ignoring_ascii_case, Found};

/// The share of a page's first videos that, once candidates, gives the
/// page up to a whole parse (a word in most videos): sorting out the few
/// others would cost more than it saves.
const MOSTLY: (usize, usize) = (3, 4);

/// The videos of `page` (by position in `layout`) that can hold a hit of
/// a query each of whose matches holds one of `words`, ascending, with
/// every offset of those words and of the page's non-ASCII bytes (what
/// the matcher's [`super::prefilter::PageHint`] would search the page for again); `None`
/// when the layout does not fit the bytes, or when most videos are
/// candidates (judged on the first eighth of the page), and the page is
/// better parsed whole.
pub fn candidates(
    page: &[u8],
    layout: &[Range<u64>],
    words: &[String],
) -> Option<(Vec<usize>, Found)> {
    let spans = fitted(page, layout)?;
    let mut marked = vec![false; spans.len()];
    let mut found = Found {
        words: words
            .iter()
            .map(|w| (w.as_bytes().to_vec(), Vec::new()))
            .collect(),
        non_ascii: Vec::new(),
    };
    let cut = page.len() / 8;
    for part in [0..cut, cut..page.len()] {
        mark_part(page, part.clone(), &spans, &mut found, &mut marked)?;
        let seen = spans.partition_point(|s| s.end <= part.end);
        let hit = marked[..seen].iter().filter(|&&m| m).count();
        if part.start == 0 && seen >= 8 && hit * MOSTLY.1 >= seen * MOSTLY.0 {
            return None;
        }
    }
    Some(((0..spans.len()).filter(|&i| marked[i]).collect(), found))
}

/// Marks the spans holding, in the bytes of `part` (a word may run on
/// past its end), a required word or a byte that could make one, adding
/// the offsets in `part` of each word and non-ASCII byte to `found`;
/// `None` when one lies outside every span.
fn mark_part(
    page: &[u8],
    part: Range<usize>,
    spans: &[Range<usize>],
    found: &mut Found,
    marked: &mut [bool],
) -> Option<()> {
    let mut mark = |at: Range<usize>| -> Option<()> {
        let i = spans.partition_point(|s| s.end <= at.start);
        let span = spans.get(i)?;
        (span.start <= at.start && at.end <= span.end).then(|| marked[i] = true)
    };
    let mut block = Vec::new();
    for (word, offsets) in &mut found.words {
        let reach = (part.end + word.len().saturating_sub(1)).min(page.len());
        let at_part = offsets_ignoring_ascii_case(&page[part.start..reach], word, &mut block);
        for at in at_part.into_iter().map(|at| part.start + at) {
            if at < part.end {
                mark(at..at + word.len())?;
                offsets.push(at);
            }
        }
    }
    let bytes = &page[part.clone()];
    for at in memchr::memchr_iter(b'\\', bytes) {
        mark(part.start + at..part.start + at + 1)?;
    }
    let high = non_ascii_offsets(bytes, part.start);
    let from = found.non_ascii.len();
    found.non_ascii.extend(high);
    for (at, c) in chars_at(page, &found.non_ascii[from..]) {
        if !crate::text::only_separates(c) {
            mark(at..at + c.len_utf8())?;
        }
    }
    Some(())
}

/// The layout as offsets into `page`, if it fits the bytes (see the
/// module's proof).
fn fitted(page: &[u8], layout: &[Range<u64>]) -> Option<Vec<Range<usize>>> {
    let spans: Vec<Range<usize>> = layout
        .iter()
        .map(|r| Some(usize::try_from(r.start).ok()?..usize::try_from(r.end).ok()?))
        .collect::<Option<_>>()?;
    let (first, last) = (spans.first()?, spans.last()?);
    let blank = |b: &u8| b.is_ascii_whitespace();
    let before = page.get(..first.start)?.trim_ascii_end();
    let after = page.get(last.end..)?;
    let closes = after.iter().filter(|b| !blank(b)).copied().eq([b']', b'}']);
    if !(before.ends_with(b"[")
        && before[..before.len() - 1]
            .trim_ascii_end()
            .ends_with(b"\"videos\":")
        && closes)
    {
        return None;
    }
    let mut end = first.start;
    for s in &spans {
        let gap = page.get(end..s.start)?;
        let whole = page.get(s.clone())?;
        let separated = end == first.start || gap.iter().filter(|b| !blank(b)).eq([&b',']);
        if !separated || whole.first() != Some(&b'{') || whole.last() != Some(&b'}') {
            return None;
        }
        end = s.end;
    }
    Some(spans)
}

/// Each char beginning at one of `offsets` (non-ASCII bytes of `page`),
/// with its offset (a byte that does not begin a char is skipped; invalid
/// UTF-8 is the parser's to refuse).
pub(super) fn chars_at<'a>(
    page: &'a [u8],
    offsets: &'a [usize],
) -> impl Iterator<Item = (usize, char)> + 'a {
    offsets
        .iter()
        .copied()
        .filter(move |&at| page[at] >= 0xC0)
        .filter_map(move |at| {
            let len = match page[at] {
                b if b >= 0xF0 => 4,
                b if b >= 0xE0 => 3,
                _ => 2,
            };
            let c = std::str::from_utf8(page.get(at..at + len)?)
                .ok()?
                .chars()
                .next()?;
            Some((at, c))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of `videos` (JSON objects) and its layout.
    fn page(videos: &[&str]) -> (Vec<u8>, Vec<Range<u64>>) {
        let mut bytes = b"{\"channel\":\"c\",\"page\":1,\"videos\":[".to_vec();
        let mut layout = Vec::new();
        for (i, v) in videos.iter().enumerate() {
            if i > 0 {
                bytes.push(b',');
            }
            let start = bytes.len() as u64;
            bytes.extend_from_slice(v.as_bytes());
            layout.push(start..bytes.len() as u64);
        }
        bytes.extend_from_slice(b"]}");
        (bytes, layout)
    }

    #[test]
    fn a_video_is_left_out_only_when_its_bytes_cannot_make_a_word() {
        let (bytes, layout) = page(&[
            r#"{"slug":"a","cues":[[0,1,"Reinforcement Learning"]]}"#,
            r#"{"slug":"b","cues":[[0,1,"nothing here’s “quoted” — at all"]]}"#,
            r#"{"slug":"c","cues":[[0,1,"reinforcem\u0065nt"]]}"#,
            r#"{"slug":"d","cues":[[0,1,"reinforcément"]]}"#,
            r#"{"slug":"e","cues":[[0,1,"REINFORCEMENT"]]}"#,
        ]);
        let words = ["reinforcement".to_string()];
        assert_eq!(
            candidates(&bytes, &layout, &words).map(|(v, _)| v),
            Some(vec![0, 2, 3, 4]),
            "b holds only separators; c an escape, d a letter that folds"
        );
    }

    #[test]
    fn a_layout_that_does_not_fit_the_bytes_reads_the_whole_page() {
        let (bytes, layout) = page(&[r#"{"slug":"a"}"#, r#"{"slug":"b"}"#]);
        let words = ["slug".to_string()];
        assert_eq!(
            candidates(&bytes, &layout, &words).map(|(v, _)| v),
            Some(vec![0, 1])
        );
        let header = ["page".to_string()];
        assert_eq!(
            candidates(&bytes, &layout, &header).map(|(v, _)| v),
            None,
            "a word outside every video: the page is read whole"
        );
        let shifted: Vec<Range<u64>> = layout.iter().map(|r| r.start + 1..r.end).collect();
        assert!(
            candidates(&bytes, &shifted, &words).is_none(),
            "not an object"
        );
        assert!(
            candidates(&bytes, &layout[..1], &words).is_none(),
            "a video left out"
        );
        let mut longer = bytes.clone();
        longer.splice(
            layout[1].start as usize..layout[1].start as usize,
            *b"{\"slug\":\"x\"},",
        );
        assert!(
            candidates(&longer, &layout, &words).is_none(),
            "a video put in"
        );
    }

    #[test]
    fn the_offsets_found_are_every_one_the_page_hint_would_search_for() {
        let videos: Vec<String> = (0..40)
            .map(|i| {
                format!(r#"{{"slug":"v{i}","cues":[[0,1,"Café LEARNING {i} learning, naïve"]]}}"#)
            })
            .collect();
        let refs: Vec<&str> = videos.iter().map(String::as_str).collect();
        let (bytes, layout) = page(&refs);
        let words = ["learning".to_string(), "cafe".to_string()];
        let (_, found) = candidates(&bytes, &layout, &words).expect("the layout fits");
        let mut block = Vec::new();
        for (word, offsets) in &found.words {
            assert_eq!(
                offsets,
                &offsets_ignoring_ascii_case(&bytes, word, &mut block)
            );
        }
        assert_eq!(found.words[0].1.len(), 80);
        assert_eq!(
            found.non_ascii,
            non_ascii_offsets(&bytes, 0).collect::<Vec<_>>()
        );
    }
}
