//! The page-wide prefilter (`query::prefilter`) never changes a hit: on
//! random pages of cues (ASCII in any case, non-ASCII letters that fold
//! into the query's words, JSON escapes that make the parser copy a text),
//! every phrase finds the same cues with the page set as without it.

use crate::format::PageView;
use crate::query::matcher::{Matcher, TokenStream};
use crate::query::prefilter::PageHint;
use proptest::prelude::*;
use std::sync::Arc;

/// Pieces of cue text, as written in the JSON page.
pub(crate) const PIECES: &[&str] = &[
    "transformers",
    "Transformers",
    "TRANSFORMERS",
    "trans",
    "formers",
    "caf\u{e9}",
    "\u{17f}tar",
    "star",
    "STAR!",
    "x",
    "Transformer\\u0073",
    "say \\\"x\\\"",
    "-",
    "",
];

pub(crate) const QUERIES: &[&str] = &[
    "transformers",
    "transformers x",
    "star",
    "cafe",
    "trans*",
    "x transformers",
    "formers star",
];

fn page_json(cues: &[Vec<usize>]) -> String {
    let cues: Vec<String> = cues
        .iter()
        .enumerate()
        .map(|(i, pieces)| {
            let text: Vec<&str> = pieces.iter().map(|&p| PIECES[p]).collect();
            format!("[{i},{},\"{}\"]", i + 1, text.join(" "))
        })
        .collect();
    format!(
        r#"{{"channel":"c","page":1,"videos":[{{"slug":"v","title":"t","cues":[{}]}}]}}"#,
        cues.join(",")
    )
}

proptest! {
    #[test]
    fn the_page_prefilter_never_changes_a_hit(
        cues in prop::collection::vec(prop::collection::vec(0..PIECES.len(), 0..5), 1..30),
    ) {
        let json: crate::query::prefilter::Shared = Arc::new(page_json(&cues).into_bytes());
        let page: PageView = serde_json::from_slice((*json).as_ref()).unwrap();
        let texts: Vec<&str> = page.videos[0].cues.iter().map(|c| c.text.as_ref()).collect();
        let mut scratch = TokenStream::default();
        for q in QUERIES {
            let m = Matcher::phrase(q).unwrap();
            let alone = m.hits(texts.iter().copied(), &mut scratch);
            let hinted = PageHint::within(&mut scratch, &json, None, |s| {
                m.hits(texts.iter().copied(), s)
            });
            prop_assert_eq!(&alone, &hinted, "query {:?} on {}", q, String::from_utf8_lossy((*json).as_ref()));
        }
    }
}

#[test]
fn an_escaped_text_is_copied_and_still_found() {
    let json: crate::query::prefilter::Shared =
        Arc::new(page_json(&[vec![10], vec![0]]).into_bytes());
    let page: PageView = serde_json::from_slice((*json).as_ref()).unwrap();
    let texts: Vec<&str> = page.videos[0]
        .cues
        .iter()
        .map(|c| c.text.as_ref())
        .collect();
    assert_eq!(texts[0], "Transformers", "the escape is undone in a copy");
    let m = Matcher::phrase("transformers").unwrap();
    let mut scratch = TokenStream::default();
    let hits = PageHint::within(&mut scratch, &json, None, |s| {
        m.hits(texts.iter().copied(), s)
    });
    assert_eq!(hits, [0, 1]);
}
