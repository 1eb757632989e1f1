//! `archilyzer-index import`: composes an archive from the caption files
//! people actually have.
//!
//! Two kinds of input, mixed freely in one folder (searched recursively):
//! - a yt-dlp download folder: `<id>.info.json` beside `<id>.<lang>.vtt`
//!   (or `.srt`, `.json3`, `.srv3`); the video's slug is its yt-dlp `id`;
//! - bare caption files (VTT, SRT, Whisper TSV or JSON) with no info JSON:
//!   the title and a sequence number come from the file name;
//! - results of archilyzer-mcp's `transcript` tool saved as JSON files
//!   (see [`result`]).
//!
//! Promises: every cue of every parsed file is imported once (rolling
//! auto-captions folded, see [`archilyzer_core::captions`]); when a video
//! has several caption files the choice is deterministic and reported; a
//! file that cannot be parsed is named with the reason, the import goes on,
//! and the command exits non-zero with a count; the archive is written to
//! a staging directory and renamed into place, so an interrupted import
//! leaves no half archive.

mod choose;
mod files;
mod result;
mod ytdlp;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use archilyzer_core::format::*;
use archilyzer_core::output::{Claim, OutputKind};

use crate::compose::{self, Staging};
use crate::plural::counted;
use crate::size::parse_size;
use files::{BareName, Inputs};

/// Flags of `archilyzer-index import`.
#[derive(clap::Args, Debug, Clone)]
pub struct ImportArgs {
    /// The folder to import (searched recursively).
    #[arg(long)]
    pub from: PathBuf,
    /// The composed public dir to write (replaced atomically if it exists).
    #[arg(long)]
    pub out: PathBuf,
    /// Put every video in this channel (slug). Without it, videos are
    /// grouped by their info JSON's channel, and bare files go to `imported`.
    #[arg(long)]
    pub channel: Option<String>,
    /// The channel's display name (default: the info JSON's, or the slug).
    #[arg(long)]
    pub channel_name: Option<String>,
    /// The caption language to prefer when a video has several.
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// The site id written to corpus.json (default: the first channel's slug).
    #[arg(long)]
    pub site_id: Option<String>,
    /// The site title (default: the first channel's name).
    #[arg(long)]
    pub site_title: Option<String>,
    /// The deployed origin, if the archive will be published (viewer links).
    #[arg(long)]
    pub site_url: Option<String>,
    /// Where captions without an info JSON came from: manual, auto or asr
    /// (default: asr for Whisper TSV/JSON, manual otherwise).
    #[arg(long, value_parser = parse_caption_source)]
    pub caption_source: Option<CaptionSource>,
    /// Target size of a transcript page.
    #[arg(long, default_value = "7.5MB", value_parser = parse_size)]
    pub page_bytes: u64,
}

fn parse_caption_source(s: &str) -> Result<CaptionSource, String> {
    CaptionSource::parse(s)
        .ok_or_else(|| format!("{s:?} is not a caption source: use manual, auto or asr"))
}

/// The channel a video's metadata names.
struct ChannelOf {
    /// What tells channels apart: the platform's channel id when known.
    key: String,
    /// The channel's `@handle` without the `@`, when the metadata has it.
    handle: Option<String>,
    name: String,
    platform: Platform,
}

/// One video ready to write.
struct Imported {
    channel: Option<ChannelOf>,
    seq: Option<u64>,
    record: VideoRecord,
}

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    pub videos: u64,
    pub cues: u64,
    pub channels: u64,
    /// `path: reason` of each file that could not be imported.
    pub failures: Vec<String>,
    /// Which caption file was chosen where there were several, and why.
    pub choices: Vec<String>,
}

/// Runs an import and reports; non-zero exit when any file failed.
pub fn run(args: &ImportArgs, progress: &dyn Fn(&str)) -> Result<ExitCode> {
    let report = import(args, progress)?;
    for c in &report.choices {
        progress(c);
    }
    for f in &report.failures {
        progress(&format!("FAILED {f}"));
    }
    progress(&format!(
        "imported {}, {}, {} into {}",
        counted(report.videos, "video"),
        counted(report.cues, "cue"),
        counted(report.channels, "channel"),
        args.out.display()
    ));
    if report.failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        progress(&format!(
            "{} file(s) could not be imported (named above); the rest was written",
            report.failures.len()
        ));
        Ok(ExitCode::FAILURE)
    }
}

/// Imports `args.from` into `args.out`.
pub fn import(args: &ImportArgs, progress: &dyn Fn(&str)) -> Result<ImportReport> {
    let claim = Claim::new(
        &args.out,
        OutputKind::Archive,
        "--out",
        &[(&args.from, "--from")],
    )?;
    let inputs = Inputs::scan(&args.from)?;
    progress(&format!(
        "found {} info JSON file(s), {} caption file(s) and {} transcript result(s) in {}",
        inputs.infos.len(),
        inputs.captions.len(),
        inputs.results.len(),
        args.from.display()
    ));
    let mut report = ImportReport::default();
    let mut videos = Vec::new();
    for (id, info_path) in &inputs.infos {
        match ytdlp::video(
            id,
            info_path,
            inputs.captions_of(id),
            &args.lang,
            &mut report,
        ) {
            Ok(v) => videos.push(v),
            Err(e) => report
                .failures
                .push(format!("{}: {e:#}", info_path.display())),
        }
    }
    for path in &inputs.results {
        match result::video(path) {
            Ok(v) => videos.push(v),
            Err(e) => report.failures.push(format!("{}: {e:#}", path.display())),
        }
    }
    for path in inputs.bare() {
        match bare_video(path, args) {
            Ok(v) => videos.push(v),
            Err(e) => report.failures.push(format!("{}: {e:#}", path.display())),
        }
    }
    anyhow::ensure!(
        !videos.is_empty(),
        "nothing to import from {}: no caption file or yt-dlp info JSON could be read{}",
        args.from.display(),
        report
            .failures
            .iter()
            .map(|f| format!("\n  FAILED {f}"))
            .collect::<String>()
    );
    for f in &report.failures {
        tracing::warn!("{f}");
    }
    write_archive(args, claim, videos, &mut report)?;
    Ok(report)
}

/// A video from a caption file with no info JSON.
fn bare_video(path: &std::path::Path, args: &ImportArgs) -> Result<Imported> {
    let name = BareName::of(path);
    let (format, cues) = files::read_captions(path)?;
    let source = args.caption_source.unwrap_or(match format {
        archilyzer_core::captions::CaptionFormat::WhisperJson
        | archilyzer_core::captions::CaptionFormat::WhisperTsv => CaptionSource::Asr,
        _ => CaptionSource::Manual,
    });
    Ok(Imported {
        channel: None,
        seq: name.seq,
        record: VideoRecord {
            slug: String::new(), // assigned per channel
            title: name.title,
            upload_date: None,
            duration: cues.last().map(|c| c.end),
            webpage_url: None,
            platform: None,
            media_type: MediaType::Video,
            age: Age::AllAges,
            state: State::Available,
            description: String::new(),
            tags: vec![],
            curated_tags: vec![],
            recorded_date: None,
            caption_source: source,
            lang: name.lang,
            cues,
        },
    })
}

/// Groups videos into channels, names bare files, and writes the archive.
fn write_archive(
    args: &ImportArgs,
    claim: Claim,
    videos: Vec<Imported>,
    report: &mut ImportReport,
) -> Result<()> {
    let channels = group_channels(args, videos);
    for (slug, _) in channels.iter() {
        archilyzer_core::archive::check_segment(slug, "channel")
            .with_context(|| format!("--channel {slug:?} cannot name a directory"))?;
    }
    let staging = Staging::beside(claim)?;
    let root = staging.path();
    let mut entries = Vec::new();
    let mut summaries = Vec::new();
    for (slug, (name, platform, mut list)) in channels {
        list.sort_by(|a, b| {
            (
                &a.record.upload_date,
                a.seq,
                &a.record.slug,
                &a.record.title,
            )
                .cmp(&(
                    &b.record.upload_date,
                    b.seq,
                    &b.record.slug,
                    &b.record.title,
                ))
        });
        let records = name_videos(&slug, list);
        report.videos += records.len() as u64;
        report.cues += records.iter().map(|r| r.cues.len() as u64).sum::<u64>();
        let entry = ChannelEntry {
            slug: slug.clone(),
            name,
            platform,
            group: None,
            video_count: 0,
            page_count: 0,
        };
        let page_target = args.page_bytes.clamp(1, usize::MAX as u64) as usize;
        entries.push(compose::write_channel(
            root,
            entry,
            &records,
            page_target,
            &mut summaries,
        )?);
        compose::write_json(root, &paths::stats(&slug), &stats_of(&records))?;
    }
    report.channels = entries.len() as u64;
    compose::write_json(root, paths::SUMMARIES, &Summaries { videos: summaries })?;
    let (id, title) = site_name(args, &entries);
    compose::write_corpus(
        root,
        &CorpusFile::Site(SiteCorpus {
            spec: SPEC_VERSION,
            site: SiteInfo {
                id,
                title,
                url: args.site_url.clone(),
                scope: SiteScope::Full,
            },
            channels: entries,
            groups: vec![],
            generated_at: None,
        }),
    )?;
    Ok(staging.commit()?)
}

/// A channel to write: its name, platform and videos, by slug.
type Channels = BTreeMap<String, (String, Platform, Vec<Imported>)>;

/// Groups videos into channels: all into `--channel` when given; else by
/// the channel their metadata names (its id). A channel's slug is
/// readable and the same on every re-import: its `@handle`, else its
/// name, else its id, made a slug (the value most of its videos give;
/// ties: the alphabetically first), and unique with `-2`, `-3`…; videos
/// with no channel go to `imported`.
fn group_channels(args: &ImportArgs, videos: Vec<Imported>) -> Channels {
    let mut by_key: BTreeMap<String, Vec<Imported>> = BTreeMap::new();
    for v in videos {
        let key = match (&args.channel, &v.channel) {
            (Some(slug), _) => slug.clone(),
            (None, Some(c)) => c.key.clone(),
            (None, None) => String::new(),
        };
        by_key.entry(key).or_default().push(v);
    }
    let mut channels = Channels::new();
    for (key, list) in by_key {
        let found = list.iter().filter_map(|v| v.channel.as_ref());
        let suggested = most_common(found.clone().filter_map(|c| c.handle.as_deref()))
            .or_else(|| most_common(found.clone().map(|c| c.name.as_str())))
            .map(files::slugify);
        let base = match (&args.channel, suggested) {
            (Some(slug), _) => slug.clone(),
            (None, Some(slug)) => slug,
            (None, None) if key.is_empty() => "imported".to_string(),
            (None, None) => files::slugify(&key),
        };
        let first = found.clone().next();
        let name = args
            .channel_name
            .clone()
            .or(first.map(|c| c.name.clone()).filter(|n| !n.is_empty()))
            .unwrap_or_else(|| base.clone());
        let platform = first.map_or(Platform::Other, |c| c.platform);
        let mut slug = base.clone();
        for k in 2.. {
            if !channels.contains_key(&slug) {
                break;
            }
            slug = format!("{base}-{k}");
        }
        channels.insert(slug, (name, platform, list));
    }
    channels
}

/// The value given most often (ties: the alphabetically first).
fn most_common<'a>(values: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut votes: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values.filter(|v| !v.trim().is_empty()) {
        *votes.entry(v).or_default() += 1;
    }
    votes
        .into_iter()
        .max_by_key(|(v, n)| (*n, std::cmp::Reverse(*v)))
        .map(|(v, _)| v)
}

/// The site's id and title: the flags, else the channel's when there is
/// one, else the `--out` folder's name (never one channel's of several).
fn site_name(args: &ImportArgs, channels: &[ChannelEntry]) -> (String, String) {
    let (id, title) = match channels {
        [only] => (only.slug.clone(), only.name.clone()),
        _ => {
            let folder = archilyzer_core::output::resolve(&args.out)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "archive".into());
            (files::slugify(&folder), folder)
        }
    };
    (
        args.site_id.clone().unwrap_or(id),
        args.site_title.clone().unwrap_or(title),
    )
}

/// Gives bare files their slugs (`<channel>-<seq>`, else a slug of the
/// title) and makes every slug in the channel unique.
fn name_videos(channel: &str, list: Vec<Imported>) -> Vec<VideoRecord> {
    let mut seen = std::collections::HashSet::new();
    list.into_iter()
        .map(|v| {
            let mut record = v.record;
            if record.slug.is_empty() {
                record.slug = match v.seq {
                    Some(n) => format!("{channel}-{n}"),
                    None => files::slugify(&record.title),
                };
            }
            let base = record.slug.clone();
            let mut k = 2;
            while !seen.insert(record.slug.clone()) {
                record.slug = format!("{base}-{k}");
                k += 1;
            }
            record
        })
        .collect()
}

fn stats_of(records: &[VideoRecord]) -> ChannelStats {
    records
        .iter()
        .map(|r| {
            let spoken: f64 = r.cues.iter().map(|c| (c.end - c.start).max(0.0)).sum();
            let coverage = r
                .duration
                .filter(|d| *d > 0.0)
                .map(|d| (spoken / d).min(1.0))
                .unwrap_or(0.0);
            (
                r.slug.clone(),
                VideoStats {
                    views: None,
                    likes: None,
                    cues: r.cues.len() as u32,
                    coverage: (coverage * 100.0).round() / 100.0,
                },
            )
        })
        .collect()
}
