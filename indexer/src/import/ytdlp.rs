//! A video from a yt-dlp `<id>.info.json` and its caption files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use archilyzer_core::captions::CaptionFormat;
use archilyzer_core::format::*;
use serde::Deserialize;

use super::choose::{rank, Candidate};
use super::files::{file_name, read_captions};
use super::{ChannelOf, CueSource, ImportReport, Imported, Planned};

/// The fields of yt-dlp's info JSON the archive uses; the rest is ignored.
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
struct Info {
    id: String,
    title: Option<String>,
    upload_date: Option<String>,
    duration: Option<f64>,
    description: Option<String>,
    tags: Option<Vec<String>>,
    webpage_url: Option<String>,
    live_status: Option<String>,
    was_live: Option<bool>,
    age_limit: Option<u32>,
    channel: Option<String>,
    channel_id: Option<String>,
    uploader: Option<String>,
    uploader_id: Option<String>,
    extractor_key: Option<String>,
    availability: Option<String>,
    subtitles: Option<BTreeMap<String, serde_json::Value>>,
}

/// Reads the info JSON and ranks its caption files, without reading them
/// yet (see [`load_cues`]): the video's record, with no cues.
pub(super) fn video(
    id: &str,
    info_path: &Path,
    captions: &[PathBuf],
    lang: &str,
) -> Result<Planned> {
    let bytes = std::fs::read(info_path).context("cannot read")?;
    let info: Info = serde_json::from_slice(&bytes).context("not a yt-dlp info JSON")?;
    let manual: Vec<String> = info
        .subtitles
        .as_ref()
        .map(|s| s.keys().cloned().collect())
        .unwrap_or_default();
    let candidates: Vec<Candidate> = captions
        .iter()
        .filter_map(|p| {
            let format = CaptionFormat::of_path(p)?;
            let name = file_name(p);
            let middle = name
                .strip_prefix(id)?
                .strip_prefix('.')?
                .strip_suffix(format.extension())?
                .trim_end_matches('.');
            Some(Candidate {
                path: p.clone(),
                lang: middle.to_string(),
                format,
                manual: manual.iter().any(|m| m == middle),
            })
        })
        .collect();
    let ranked = rank(candidates, lang);
    let imported = record(id, &info);
    Ok(Planned {
        channel: imported.channel,
        seq: None,
        record: imported.record,
        cues: CueSource::Ranked(ranked),
        chat: None,
    })
}

/// Reads the best caption file that parses into `record` (its cues, and
/// the caption source and language that file gives); a file that fails is
/// reported and the next best tried. With none, the video keeps its
/// metadata only, and the summary says so.
pub(super) fn load_cues(
    record: &mut VideoRecord,
    ranked: &[(Candidate, &'static str)],
    report: &mut ImportReport,
) {
    for (i, (c, why)) in ranked.iter().enumerate() {
        match read_captions(&c.path) {
            Ok((_, parsed)) => {
                if ranked.len() > 1 {
                    let others: Vec<String> = ranked
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .map(|(_, (o, _))| file_name(&o.path))
                        .collect();
                    report.choices.push(format!(
                        "{}: chose {} ({why}) over {}",
                        record.slug,
                        file_name(&c.path),
                        others.join(", ")
                    ));
                }
                report.note_skipped_cues(&c.path, &parsed.skipped);
                record.duration = record.duration.or(parsed.cues.last().map(|c| c.end));
                record.cues = parsed.cues;
                record.caption_source = if c.manual {
                    CaptionSource::Manual
                } else {
                    CaptionSource::Auto
                };
                record.lang = Some(c.lang.trim_end_matches("-orig").to_string());
                return;
            }
            Err(e) => report.failures.push(format!("{}: {e:#}", c.path.display())),
        }
    }
    report.metadata_only.push(record.slug.clone());
}

/// The record (without cues) and channel an info JSON describes.
fn record(id: &str, info: &Info) -> Imported {
    let slug = if info.id.is_empty() {
        id.to_string()
    } else {
        info.id.clone()
    };
    let platform = platform_of(info.extractor_key.as_deref());
    let channel_name = info
        .channel
        .clone()
        .or(info.uploader.clone())
        .or(info.uploader_id.clone())
        .or(info.channel_id.clone())
        .unwrap_or_default();
    let live = matches!(
        info.live_status.as_deref(),
        Some("was_live" | "is_live" | "post_live")
    ) || info.was_live == Some(true);
    Imported {
        channel: Some(ChannelOf {
            key: info
                .channel_id
                .clone()
                .or(info.uploader_id.clone())
                .unwrap_or_else(|| channel_name.clone()),
            handle: info
                .uploader_id
                .as_deref()
                .and_then(|h| h.strip_prefix('@'))
                .map(str::to_string),
            name: channel_name,
            platform,
        }),
        seq: None,
        record: VideoRecord {
            slug,
            title: info.title.clone().unwrap_or_else(|| id.to_string()),
            upload_date: info
                .upload_date
                .clone()
                .filter(|d| d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit())),
            duration: info.duration,
            webpage_url: info.webpage_url.clone(),
            platform: Some(platform),
            media_type: if live {
                MediaType::Livestream
            } else {
                MediaType::Video
            },
            age: if info.age_limit.unwrap_or(0) >= 18 {
                Age::Restricted
            } else {
                Age::AllAges
            },
            state: state_of(info.availability.as_deref()),
            description: info.description.clone().unwrap_or_default(),
            tags: info.tags.clone().unwrap_or_default(),
            curated_tags: vec![],
            recorded_date: None,
            caption_source: CaptionSource::Auto,
            lang: None,
            cues: Vec::new(),
        },
    }
}

fn platform_of(extractor: Option<&str>) -> Platform {
    let key = extractor.unwrap_or("").to_ascii_lowercase();
    match key.as_str() {
        k if k.starts_with("youtube") => Platform::Youtube,
        k if k.starts_with("rumble") => Platform::Rumble,
        k if k.starts_with("twitch") => Platform::Twitch,
        k if k.starts_with("odysee") || k.starts_with("lbry") => Platform::Odysee,
        k if k.starts_with("kick") => Platform::Kick,
        k if k.starts_with("archiveorg") => Platform::ArchiveOrg,
        k if k.starts_with("bitchute") => Platform::Bitchute,
        k if k.starts_with("tiktok") => Platform::Tiktok,
        _ => Platform::Other,
    }
}

fn state_of(availability: Option<&str>) -> State {
    match availability {
        Some("private") => State::Private,
        Some("unlisted") => State::Unlisted,
        Some("subscriber_only" | "premium_only" | "needs_auth") => State::MembersOnly,
        _ => State::Available,
    }
}
