//! `similar_terms`: a word and what speech recognition may have written
//! for it, from the index's vocabulary, each searched in the scope asked
//! for (see `archilyzer_core::query::vocabulary`).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::sources::Sources;
use crate::tool::ToolResult;
use archilyzer_core::links::clock;
use archilyzer_core::links::LinkTarget;
use archilyzer_core::query::vocabulary::{similar_terms as report, TermReport};
use archilyzer_core::query::FilterArgs;
use archilyzer_core::source::SourceHandle;

/// `similar_terms`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SimilarArgs {
    /// The word, or a phrase: each of its words is looked up with its own
    /// neighbours ("dan harmon": dan and its neighbours, then harmon and
    /// its).
    pub word: String,
    /// Edits a variant may be away (default 1, or 2 for a word of 8
    /// letters or more).
    #[schemars(range(min = 1, max = 2))]
    #[serde(default)]
    pub max_edits: Option<u32>,
    /// Channel slugs or names (with groups: either).
    #[serde(default)]
    pub channels: Vec<String>,
    /// One of channels.
    #[serde(default)]
    pub channel: Option<String>,
    /// Group ids or names.
    #[serde(default)]
    pub groups: Vec<String>,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
}

/// The `similar_terms` tool.
pub fn similar_terms(
    sources: &Sources,
    handle: &SourceHandle,
    args: &SimilarArgs,
    budget: usize,
) -> ToolResult {
    let archive = sources.archive(handle)?;
    let index = sources
        .index_dir(handle)
        .ok_or_else(|| "similar terms come from the index's vocabulary, and this system has no cache folder to find it in (HOME is not set?): start the server with --index DIR or ARCHILYZER_INDEX_DIR naming the index".to_string())?;
    let word = args.word.as_str();
    let max_edits = args.max_edits;
    // The channel scope search takes, the singular form added as search
    // adds it.
    let filters = FilterArgs {
        channels: args.channels.iter().chain(&args.channel).cloned().collect(),
        groups: args.groups.clone(),
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
        (out, crate::output::content(&answer))
    };
    Ok(crate::budget::fit_whole(
        crate::budget::of_answer(budget, archive.handle()),
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
