//! Confirming a video from the cues around where a match can begin: the
//! video's text is walked once ([`crate::format::cue_layout`]), its
//! members other than the cues are parsed, and of its cues only those
//! where a match can begin are parsed, each with the cues such a match
//! can reach. A phrase said five times in a video of a thousand cues then
//! parses a few dozen of them, not a thousand.
//!
//! # Why no match is lost
//!
//! Every matcher the video is judged by (the query's, its aliases' and
//! fuzzy variants', the excludes') is a phrase whose first word is ASCII,
//! or nothing is skimmed ([`super::terms::Terms::anchors`]). A match
//! begins at a token that is that word (or begins with it, for `word*`),
//! so the cue it begins in is a *candidate*, one of:
//!
//! - a cue whose text, as written, holds the word's bytes in some letter
//!   case (normalising ASCII only lowercases it, and a char that only
//!   separates words acts as ASCII punctuation does; see
//!   [`super::candidates`]);
//! - a cue whose text holds an escape (which can spell any letter) or a
//!   char outside ASCII that does more than separate words.
//!
//! From each candidate a window runs on over the following cues until
//! they hold as many words as the longest phrase, or the cues end: as far
//! as a match beginning in the candidate can reach (the matcher's own
//! windows, [`super::matcher`], reach the same way). Windows that overlap
//! or touch are merged into *runs*, and each run is matched as a field of
//! its own, numbered from its first cue. So every match lies inside one
//! run and is found there, at its own cue's number, and a run, being
//! consecutive cues of the video, finds nothing the video does not say.
//! The members outside the cues (title, description, tags, facts) are
//! parsed and matched whole, and the captions' length counts every cue
//! (an unescaped text's length is its length as written).
//!
//! A video whose text the walk cannot vouch for, or whose cues are mostly
//! candidates, is parsed whole instead.

use std::ops::Range;

use super::candidates::chars_at;
use super::matcher::Matcher;
use super::prefilter::{non_ascii_offsets, offsets_of_words};
use crate::format::cue_layout::{RawCue, Walked};
use crate::format::{CueView, VideoView};

/// What a match can begin with, over every matcher a video is judged by:
/// the first words (lower-case ASCII, each once) and the most words any
/// phrase has.
#[derive(Debug, Default, Clone)]
pub struct Anchors {
    /// The phrases' first words.
    pub words: Vec<Vec<u8>>,
    /// The length in words of the longest phrase.
    pub longest: usize,
}

impl Anchors {
    /// The anchors of `matchers`; `None` when one is a regex or begins
    /// with a word outside ASCII.
    pub fn of<'m>(matchers: impl Iterator<Item = &'m Matcher>) -> Option<Anchors> {
        let mut anchors = Anchors::default();
        for m in matchers {
            let Matcher::Phrase(p) = m else {
                return None;
            };
            let first = p.words.first().filter(|w| w.is_ascii())?;
            if !anchors.words.iter().any(|w| w == first.as_bytes()) {
                anchors.words.push(first.as_bytes().to_vec());
            }
            anchors.longest = anchors.longest.max(p.words.len());
        }
        Some(anchors)
    }
}

/// A run of a video's cues held by a skimmed view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Window {
    /// The number of the run's first cue in the video.
    pub first: usize,
    /// Where the run's cues sit in the view's `cues`.
    pub at: Range<usize>,
}

/// A video's bytes, walked when the walk vouches for them.
pub(super) enum Laid<'s> {
    /// Walked: the text, its members with the cues' array emptied, and
    /// where each cue lies in the text.
    Walked(Walked<'s>),
    /// To be parsed whole.
    Whole(&'s [u8]),
}

/// A video read for confirming.
pub(super) enum Read<'a> {
    /// Parsed whole: every cue is in the view.
    Whole(VideoView<'a>),
    /// Skimmed: the view holds the cues of `windows`, in order, and
    /// `caption_bytes` is the length of all its captions.
    Skimmed {
        view: VideoView<'a>,
        windows: Vec<Window>,
        caption_bytes: u32,
    },
}

/// What confirming needs of a video: its view, and, when the view holds
/// only some runs of its cues, those runs and the length of all of them.
pub(super) trait Held {
    /// The video as parsed.
    fn view(&self) -> &VideoView<'_>;
    /// The runs the view holds and the captions' length; `None` when it
    /// holds every cue.
    fn runs(&self) -> Option<(&[Window], u32)>;
}

impl Held for VideoView<'_> {
    fn view(&self) -> &VideoView<'_> {
        self
    }
    fn runs(&self) -> Option<(&[Window], u32)> {
        None
    }
}

impl Held for Read<'_> {
    fn view(&self) -> &VideoView<'_> {
        match self {
            Read::Whole(view) | Read::Skimmed { view, .. } => view,
        }
    }
    fn runs(&self) -> Option<(&[Window], u32)> {
        match self {
            Read::Whole(_) => None,
            Read::Skimmed {
                windows,
                caption_bytes,
                ..
            } => Some((windows, *caption_bytes)),
        }
    }
}

/// `span` (one video object) walked, or left to be parsed whole.
pub(super) fn lay(span: &[u8]) -> Laid<'_> {
    let walked = simdutf8::basic::from_utf8(span).ok().and_then(Walked::of);
    walked.map_or(Laid::Whole(span), Laid::Walked)
}

/// The video `laid` holds, skimmed around `anchors` when it was walked and
/// that pays, else parsed whole; `None` when its bytes do not parse as a
/// video.
pub(super) fn read<'a>(
    laid: &'a Laid<'_>,
    anchors: &Anchors,
    block: &mut Vec<u8>,
) -> Option<Read<'a>> {
    match laid {
        Laid::Walked(walked) => {
            let skimmed = skim(walked, anchors, block);
            // The text is known to be UTF-8: parsed as a `str`, not checked again.
            skimmed.or_else(|| serde_json::from_str(walked.text).ok().map(Read::Whole))
        }
        Laid::Whole(span) => crate::format::from_json(span).ok().map(Read::Whole),
    }
}

/// The skimmed video (see the module's proof); `None` when most cues are
/// candidates, or a part does not parse.
fn skim<'a>(walked: &'a Walked<'_>, anchors: &Anchors, block: &mut Vec<u8>) -> Option<Read<'a>> {
    let (text, cues) = (walked.text, &walked.cues);
    let candidates = candidates(text.as_bytes(), cues, anchors, block);
    if candidates.len() * 2 > cues.len() {
        return None;
    }
    let mut view = walked.view()?;
    let runs = runs(walked, &candidates, anchors.longest)?;
    let mut parsed = Vec::new();
    let mut windows = Vec::with_capacity(runs.len());
    for run in runs {
        let from = parsed.len();
        for cue in &cues[run.clone()] {
            parsed.push(serde_json::from_str::<CueView>(&text[cue.whole.clone()]).ok()?);
        }
        windows.push(Window {
            first: run.start,
            at: from..parsed.len(),
        });
    }
    view.cues = parsed;
    let lengths = cues.iter().map(|c| match c.escaped {
        false => Some(c.text.len()),
        true => walked.cue_text(c).map(|t| t.len()),
    });
    let caption_bytes: usize = lengths.sum::<Option<usize>>()?;
    Some(Read::Skimmed {
        view,
        windows,
        caption_bytes: u32::try_from(caption_bytes).unwrap_or(u32::MAX),
    })
}

/// The cues (by number, ascending) where a match can begin.
fn candidates(text: &[u8], cues: &[RawCue], anchors: &Anchors, block: &mut Vec<u8>) -> Vec<usize> {
    let mut marked: Vec<bool> = cues.iter().map(|c| c.escaped).collect();
    let mut mark = |at: usize| {
        let i = cues.partition_point(|c| c.text.end <= at);
        if cues.get(i).is_some_and(|c| c.text.start <= at) {
            marked[i] = true;
        }
    };
    let words: Vec<&[u8]> = anchors.words.iter().map(Vec::as_slice).collect();
    for at in offsets_of_words(text, &words, block).into_iter().flatten() {
        mark(at);
    }
    let high: Vec<usize> = non_ascii_offsets(text, 0).collect();
    for (at, c) in chars_at(text, &high) {
        if !crate::text::only_separates(c) {
            mark(at);
        }
    }
    (0..cues.len()).filter(|&i| marked[i]).collect()
}

/// The runs of cues to parse: each candidate's window (it and the cues
/// after it until they hold `longest` words), merged where they overlap
/// or touch; `None` when an escaped text does not parse.
fn runs(walked: &Walked, candidates: &[usize], longest: usize) -> Option<Vec<Range<usize>>> {
    let cues = &walked.cues;
    let mut runs: Vec<Range<usize>> = Vec::new();
    for &i in candidates {
        let mut end = i + 1;
        let mut words = 0;
        while end < cues.len() && words < longest {
            crate::text::for_each_token(&walked.cue_text(&cues[end])?, |_, _| words += 1);
            end += 1;
        }
        match runs.last_mut() {
            Some(run) if i <= run.end => run.end = run.end.max(end),
            _ => runs.push(i..end),
        }
    }
    Some(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors(words: &[&str], longest: usize) -> Anchors {
        Anchors {
            words: words.iter().map(|w| w.as_bytes().to_vec()).collect(),
            longest,
        }
    }

    /// A video of `cues`' texts, as the archive writes it.
    fn video(cues: &[&str]) -> String {
        let cues: Vec<String> = cues
            .iter()
            .enumerate()
            .map(|(i, t)| format!("[{i}.5,{},{}]", i + 1, serde_json::to_string(t).unwrap()))
            .collect();
        format!(
            r#"{{"slug":"s","title":"Speech in the title","description":"speech","cues":[{}]}}"#,
            cues.join(",")
        )
    }

    fn skimmed(json: &str, a: &Anchors) -> (Vec<Window>, Vec<String>, u32) {
        let laid = lay(json.as_bytes());
        match read(&laid, a, &mut Vec::new()).unwrap() {
            Read::Skimmed {
                view,
                windows,
                caption_bytes,
            } => (
                windows,
                view.cues.iter().map(|c| c.text.to_string()).collect(),
                caption_bytes,
            ),
            Read::Whole(_) => panic!("parsed whole"),
        }
    }

    #[test]
    fn a_window_runs_on_until_the_cues_after_its_candidate_hold_the_longest_phrase() {
        let texts = [
            "nothing",
            "nothing",
            "they said SPEECH",
            "",
            "recognition is",
            "hard",
            "nothing",
            "nothing",
            "nothing",
            "nothing",
            "nothing",
        ];
        let (windows, cues, _) = skimmed(&video(&texts), &anchors(&["speech"], 2));
        assert_eq!(windows, vec![Window { first: 2, at: 0..3 }]);
        assert_eq!(cues, ["they said SPEECH", "", "recognition is"]);
    }

    #[test]
    fn escapes_and_letters_outside_ascii_make_candidates_and_separators_do_not() {
        let texts = [
            "sp\u{e9}ech",
            "x",
            "x",
            "s\"peech\"",
            "x",
            "x",
            "— “quoted” —",
            "x",
            "x",
            "x",
            "x",
        ];
        let (windows, _, length) = skimmed(&video(&texts), &anchors(&["speech"], 1));
        let firsts: Vec<(usize, Range<usize>)> =
            windows.iter().map(|w| (w.first, w.at.clone())).collect();
        assert_eq!(firsts, [(0, 0..2), (3, 2..4)]);
        let all: usize = texts.iter().map(|t| t.len()).sum();
        assert_eq!(length as usize, all);
    }

    #[test]
    fn a_video_whose_cues_are_mostly_candidates_is_parsed_whole() {
        let json = video(&["speech", "speech", "x"]);
        let laid = lay(json.as_bytes());
        let read = read(&laid, &anchors(&["speech"], 1), &mut Vec::new()).unwrap();
        assert!(matches!(read, Read::Whole(v) if v.cues.len() == 3));
    }

    #[test]
    fn a_regex_or_a_phrase_beginning_outside_ascii_anchors_nothing() {
        let m = |q: &str| Matcher::phrase(q).unwrap();
        let regex = Matcher::regex("spe+ch", false).unwrap();
        assert!(Anchors::of([m("speech"), regex].iter()).is_none());
        assert!(Anchors::of([m("speech"), m("café au lait")].iter()).is_some());
        assert!(Anchors::of([m("speech"), m("москва река")].iter()).is_none());
        let a = Anchors::of([m("speech recognition"), m("speech"), m("a b c")].iter()).unwrap();
        assert_eq!(
            (a.words, a.longest),
            (vec![b"speech".to_vec(), b"a".to_vec()], 3)
        );
    }

    use crate::query::prefilter::property::{PIECES, QUERIES};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_skimmed_video_finds_every_hit_the_whole_video_does(
            cues in prop::collection::vec(prop::collection::vec(0..PIECES.len(), 0..5), 1..40),
            asked in prop::collection::vec(0..QUERIES.len(), 1..3),
        ) {
            let texts: Vec<String> = cues.iter().map(|p| {
                p.iter().map(|&i| PIECES[i]).collect::<Vec<_>>().join(" ")
            }).collect();
            let cues_json: Vec<String> = texts.iter().enumerate()
                .map(|(i, t)| format!("[{i},{},\"{t}\"]", i + 1)).collect();
            let json = format!(r#"{{"slug":"v","title":"t","cues":[{}]}}"#, cues_json.join(","));
            let matchers: Vec<Matcher> = asked.iter().map(|&q| Matcher::phrase(QUERIES[q]).unwrap()).collect();
            let anchors = Anchors::of(matchers.iter()).unwrap();
            let laid = lay(json.as_bytes());
            let Some(Read::Skimmed { view, windows, caption_bytes }) = read(&laid, &anchors, &mut Vec::new()) else {
                return Ok(());
            };
            let whole: crate::format::VideoView = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(caption_bytes, whole.caption_bytes());
            let mut scratch = crate::query::matcher::TokenStream::default();
            for m in &matchers {
                let all = m.hits(whole.cues.iter().map(|c| c.text.as_ref()), &mut scratch);
                let mut found = Vec::new();
                for w in &windows {
                    let run = view.cues[w.at.clone()].iter().map(|c| c.text.as_ref());
                    found.extend(m.hits(run, &mut scratch).into_iter().map(|i| w.first + i));
                }
                prop_assert_eq!(&all, &found, "{:?} in {}", m, json);
            }
        }
    }
}
