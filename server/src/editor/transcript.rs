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

/// The editor's transcript reply (`docs/editor-contract.md`):
/// `{channel, videoId, title?, uploadDate?, webpageUrl?, source,
/// cues?: [{start, end?, text}], vtt?}`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct EditorTranscript {
    #[serde(default)]
    channel: Option<String>,
    #[serde(default)]
    video_id: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    upload_date: Option<String>,
    #[serde(default)]
    webpage_url: Option<String>,
    /// Which file it read: `cues`, `raw` or `vtt`.
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    cues: Vec<EditorCue>,
    #[serde(default)]
    vtt: Option<String>,
}

/// One cue of the editor's transcript; a cue without a usable start (none,
/// or not a number) is counted, never shown at second 0, and does not
/// fail the rest.
#[derive(Debug, Default, serde::Deserialize)]
struct EditorCue {
    #[serde(default, deserialize_with = "number_or_none")]
    start: Option<f64>,
    #[serde(default, deserialize_with = "text_or_none")]
    text: Option<String>,
}

fn number_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(<Value as serde::Deserialize>::deserialize(d)?.as_f64())
}

fn text_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(<Value as serde::Deserialize>::deserialize(d)?
        .as_str()
        .map(str::to_string))
}

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
        _ if reply.ok() => {
            let body: EditorTranscript =
                reply.parse("the editor's transcript", "editor-contract.md")?;
            render(&body).map(|(t, f)| Fallback::Found(t, f))
        }
        _ => Err(reply.refusal()),
    }
}

/// `(start, text)` of each cue, and how many had no usable time.
fn cues(body: &EditorTranscript) -> Result<(Vec<(f64, String)>, usize), String> {
    if let Some(vtt) = &body.vtt {
        let parsed = captions::parse(CaptionFormat::Vtt, vtt)
            .map_err(|e| format!("the editor's VTT could not be read: {e}"))?;
        return Ok((parsed.into_iter().map(|c| (c.start, c.text)).collect(), 0));
    }
    let mut out = Vec::new();
    let mut untimed = 0;
    for c in &body.cues {
        match (
            c.start.filter(|s| s.is_finite() && *s >= 0.0),
            c.text.as_deref(),
        ) {
            (Some(start), Some(text)) => out.push((start, text.to_string())),
            _ => untimed += 1,
        }
    }
    Ok((out, untimed))
}

fn render(body: &EditorTranscript) -> Result<(String, Value), String> {
    let (lines, untimed) = cues(body)?;
    let s = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".to_string());
    let from = match body.source.as_deref() {
        Some("cues") => "a fresh transcript.cues.json",
        Some("raw") => "the raw transcript, normalised in memory",
        Some("vtt") => "the English VTT",
        _ => "a transcript file",
    };
    let mut out = format!(
        "# {}\n- id: {} · channel: {} · {}\n- NOT PUBLISHED YET: read off the local editor's disk (from {from}). The archive has no page for this video yet, so there are no moment links; cite it by id and time.\n",
        body.title.as_deref().unwrap_or("(untitled)"),
        s(&body.video_id),
        s(&body.channel),
        body.upload_date.as_deref().unwrap_or("no date"),
    );
    if let Some(url) = &body.webpage_url {
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
        id: s(&body.video_id),
        channel: s(&body.channel),
        published: false,
        cues: lines.len(),
        title: None,
        site: None,
        offset: None,
        lines_shown: None,
        next_offset: None,
        editor_source: Some(s(&body.source)),
        untimed: Some(untimed),
    };
    Ok((out, serde_json::to_value(facts).unwrap_or_default()))
}
