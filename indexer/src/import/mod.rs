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

/// One video ready to write.
struct Imported {
    channel: Option<(String, String, Platform)>,
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
        "imported {} videos, {} cues, {} channel(s) into {}",
        report.videos,
        report.cues,
        report.channels,
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
    let mut channels: BTreeMap<String, (String, Platform, Vec<Imported>)> = BTreeMap::new();
    for v in videos {
        let (slug, name, platform) = match (&args.channel, &v.channel) {
            (Some(slug), found) => (
                slug.clone(),
                found.as_ref().map(|f| f.1.clone()),
                found.as_ref().map(|f| f.2),
            ),
            (None, Some((slug, name, platform))) => {
                (slug.clone(), Some(name.clone()), Some(*platform))
            }
            (None, None) => ("imported".to_string(), None, None),
        };
        let entry = channels.entry(slug.clone()).or_insert_with(|| {
            let name = args
                .channel_name
                .clone()
                .or(name)
                .unwrap_or_else(|| slug.clone());
            (name, platform.unwrap_or(Platform::Other), Vec::new())
        });
        entry.2.push(v);
    }
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
    let first = &entries[0];
    compose::write_corpus(
        root,
        &CorpusFile::Site(SiteCorpus {
            spec: SPEC_VERSION,
            site: SiteInfo {
                id: args.site_id.clone().unwrap_or_else(|| first.slug.clone()),
                title: args
                    .site_title
                    .clone()
                    .unwrap_or_else(|| first.name.clone()),
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
