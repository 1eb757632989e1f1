//! A video from a yt-dlp `<id>.info.json` and its caption files.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use archilyzer_core::format::*;

use super::files::{file_name, read_captions};
use super::{ChannelOf, ImportArgs, ImportReport, Imported};
use archilyzer_core::captions::choose::{self, Choice, Rule, Track};
use archilyzer_core::captions::info::YtDlpInfo;

/// Reads the info JSON and ranks its caption files, without reading them
/// yet (see [`load_cues`]): the video's record, with no cues.
pub(super) fn video(
    id: &str,
    info_path: &Path,
    captions: &[PathBuf],
    args: &ImportArgs,
) -> Result<(Imported, Choice)> {
    let bytes = std::fs::read(info_path).context("cannot read")?;
    let info: YtDlpInfo = serde_json::from_slice(&bytes).context("not a yt-dlp info JSON")?;
    let tracks = choose::tracks(
        captions.iter().map(PathBuf::as_path),
        id,
        &info.manual_codes(),
    );
    let original = choose::original_language(info.language.as_deref(), &tracks);
    let choice = choose::rank(tracks, &args.lang, original.as_deref());
    let imported = record(id, &info);
    Ok((imported, choice))
}

/// Reads the best caption file that parses into `record` (its cues, and
/// the caption source and language that file gives); a file that fails is
/// reported and the next best tried. A machine translation is read only
/// when no other track may be and `keep_translations` is set, and is then
/// marked [`CaptionSource::Translated`]; otherwise such a video keeps its
/// metadata only and is named. With no readable file, the video keeps its
/// metadata only, and the summary says so.
pub(super) fn load_cues(
    record: &mut VideoRecord,
    choice: &Choice,
    keep_translations: bool,
    report: &mut ImportReport,
) {
    let translated = |t: &Track| (t.clone(), None);
    let candidates: Vec<(Track, Option<Rule>)> = if choice.ranked.is_empty() && keep_translations {
        choice.translations.iter().map(translated).collect()
    } else {
        choice
            .ranked
            .iter()
            .map(|(t, r)| (t.clone(), Some(*r)))
            .collect()
    };
    for (i, (track, rule)) in candidates.iter().enumerate() {
        match read_captions(&track.path) {
            Ok((_, parsed)) => {
                note_choice(record, choice, &candidates, i, report);
                report.note_skipped_cues(&track.path, &parsed.skipped);
                record.duration = record.duration.or(parsed.cues.last().map(|c| c.end));
                record.cues = parsed.cues;
                record.caption_source = Some(match (rule, track.manual) {
                    (None, _) => CaptionSource::Translated,
                    (Some(_), true) => CaptionSource::Manual,
                    (Some(_), false) => CaptionSource::Auto,
                });
                record.lang = (!track.lang().is_empty()).then(|| track.lang().to_string());
                return;
            }
            Err(e) => report
                .failures
                .push(format!("{}: {e:#}", track.path.display())),
        }
    }
    if choice.ranked.is_empty() && !choice.translations.is_empty() && !keep_translations {
        report.translations_only.push(format!(
            "{}: only machine-translated captions ({}{}): listed without a transcript; import --keep-translations keeps them, marked as translations",
            record.slug,
            names(&choice.translations),
            choice
                .original
                .as_deref()
                .map(|o| format!(", translated from {o}"))
                .unwrap_or_default()
        ));
    } else {
        report.metadata_only.push(record.slug.clone());
    }
}

/// The report's line for the track chosen at `i`, when there was a choice.
fn note_choice(
    record: &VideoRecord,
    choice: &Choice,
    candidates: &[(Track, Option<Rule>)],
    i: usize,
    report: &mut ImportReport,
) {
    let all = choice.ranked.len() + choice.translations.len();
    if all < 2 {
        return;
    }
    let chosen = &candidates[i].0;
    let why = candidates[i]
        .1
        .map_or("a machine translation, kept as asked", Rule::describe);
    let others: Vec<String> = choice
        .ranked
        .iter()
        .map(|(t, _)| t)
        .chain(&choice.translations)
        .filter(|t| t.path != chosen.path)
        .map(|t| {
            let tr = choice.translations.contains(t) && candidates[i].1.is_some();
            format!(
                "{}{}",
                file_name(&t.path),
                if tr { " (a machine translation)" } else { "" }
            )
        })
        .collect();
    report.choices.push(format!(
        "{}: chose {} ({why}) over {}",
        record.slug,
        file_name(&chosen.path),
        others.join(", ")
    ));
}

/// The tracks' file names, comma-separated.
fn names(tracks: &[Track]) -> String {
    tracks
        .iter()
        .map(|t| file_name(&t.path))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The record (without cues) and channel an info JSON describes.
fn record(id: &str, info: &YtDlpInfo) -> Imported {
    let slug = if info.id.is_empty() {
        id.to_string()
    } else {
        info.id.clone()
    };
    let platform = platform_of(info);
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
            caption_source: Some(CaptionSource::Auto),
            lang: None,
            cues: Vec::new(),
        },
    }
}

/// The platform an info JSON names: its `extractor_key`, else its
/// `extractor`, else the host of its `webpage_url`, so a video of a known
/// platform always gets moment links.
fn platform_of(info: &YtDlpInfo) -> Platform {
    let named = [info.extractor_key.as_deref(), info.extractor.as_deref()]
        .into_iter()
        .flatten()
        .map(Platform::of_extractor)
        .find(|p| *p != Platform::Other);
    named.unwrap_or_else(|| {
        let site = info
            .webpage_url
            .as_deref()
            .and_then(archilyzer_core::platform::site_of_url);
        site.map_or(Platform::Other, Platform::of_site)
    })
}

fn state_of(availability: Option<&str>) -> State {
    match availability {
        Some("private") => State::Private,
        Some("unlisted") => State::Unlisted,
        Some("subscriber_only" | "premium_only" | "needs_auth") => State::MembersOnly,
        _ => State::Available,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(json: &str) -> YtDlpInfo {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn the_platform_comes_from_the_extractor_key_else_the_extractor_else_the_page_host() {
        let cases = [
            (r#"{"extractor_key":"Youtube"}"#, Platform::Youtube),
            (r#"{"extractor":"youtube"}"#, Platform::Youtube),
            (
                r#"{"extractor":"youtube:tab","webpage_url":"https://rumble.com/v1"}"#,
                Platform::Youtube,
            ),
            (
                r#"{"webpage_url":"https://www.youtube.com/watch?v=abcdefghijk"}"#,
                Platform::Youtube,
            ),
            (
                r#"{"webpage_url":"https://youtu.be/abcdefghijk"}"#,
                Platform::Youtube,
            ),
            (
                r#"{"webpage_url":"https://m.youtube.com/watch?v=abcdefghijk"}"#,
                Platform::Youtube,
            ),
            (
                r#"{"extractor":"generic","webpage_url":"https://rumble.com/v9-x.html"}"#,
                Platform::Rumble,
            ),
            (
                r#"{"webpage_url":"https://www.twitch.tv/videos/1"}"#,
                Platform::Twitch,
            ),
            (
                r#"{"webpage_url":"https://example.com/v/1"}"#,
                Platform::Other,
            ),
            (r#"{}"#, Platform::Other),
        ];
        for (json, want) in cases {
            assert_eq!(platform_of(&info(json)), want, "{json}");
        }
    }
}
