//! `find_passages`: the passages nearest a question by meaning, by words,
//! or both fused (`archilyzer_core::passages` ranks; this lays the answer
//! out within the budget: whole passages first, then shorter texts, then
//! fewer passages).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::tool::ToolResult;
use archilyzer_core::passages::{self, By, Found, Passage, PassageQuery};
use archilyzer_core::query::filters::Filters;
use archilyzer_core::query::CallFilters;
use archilyzer_core::source::SourceHandle;

/// The most passages one call gives.
pub const MOST_PASSAGES: usize = 50;

/// `find_passages`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PassagesArgs {
    /// A subject, question or paraphrase, in any words.
    pub query: String,
    /// The ranking: `both` (default) fuses the other two by reciprocal
    /// rank, its words side also searching for words of the best passages
    /// by meaning.
    #[serde(default)]
    pub by: By,
    /// Passages to give, best first.
    #[schemars(range(min = 1, max = MOST_PASSAGES))]
    #[serde(default = "ten")]
    pub limit: usize,
    /// At most one passage per video.
    #[serde(default)]
    pub one_per_video: bool,
    /// The corpus.
    #[serde(flatten)]
    pub source: super::args::Source,
    /// The filters.
    #[serde(flatten)]
    pub filters: CallFilters,
}

fn ten() -> usize {
    10
}

/// `find_passages`' answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PassagesAnswer {
    /// The passages shown, best first.
    pub passages: Vec<Passage>,
    /// How many were found before the size budget (at most `limit`).
    pub found: usize,
    /// The ranking used.
    pub by: By,
    /// The sentence model the passages were embedded with.
    pub model: String,
    /// Passages in scope (after the filters).
    pub in_scope: u32,
    /// Passages skipped because their video changed since they were
    /// embedded (`archilyzer-index build --embed` brings them back).
    pub stale: u32,
    /// Under `both`, the words the words side searched for besides the
    /// query's, taken from the best passages by meaning.
    pub feedback: Vec<String>,
    /// What the ranking is and is not.
    pub note: String,
}

/// What every answer says of itself.
const NOTE: &str = "Ranked by meaning and words; nothing here is a count. For every place a word is said, and exact counts, use search_transcripts or enumerate_matches.";

/// The `find_passages` tool.
pub fn find_passages(
    ctx: &Context,
    handle: &SourceHandle,
    args: &PassagesArgs,
    budget: usize,
) -> ToolResult {
    let sources = &ctx.sources;
    let archive = sources.archive(handle)?;
    let dir = sources
        .index_dir(handle)
        .ok_or_else(|| "no index folder is known for this corpus: build one with `archilyzer-index build --embed`".to_string())?;
    let filters = Filters::resolve(&args.filters.0, &archive).map_err(|e| e.to_string())?;
    let store = ctx.passages.store(&dir)?;
    let embedder = match args.by {
        By::Words => None,
        By::Meaning | By::Both => Some(ctx.passages.embedder()?),
    };
    let q = PassageQuery {
        text: &args.query,
        by: args.by,
        limit: args.limit.clamp(1, MOST_PASSAGES),
        one_per_video: args.one_per_video,
        filters: &filters,
    };
    let found = passages::find(&archive, &dir, &store, embedder.as_deref(), &q)
        .map_err(|e| e.to_string())?;
    Ok(lay_out(
        &found,
        crate::budget::of_answer(budget, archive.handle()),
    ))
}

/// `found` within `budget`: every passage with its whole text if that
/// fits, else texts cut to the same length, else fewer passages.
fn lay_out(found: &Found, budget: usize) -> (String, serde_json::Value) {
    crate::budget::fit_whole(budget, |room| {
        let (shown, text_chars) = shape(found, room);
        let passages: Vec<Passage> = found.passages[..shown]
            .iter()
            .map(|p| Passage {
                text: crate::budget::clip(&p.text, text_chars),
                ..p.clone()
            })
            .collect();
        let answer = PassagesAnswer {
            passages,
            found: found.passages.len(),
            by: found.by,
            model: found.model.clone(),
            in_scope: found.in_scope,
            stale: found.stale,
            feedback: found.feedback.clone(),
            note: NOTE.into(),
        };
        (render(&answer), crate::output::content(&answer))
    })
}

/// How many passages, and how many characters of each text, fit
/// `room`: a passage costs its text twice (in the text and in the
/// structured content) besides its other fields; passages go only when
/// their texts would fall under [`SHORTEST_TEXT`].
fn shape(found: &Found, room: usize) -> (usize, usize) {
    const FIELDS: usize = 600;
    const SHORTEST_TEXT: usize = 200;
    let n = found.passages.len();
    let room = room.saturating_sub(NOTE.len() * 2 + 300);
    let text_for = |shown: usize| (room / shown.max(1)).saturating_sub(FIELDS) / 2;
    let shown = (1..=n)
        .rev()
        .find(|&k| text_for(k) >= SHORTEST_TEXT)
        .unwrap_or(n.min(1));
    (shown, text_for(shown).max(40))
}

fn render(a: &PassagesAnswer) -> String {
    let mut out = format!(
        "# {} passage(s) by {} ({}), of {} in scope\n",
        a.passages.len(),
        a.by.as_str(),
        a.model,
        a.in_scope
    );
    if let Some(line) = passages::find::feedback_line(&a.feedback) {
        out.push_str(&format!("({line})\n"));
    }
    if a.passages.len() < a.found {
        out.push_str(&format!(
            "{} more not shown (size budget): raise max_chars, or lower limit\n",
            a.found - a.passages.len()
        ));
    }
    for (i, p) in a.passages.iter().enumerate() {
        out.push_str(&format!(
            "\n{}. {}, score {:.4} [{}]{}\n",
            i + 1,
            p.heading(),
            p.score,
            p.ranks(),
            p.link.as_ref().map(|l| format!(" {l}")).unwrap_or_default()
        ));
        if !p.words.is_empty() {
            out.push_str(&format!("words: {}\n", p.words.join(", ")));
        }
        out.push_str(&p.text);
        out.push('\n');
    }
    if a.stale > 0 {
        out.push_str(&format!(
            "\n{} passage(s) skipped: their videos changed since they were embedded (archilyzer-index build --embed).\n",
            a.stale
        ));
    }
    out.push_str(&format!("\n{}\n", a.note));
    out
}
