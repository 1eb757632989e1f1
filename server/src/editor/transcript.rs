//! A transcript the archive does not hold yet, read off the editor's disk
//! (`GET /api/ops/transcript`): what `get_transcript` falls back to for a
//! video imported or transcribed since the last publish.
//!
//! The editor picks the best it has (a fresh `transcript.cues.json`, else
//! the raw transcript normalised in memory, else the English VTT) and says
//! which. The answer is marked as unpublished and has no moment links (the
//! site has no page for the video yet). A cue without a usable time is
//! left out and counted, never shown at second 0.

use serde_json::Value;

use super::EditorSetup;
use archilyzer_core::captions::{self, CaptionFormat};
use archilyzer_core::links::clock;

/// What the fallback found.
pub enum Fallback {
    /// No editor is configured.
    NoEditor,
    /// The editor has no transcript of this video either.
    NotThere,
    /// The transcript, as `(text, facts)`.
    Found(String, Value),
}

/// Asks the editor for `video` (in `channel`, when known). `Err` when the
/// editor could not be asked or refused.
pub fn from_editor(
    setup: &EditorSetup,
    video: &str,
    channel: Option<&str>,
) -> Result<Fallback, String> {
    let EditorSetup::Ready(editor) = setup else {
        return Ok(Fallback::NoEditor);
    };
    let mut query = vec![("video", video.to_string())];
    query.extend(channel.map(|c| ("channel", c.to_string())));
    let reply = editor.get(&["api", "ops", "transcript"], &query)?;
    match reply.status {
        404 => Ok(Fallback::NotThere),
        _ if reply.ok() => render(&reply.body).map(|(t, f)| Fallback::Found(t, f)),
        _ => Err(reply.refusal()),
    }
}

/// `(start, text)` of each cue, and how many had no usable time.
fn cues(body: &Value) -> Result<(Vec<(f64, String)>, usize), String> {
    if let Some(vtt) = body["vtt"].as_str() {
        let parsed = captions::parse(CaptionFormat::Vtt, vtt)
            .map_err(|e| format!("the editor's VTT could not be read: {e}"))?;
        return Ok((parsed.into_iter().map(|c| (c.start, c.text)).collect(), 0));
    }
    let mut out = Vec::new();
    let mut untimed = 0;
    for c in body["cues"].as_array().into_iter().flatten() {
        match (
            c["start"].as_f64().filter(|s| s.is_finite() && *s >= 0.0),
            c["text"].as_str(),
        ) {
            (Some(start), Some(text)) => out.push((start, text.to_string())),
            _ => untimed += 1,
        }
    }
    Ok((out, untimed))
}

fn render(body: &Value) -> Result<(String, Value), String> {
    let (lines, untimed) = cues(body)?;
    let s = |k: &str| body[k].as_str().unwrap_or("?");
    let from = match s("source") {
        "cues" => "a fresh transcript.cues.json",
        "raw" => "the raw transcript, normalised in memory",
        "vtt" => "the English VTT",
        _ => "a transcript file",
    };
    let mut out = format!(
        "# {}\n- id: {} · channel: {} · {}\n- NOT PUBLISHED YET: read off the local editor's disk (from {from}). The archive has no page for this video yet, so there are no moment links; cite it by id and time.\n",
        body["title"].as_str().unwrap_or("(untitled)"),
        s("videoId"),
        s("channel"),
        body["uploadDate"].as_str().unwrap_or("no date"),
    );
    if let Some(url) = body["webpageUrl"].as_str() {
        out.push_str(&format!("- source: {url}\n"));
    }
    if untimed > 0 {
        out.push_str(&format!(
            "- {untimed} cue(s) without a usable time were left out\n"
        ));
    }
    out.push('\n');
    for (start, text) in &lines {
        out.push_str(&format!("[{}] {text}\n", clock(*start)));
    }
    let facts = crate::tool::TranscriptAnswer {
        id: s("videoId").to_string(),
        channel: s("channel").to_string(),
        published: false,
        cues: lines.len(),
        title: None,
        site: None,
        offset: None,
        lines_shown: None,
        next_offset: None,
        editor_source: Some(s("source").to_string()),
        untimed: Some(untimed),
    };
    Ok((out, serde_json::to_value(facts).unwrap_or_default()))
}
