//! `similar_terms`: a word and what speech recognition may have written
//! for it, from the index's vocabulary, each searched in the scope asked
//! for (see `archilyzer_core::query::vocabulary`).

use serde_json::{Map, Value};

use crate::sources::Sources;
use crate::tool::{int_arg, str_arg, ToolResult};
use archilyzer_core::links::clock;
use archilyzer_core::links::LinkTarget;
use archilyzer_core::query::vocabulary::{similar_terms as report, TermReport};
use archilyzer_core::query::FilterArgs;
use archilyzer_core::source::SourceHandle;

pub fn similar_terms(
    sources: &Sources,
    handle: &SourceHandle,
    args: &Map<String, Value>,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let index = sources
        .index_dir(handle)
        .ok_or_else(|| "similar terms come from the index's vocabulary, and this system has no cache folder to find it in (HOME is not set?): start the server with --index DIR or ARCHILYZER_INDEX_DIR naming the index".to_string())?;
    let word = str_arg(args, "word").unwrap_or_default();
    let max_edits = args
        .get("max_edits")
        .map(|_| int_arg(args, "max_edits", 1) as u32);
    // The same channel scope search takes, from the same arguments.
    let scope = super::search::request(args).filters;
    let filters = FilterArgs {
        channels: scope.channels,
        groups: scope.groups,
        ..FilterArgs::default()
    };
    let terms = report(&archive, &index, word, max_edits, &filters).map_err(|e| e.to_string())?;
    let head = format!(
        "# {:?} and its neighbours in the vocabulary\nEach is searched on its own; counts are confirmed on the text. A variant is evidence only if the example shows the same name or word misheard: to search them together, add them to the query or build an alias.\n\n",
        word
    );
    let lines: Vec<String> = terms.iter().map(|t| line(&archive, t)).collect();
    let asked = terms.iter().filter(|t| t.asked).count();
    let mut tail = String::new();
    if asked > 1 {
        tail.push_str(&format!("({asked} words looked up, each with its own neighbours: the phrase's words, not the phrase)\n"));
    }
    if terms.len() == asked {
        tail.push_str("(no other spelling within the edits asked for is in the vocabulary)\n");
    }
    // As many words as the budget holds, in order (the asked words
    // first); the rest are counted.
    let render = |room: usize| {
        let mut out = head.clone();
        let mut shown = 0;
        for l in &lines {
            if shown > 0 && out.len() + l.len() + tail.len() > room {
                break;
            }
            out.push_str(l);
            shown += 1;
        }
        if shown < lines.len() {
            out.push_str(&format!(
                "… {} more word(s) not shown (size budget): raise max_chars, or lower max_edits\n",
                lines.len() - shown
            ));
        }
        out.push_str(&tail);
        let answer = SimilarTerms {
            terms: terms[..shown].to_vec(),
            terms_total: terms.len(),
        };
        (out, super::output::content(&answer))
    };
    Ok(crate::budget::fit_whole(
        crate::budget::of_answer(args, archive.handle()),
        render,
    ))
}

/// `similar_terms`' structured content.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct SimilarTerms {
    /// The words shown: each asked word, then its neighbours.
    pub terms: Vec<TermReport>,
    /// The words found, shown or not.
    pub terms_total: usize,
}

/// One word's line: counts, then the example moment, linked.
fn line(archive: &archilyzer_core::archive::Archive, t: &TermReport) -> String {
    let label = if t.asked { " (asked)" } else { "" };
    let mut s = format!(
        "- **{}**{label}: {} video(s), {} hit(s)",
        t.word, t.videos, t.hits
    );
    if let Some(v) = &t.example {
        if let Some(h) = v.hits.first() {
            let stamp = match h.start {
                Some(start) => match LinkTarget::of(archive, v).moment(start) {
                    Some(link) => format!(" [{}]({link})", clock(start)),
                    None => format!(" [{}]", clock(start)),
                },
                None => format!(" [{}]", h.scope.as_str()),
            };
            s.push_str(&format!(
                " — e.g. \"{}\" ({}){stamp}: {}",
                v.title,
                v.slug,
                crate::budget::clip(&h.labelled_text(), crate::budget::MAX_HIT_CHARS)
            ));
        }
    }
    s.push('\n');
    s
}
