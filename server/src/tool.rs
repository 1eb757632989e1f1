//! The vocabulary every tool shares: how it reports ([`Progress`],
//! [`Tick`]), what it returns ([`ToolResult`], [`Failure`]), the one rule
//! every answer follows ([`finish`]: it ends with `(corpus:
//! <handle>)`, errors included, invariant 5 of archilyzer_core's crate
//! docs, and an error is a result with `isError`, never a failed request),
//! and the helpers that read arguments already validated.
//!
//! A leaf: it imports nothing of this crate, so every tool (in `tools/`,
//! `editor/`, `plans/`, `transcript/`) can import it without a circle.
//! What a tool is given lives one level up, in [`crate::context`].

use serde_json::Value;

/// What a tool answers: text for the agent, the same data structured.
#[derive(Debug, Clone)]
pub struct Output {
    /// The answer's text.
    pub text: String,
    /// Its structured content; `Value::Null` when there is none (a
    /// refusal without facts of the tool's own answer type), and then
    /// the answer carries no `structuredContent` at all.
    pub structured: Value,
    /// Whether it is an error.
    pub is_error: bool,
}

/// One step of a long call (pages of a scan, polls of a job), forwarded
/// as a progress notification to a client that asked for them.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    /// Steps done.
    pub done: f64,
    /// Steps in all, when known.
    pub total: Option<f64>,
    /// What is being done.
    pub message: String,
}

impl Tick {
    /// `done` of `total` pages read.
    pub fn pages(done: usize, total: usize) -> Tick {
        Tick {
            done: done as f64,
            total: Some(total as f64),
            message: format!("{done} of {total} page(s) read"),
        }
    }
}

/// Reports the steps of a long call.
pub type Progress<'a> = &'a mut dyn FnMut(Tick);

/// A tool's failure: the message, and facts to carry in the structured
/// result beside it (a job id to resume, a cooldown).
///
/// A client validates `structuredContent` against the tool's output
/// schema even when `isError` is set (the TypeScript SDK throws a
/// schema error instead of showing the refusal), so `facts`, when not
/// null, must be a value of the tool's own answer type; a refusal
/// without facts carries no structured content ([`finish`]).
#[derive(Debug, Clone)]
pub struct Failure {
    /// What went wrong, and what to do.
    pub message: String,
    /// The tool's answer type filled with what is known (a job id to
    /// resume, a cooldown), or null.
    pub facts: Value,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure {
            message,
            facts: Value::Null,
        }
    }
}

/// `get_transcript`'s structured content, whether the archive or the
/// local editor answered (two modules make it, so it lives here).
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct TranscriptAnswer {
    /// The video's id.
    pub id: String,
    /// Its channel's slug.
    pub channel: String,
    /// False when read off the editor's disk: not in the archive yet.
    pub published: bool,
    /// Its caption lines in all.
    pub cues: usize,
    /// Its title (from the archive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The site that publishes it (from the archive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// The caption lines skipped (from the archive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// The caption lines shown (from the archive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_shown: Option<usize>,
    /// Where the next call starts; null on the last part.
    pub next_offset: Option<usize>,
    /// Which editor file was read (from the editor).
    #[serde(rename = "editorSource", skip_serializing_if = "Option::is_none")]
    pub editor_source: Option<String>,
    /// Cues without a usable time, left out (from the editor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub untimed: Option<usize>,
}

/// What a tool body returns before the corpus trailer is added.
pub type ToolResult = Result<(String, Value), Failure>;

/// The characters the corpus trailer adds to an answer on `corpus`
/// (its text line and its structured field): tools that fill their
/// budget leave this much room.
pub fn trailer_chars(corpus: &str) -> usize {
    let text = trailer(corpus).chars().count();
    let field =
        serde_json::to_string(corpus).map_or(0, |s| s.chars().count()) + ",\"corpus\":".len();
    text + field
}

/// The line every answer's text ends with, naming the corpus that
/// answered (invariant 5).
pub fn trailer(corpus: &str) -> String {
    format!("\n\n(corpus: {corpus})")
}

/// The answer the client gets: `result` with the corpus trailer.
pub fn finish(result: ToolResult, corpus: &str) -> Output {
    match result {
        Ok((text, mut structured)) => {
            if let Value::Object(map) = &mut structured {
                map.insert("corpus".into(), Value::String(corpus.to_string()));
            }
            Output {
                text: format!("{}{}", text.trim_end(), trailer(corpus)),
                structured,
                is_error: false,
            }
        }
        Err(Failure { message, facts }) => {
            let structured = match facts {
                Value::Object(mut map) => {
                    map.insert("corpus".into(), Value::String(corpus.to_string()));
                    Value::Object(map)
                }
                _ => Value::Null,
            };
            Output {
                text: format!("Error: {message}{}", trailer(corpus)),
                structured,
                is_error: true,
            }
        }
    }
}

pub use archilyzer_core::typo::nearest;
