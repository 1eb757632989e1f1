//! A video from a result of `archilyzer-mcp`'s `transcript` tool, saved as
//! one JSON file (`{url, platform, title, channel, duration_s,
//! upload_date, caption_source, lang, segments: [{t, text}], asr?}`), so a
//! transcript an agent pulled can join the archive.
//!
//! The slug is the platform's id where the URL says it (YouTube, TikTok),
//! else the URL's last path segment, else a hash of the URL. A cue ends
//! where the next begins (the last at the video's end, or 5 s on). A
//! segment without a usable time fails the file, never stamped at 0:00.
//! A speech-to-text result keeps its confidence verdict in the
//! description, so a reader of the archive can still tell.

use std::path::Path;

use anyhow::{bail, Context, Result};
use archilyzer_core::format::*;
use serde_json::Value;

use super::{ChannelOf, Imported};

/// Whether `path` holds a transcript-tool result (cheap: the keys only).
pub fn is_result(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .is_some_and(|v| {
            v["segments"].is_array() && v["caption_source"].is_string() && v["url"].is_string()
        })
}

/// The id a watch URL names, if it is a safe file name.
fn id_of(url: &str) -> String {
    let from_url = archilyzer_core::platform::likely_video_id(url);
    let safe = |s: &String| {
        !s.is_empty()
            && s.len() <= 64
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && s != "."
            && s != ".."
    };
    from_url
        .filter(safe)
        .unwrap_or_else(|| archilyzer_core::source::sha256_hex(url.as_bytes())[..12].to_string())
}

fn cues(v: &Value) -> Result<Vec<Cue>> {
    let segments = v["segments"].as_array().context("segments is not a list")?;
    let mut starts = Vec::new();
    for (i, s) in segments.iter().enumerate() {
        let t = s["t"]
            .as_f64()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .with_context(|| format!("segment {i} has no time t (it is not stamped at 0:00)"))?;
        starts.push((t, s["text"].as_str().unwrap_or("").trim().to_string()));
    }
    let last_end = v["duration_s"].as_f64();
    let mut out = Vec::new();
    for (i, (t, text)) in starts.iter().enumerate() {
        let end = starts
            .get(i + 1)
            .map_or(last_end.unwrap_or(t + 5.0).max(*t), |n| n.0.max(*t));
        if !text.is_empty() {
            out.push(Cue {
                start: *t,
                end,
                text: text.clone(),
            });
        }
    }
    if out.is_empty() {
        bail!("the transcript has no words");
    }
    Ok(out)
}

/// Reads one result file.
pub(super) fn video(path: &Path) -> Result<Imported> {
    let v: Value =
        serde_json::from_slice(&std::fs::read(path).context("cannot read")?).context("not JSON")?;
    let url = v["url"].as_str().context("url is missing")?.to_string();
    let source = v["caption_source"]
        .as_str()
        .and_then(CaptionSource::parse)
        .with_context(|| {
            format!(
                "caption_source {} is not manual, auto or asr",
                v["caption_source"]
            )
        })?;
    let cues = cues(&v)?;
    let platform: Platform =
        serde_json::from_value(v["platform"].clone()).unwrap_or(Platform::Other);
    let channel = v["channel"]
        .as_str()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or("imported")
        .to_string();
    let description = match &v["asr"] {
        Value::Object(a) => format!(
            "Transcribed on this machine (model {}, language {}, mean log-probability {}): {}.",
            a.get("model").and_then(Value::as_str).unwrap_or("?"),
            a.get("language").and_then(Value::as_str).unwrap_or("?"),
            a.get("mean_logprob")
                .map_or("?".to_string(), Value::to_string),
            if a.get("confident") == Some(&Value::Bool(true)) {
                "confident"
            } else {
                "NOT CONFIDENT, not evidence"
            }
        ),
        _ => String::new(),
    };
    Ok(Imported {
        channel: Some(ChannelOf {
            key: channel.clone(),
            handle: None,
            name: channel,
            platform,
        }),
        seq: None,
        record: VideoRecord {
            slug: id_of(&url),
            title: v["title"].as_str().unwrap_or(&url).to_string(),
            upload_date: v["upload_date"]
                .as_str()
                .filter(|d| d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()))
                .map(str::to_string),
            duration: v["duration_s"].as_f64().or(cues.last().map(|c| c.end)),
            webpage_url: Some(url),
            platform: Some(platform),
            media_type: MediaType::Video,
            age: Age::AllAges,
            state: State::Available,
            description,
            tags: vec![],
            curated_tags: vec![],
            recorded_date: None,
            caption_source: Some(source),
            lang: v["lang"].as_str().map(str::to_string),
            cues,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::id_of;

    #[test]
    fn the_slug_is_the_platforms_id_where_the_url_says_it() {
        assert_eq!(
            id_of("https://www.youtube.com/watch?v=-abc123XYZ_"),
            "-abc123XYZ_"
        );
        assert_eq!(
            id_of("https://www.tiktok.com/@someone/video/7301234567890123456?lang=en"),
            "7301234567890123456"
        );
        assert_eq!(id_of("https://vimeo.com/12345"), "12345");
        // Rumble's id is its slug's, as the editor names it.
        assert_eq!(
            id_of("https://rumble.com/v1007ay-the-title.html"),
            "v1007ay"
        );
        assert_eq!(id_of("https://a.example/v/../x y").len(), 12);
    }
}
