//! A video from a result of `archilyzer-mcp`'s `transcript` tool, saved as
//! one JSON file and read back through the type the server writes it from
//! ([`UrlTranscript`]), so a transcript an agent pulled can join the
//! archive.
//!
//! The slug is the platform's id where the URL says it (YouTube, TikTok),
//! else the URL's last path segment, else a hash of the URL. A cue ends
//! where the next begins (the last at the video's end, or 5 s on). A
//! segment without a usable time fails the file, never stamped at 0:00.
//! A speech-to-text result keeps its confidence verdict in the
//! description, so a reader of the archive can still tell.

use std::path::Path;

use anyhow::{bail, Context, Result};
use archilyzer_core::format::url_transcript::{Asr, UrlTranscript};
use archilyzer_core::format::*;
use serde::de::IgnoredAny;

use super::{ChannelOf, Imported};

/// The keys that make a JSON file a transcript-tool result.
#[derive(serde::Deserialize)]
#[allow(dead_code)] // read to check their shape, never used
struct ResultKeys {
    url: String,
    caption_source: String,
    segments: Vec<IgnoredAny>,
}

/// Whether `path` holds a transcript-tool result (cheap: the keys only;
/// a result with a bad segment is one, and [`video`] says what is wrong).
pub fn is_result(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .is_some_and(|b| serde_json::from_slice::<ResultKeys>(&b).is_ok())
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

fn cues(v: &UrlTranscript) -> Result<Vec<Cue>> {
    let mut starts = Vec::new();
    for (i, s) in v.segments.iter().enumerate() {
        let t = Some(s.t)
            .filter(|t| t.is_finite() && *t >= 0.0)
            .with_context(|| format!("segment {i} has no time t (it is not stamped at 0:00)"))?;
        starts.push((t, s.text.trim().to_string()));
    }
    let mut out = Vec::new();
    for (i, (t, text)) in starts.iter().enumerate() {
        let end = starts
            .get(i + 1)
            .map_or(v.duration_s.unwrap_or(t + 5.0).max(*t), |n| n.0.max(*t));
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

/// What a speech-to-text result says of itself, kept in the description.
fn provenance(asr: &Asr) -> String {
    let or_unknown = |s: &str| {
        if s.is_empty() {
            "?".to_string()
        } else {
            s.to_string()
        }
    };
    let logprob = match asr.mean_logprob {
        p if p.is_finite() => p.to_string(),
        _ => "?".to_string(),
    };
    format!(
        "Transcribed on this machine (model {}, language {}, mean log-probability {logprob}): {}.",
        or_unknown(&asr.model),
        or_unknown(&asr.language),
        if asr.confident {
            "confident"
        } else {
            "NOT CONFIDENT, not evidence"
        }
    )
}

/// Reads one result file.
pub(super) fn video(path: &Path) -> Result<Imported> {
    let bytes = std::fs::read(path).context("cannot read")?;
    let v: UrlTranscript =
        serde_json::from_slice(&bytes).context("not a transcript tool result")?;
    let source = CaptionSource::parse(&v.caption_source).with_context(|| {
        format!(
            "caption_source {:?} is not manual, auto or asr",
            v.caption_source
        )
    })?;
    let cues = cues(&v)?;
    let platform: Platform = serde_json::from_value(serde_json::Value::String(v.platform.clone()))
        .unwrap_or(Platform::Other);
    let channel = v
        .channel
        .clone()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "imported".to_string());
    let description = v.asr.as_ref().map(provenance).unwrap_or_default();
    Ok(Imported {
        channel: Some(ChannelOf {
            key: channel.clone(),
            handle: None,
            name: channel,
            platform,
        }),
        seq: None,
        record: VideoRecord {
            slug: id_of(&v.url),
            title: v.title.clone().unwrap_or_else(|| v.url.clone()),
            upload_date: v
                .upload_date
                .clone()
                .filter(|d| d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit())),
            duration: v.duration_s.or(cues.last().map(|c| c.end)),
            webpage_url: Some(v.url.clone()),
            platform: Some(platform),
            media_type: MediaType::Video,
            age: Age::AllAges,
            state: State::Available,
            description,
            tags: vec![],
            curated_tags: vec![],
            recorded_date: None,
            caption_source: Some(source),
            lang: Some(v.lang.clone()).filter(|l| !l.is_empty()),
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
