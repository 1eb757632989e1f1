//! The second pass of an import: each channel's videos, read one at a
//! time in archive order and streamed into pages, so memory holds one
//! page and the per-video summaries, never the archive.

use anyhow::{Context, Result};
use archilyzer_core::format::paths::{self, Layer};
use archilyzer_core::format::*;
use archilyzer_core::output::Claim;

use super::{
    chat, files, group_channels, layout, name_videos, result, site_name, ytdlp, CueSource,
    ImportArgs, ImportReport, Planned,
};
use crate::compose::{self, Pager, Staging};
use crate::progress::Progress;

/// Writes the planned videos as an archive into `claim`'s folder.
pub(super) fn archive(
    args: &ImportArgs,
    claim: Claim,
    planned: Vec<Planned>,
    previous: &layout::Previous,
    report: &mut ImportReport,
) -> Result<()> {
    let progress = Progress::new("import", "videos");
    progress.set_total(planned.len() as u64);
    let channels = group_channels(args, planned);
    for slug in channels.keys() {
        archilyzer_core::archive::check_segment(slug, "channel")
            .with_context(|| format!("--channel {slug:?} cannot name a directory"))?;
    }
    let staging = Staging::beside(claim)?;
    report.cleaned = staging.removed_stale();
    let root = staging.path();
    let mut entries = Vec::new();
    let mut summaries = Vec::new();
    let page_target = args.page_bytes.clamp(1, usize::MAX as u64) as usize;
    for (slug, (name, platform, mut list)) in channels {
        list.sort_by_key(layout::date_order);
        let entry = ChannelEntry {
            slug: slug.clone(),
            name,
            platform,
            group: None,
            video_count: 0,
            page_count: 0,
        };
        let videos = name_videos(&slug, list);
        let mut channel = Channel::new(root, entry, page_target);
        for page in layout::arrange(&slug, videos, previous) {
            for v in page.videos {
                channel.add(v, page.open, report, &mut summaries)?;
                progress.tick();
            }
            if !page.open {
                channel.pages.cut()?;
            }
        }
        entries.push(channel.finish()?);
    }
    progress.finish();
    report.channels = entries.len() as u64;
    let now = summaries
        .iter()
        .map(|r| (r.channel.clone(), r.slug.clone()))
        .collect();
    report.change = previous.change(&now);
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
    report.kept = staging.keep_curated()?;
    Ok(staging.commit()?)
}

/// One channel being written: its transcript pages, its chat pages (made
/// on the first chat), and its stats.
struct Channel<'a> {
    root: &'a std::path::Path,
    entry: ChannelEntry,
    page_target: usize,
    pages: Pager<'a>,
    chat: Option<Pager<'a>>,
    stats: ChannelStats,
    videos: u32,
}

impl<'a> Channel<'a> {
    fn new(root: &'a std::path::Path, entry: ChannelEntry, page_target: usize) -> Self {
        Channel {
            root,
            pages: Pager::new(root, Layer::Transcripts, &entry.slug, page_target),
            chat: None,
            entry,
            page_target,
            stats: ChannelStats::new(),
            videos: 0,
        }
    }

    /// Reads `v`'s cues (and chat) and writes it, on an `open` page (cut
    /// by size) or a page kept whole; a video whose cues cannot be read at
    /// all is named in the report and left out.
    fn add(
        &mut self,
        mut v: Planned,
        open: bool,
        report: &mut ImportReport,
        summaries: &mut Vec<SummaryRow>,
    ) -> Result<()> {
        if !load_cues(&mut v, report) {
            return Ok(());
        }
        let record = v.record;
        let (page, _) = if open {
            self.pages.push(&record.slug, &record)?
        } else {
            self.pages.push_uncut(&record.slug, &record)?
        };
        summaries.push(SummaryRow::of(
            &self.entry.slug,
            page,
            &record.as_view_without_cues(),
        ));
        self.stats.insert(record.slug.clone(), stats_of(&record));
        if let Some(path) = &v.chat {
            self.add_chat(&record.slug, path, report)?;
        }
        report.videos += 1;
        report.cues += record.cues.len() as u64;
        self.videos += 1;
        Ok(())
    }

    fn add_chat(
        &mut self,
        slug: &str,
        path: &std::path::Path,
        report: &mut ImportReport,
    ) -> Result<()> {
        let live = match chat::read(path) {
            Ok(live) => live,
            Err(e) => {
                report.failures.push(format!("{}: {e:#}", path.display()));
                return Ok(());
            }
        };
        for line in &live.bad_lines {
            report.skipped_cues.push(format!(
                "{}:{line}: not a JSON line; this chat line was skipped",
                path.display()
            ));
        }
        if live.before_start > 0 {
            report.skipped_files.push(format!(
                "{}: {} message(s) sent before the stream started have no time on the video and were not imported",
                path.display(),
                live.before_start
            ));
        }
        if live.messages.is_empty() {
            return Ok(());
        }
        report.chat_messages += live.messages.len() as u64;
        let (root, slug_of_channel, target) = (self.root, &self.entry.slug, self.page_target);
        let pager = self
            .chat
            .get_or_insert_with(|| Pager::new(root, Layer::Chat, slug_of_channel, target));
        pager.push(
            slug,
            &VideoChat {
                slug: slug.to_string(),
                messages: live.messages,
            },
        )?;
        Ok(())
    }

    /// Writes the manifests and stats; returns the corpus.json entry.
    fn finish(self) -> Result<ChannelEntry> {
        let manifest = self
            .pages
            .finish(&self.entry.name, Some(self.entry.platform))?;
        if let Some(chat) = self.chat {
            chat.finish(&self.entry.name, Some(self.entry.platform))?;
        }
        compose::write_json(self.root, &paths::stats(&self.entry.slug), &self.stats)?;
        Ok(ChannelEntry {
            video_count: self.videos,
            page_count: manifest.pages.len() as u32,
            ..self.entry
        })
    }
}

/// Reads a planned video's cues into its record; `false` (and the report
/// says why) when a bare file or a result cannot be read at all. A yt-dlp
/// video keeps its metadata even with no readable caption file.
fn load_cues(v: &mut Planned, report: &mut ImportReport) -> bool {
    match &v.cues {
        CueSource::Ranked {
            choice,
            keep_translations,
        } => {
            ytdlp::load_cues(&mut v.record, choice, *keep_translations, report);
            true
        }
        CueSource::Bare(path) => match files::read_captions(path) {
            Ok((_, parsed)) => {
                report.note_skipped_cues(path, &parsed.skipped);
                v.record.duration = parsed.cues.last().map(|c| c.end);
                v.record.cues = parsed.cues;
                true
            }
            Err(e) => {
                report.failures.push(format!("{}: {e:#}", path.display()));
                false
            }
        },
        CueSource::Result(path) => match result::video(path) {
            Ok(read) => {
                v.record.cues = read.record.cues;
                true
            }
            Err(e) => {
                report.failures.push(format!("{}: {e:#}", path.display()));
                false
            }
        },
    }
}

/// A video's stats: its cue count and how much of its duration has
/// captions.
fn stats_of(r: &VideoRecord) -> VideoStats {
    let spoken: f64 = r.cues.iter().map(|c| (c.end - c.start).max(0.0)).sum();
    let coverage = r
        .duration
        .filter(|d| *d > 0.0)
        .map(|d| (spoken / d).min(1.0))
        .unwrap_or(0.0);
    VideoStats {
        views: None,
        likes: None,
        cues: r.cues.len() as u32,
        coverage: (coverage * 100.0).round() / 100.0,
    }
}
