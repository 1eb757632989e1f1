//! The second pass of an import: each channel's videos, read one at a
//! time in archive order and streamed into pages, so memory holds one
//! page and the per-video summaries, never the archive.

use anyhow::{Context, Result};
use archilyzer_core::claim::Claim;
use archilyzer_core::format::paths::{self, Layer};
use archilyzer_core::format::*;

use super::kept::OldChannel;
use super::ledger::{self, Ledger};
use super::{
    chat, files, group_channels, layout, name_videos, result, site_name, ytdlp, CueSource,
    ImportArgs, ImportReport, Planned,
};
use crate::compose::{self, Pager, Staging};
use crate::progress::Progress;
use archilyzer_core::in_order::in_order;
use std::ops::ControlFlow;

/// Writes the planned videos as an archive into `claim`'s folder.
pub(super) fn archive(
    args: &ImportArgs,
    claim: Claim,
    planned: Vec<Planned>,
    previous: &layout::Previous,
    (made, old_ledger): (ledger::Made, &Ledger),
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
    let mut ledger = Ledger {
        made,
        ..Ledger::default()
    };
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
        let old = OldChannel::of(previous, old_ledger, &slug);
        let mut channel = Channel::new(root, args, entry, page_target, old);
        let pages = layout::arrange(&slug, videos, previous);
        channel.write_pages(&pages, &progress, report)?;
        let (entry, rows) = channel.finish(&mut ledger)?;
        summaries.extend(rows);
        entries.push(entry);
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
    ledger.write(root)?;
    Ok(staging.commit()?)
}

/// One channel being written: its transcript pages, its chat pages (made
/// on the first chat), and its stats.
struct Channel<'a> {
    root: &'a std::path::Path,
    args: &'a ImportArgs,
    entry: ChannelEntry,
    page_target: usize,
    pages: Pager<'a>,
    chat: Option<Pager<'a>>,
    stats: ChannelStats,
    videos: u32,
    /// Its summaries rows, in page order.
    rows: Vec<SummaryRow>,
    /// Its videos' ledger entries, by primary file.
    ledger: Vec<(String, ledger::Entry)>,
    /// The channel in the archive being replaced.
    old: OldChannel<'a>,
}

impl<'a> Channel<'a> {
    fn new(
        root: &'a std::path::Path,
        args: &'a ImportArgs,
        entry: ChannelEntry,
        page_target: usize,
        old: OldChannel<'a>,
    ) -> Self {
        Channel {
            root,
            args,
            pages: Pager::new(root, Layer::Transcripts, &entry.slug, page_target),
            chat: None,
            entry,
            page_target,
            stats: ChannelStats::new(),
            videos: 0,
            rows: Vec::new(),
            ledger: Vec::new(),
            old,
        }
    }

    /// Writes `pages` in order, the videos' files read on several threads
    /// ahead of the writing; a page whose videos are all kept is taken
    /// whole when it can be (see [`Channel::keep_whole`]).
    fn write_pages(
        &mut self,
        pages: &[layout::PagePlan],
        progress: &Progress,
        report: &mut ImportReport,
    ) -> Result<()> {
        let steps: Vec<(usize, usize)> = pages
            .iter()
            .enumerate()
            .flat_map(|(p, page)| (0..page.videos.len()).map(move |i| (p, i)))
            .collect();
        let read = |_: &mut (), &(p, i): &(usize, usize)| Loaded::of(&pages[p].videos[i]);
        let mut failed = None;
        let mut whole = None;
        let mut take = |k: usize, loaded: Option<Loaded>| -> Result<()> {
            let (p, i) = steps[k];
            let page = &pages[p];
            if i == 0 && self.keep_whole(page, report)? {
                whole = Some(p);
                progress.inc(page.videos.len() as u64);
            }
            if whole != Some(p) {
                self.add(&page.videos[i], loaded, page.open, report)?;
                progress.tick();
            }
            if i + 1 == page.videos.len() && !page.open {
                self.pages.cut()?;
            }
            Ok(())
        };
        in_order(
            &steps,
            readers(),
            || (),
            read,
            |k, loaded| match take(k, loaded) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            },
        );
        failed.map_or(Ok(()), Err)
    }

    /// The ledger entry of `v` when it is unchanged since the import that
    /// wrote the archive being replaced and goes where that import put it.
    fn kept<'v>(&self, v: &'v Planned) -> Option<&'v ledger::Entry> {
        match &v.cues {
            CueSource::Kept(e) if e.wrote.0 == self.entry.slug && e.wrote.1 == v.record.slug => {
                Some(e)
            }
            _ => None,
        }
    }

    /// Takes `page` whole from the archive being replaced when every
    /// video on it is kept and the page would be written as it was there;
    /// `false` (nothing done) otherwise.
    fn keep_whole(&mut self, page: &layout::PagePlan, report: &mut ImportReport) -> Result<bool> {
        let slugs: Vec<&str> = page.videos.iter().map(|v| v.record.slug.as_str()).collect();
        let entries: Option<Vec<&ledger::Entry>> =
            page.videos.iter().map(|v| self.kept(v)).collect();
        let facts: Option<Vec<_>> = slugs.iter().map(|s| self.old.facts(s)).collect();
        let n = self.pages.next_page();
        let (Some(entries), Some(facts)) = (entries, facts) else {
            return Ok(false);
        };
        let Some((path, old)) = self.old.whole_page(n, &slugs) else {
            return Ok(false);
        };
        let old = old.clone();
        self.pages.keep_page(&path, &old, &slugs)?;
        for ((v, e), (row, stats)) in page.videos.iter().zip(entries).zip(facts) {
            let (e, chat) = (e.clone(), v.chat.clone());
            self.take_kept(
                v.primary.path(),
                e,
                n,
                (row, stats),
                chat.as_deref(),
                report,
            )?;
        }
        Ok(true)
    }

    /// Records a kept video written on page `page`: its row, stats, chat,
    /// counts and report lines, as its last import had them.
    fn take_kept(
        &mut self,
        primary: &std::path::Path,
        e: ledger::Entry,
        page: u32,
        (row, stats): (SummaryRow, VideoStats),
        chat: Option<&std::path::Path>,
        report: &mut ImportReport,
    ) -> Result<()> {
        report.absorb(&e.notes);
        report.videos += 1;
        report.unchanged += 1;
        report.cues += stats.cues as u64;
        self.videos += 1;
        let slug = row.slug.clone();
        self.rows.push(SummaryRow { page, ..row });
        self.stats.insert(slug.clone(), stats);
        if let Some(path) = chat {
            self.add_chat(&slug, path, report)?;
        }
        self.note(primary, e);
        Ok(())
    }

    /// Adds `e` to the ledger under `primary`'s path in `--from`.
    fn note(&mut self, primary: &std::path::Path, e: ledger::Entry) {
        if let Some(rel) = primary
            .strip_prefix(&self.args.from)
            .ok()
            .and_then(|r| r.to_str())
        {
            self.ledger.push((rel.to_string(), e));
        }
    }

    /// Writes `v`, on an `open` page (cut by size) or a page kept whole:
    /// a kept video as the archive being replaced has it, any other as
    /// `loaded` read it (a kept video that cannot be taken is read now).
    fn add(
        &mut self,
        v: &Planned,
        loaded: Option<Loaded>,
        open: bool,
        report: &mut ImportReport,
    ) -> Result<()> {
        if let Some(e) = self.kept(v).cloned() {
            let slug = v.record.slug.as_str();
            if let Some(facts) = self.old.facts(slug) {
                if let Some(json) = self.old.json(slug) {
                    let json = json.to_string();
                    let (page, _) = self.pages.push_raw(slug, &json, open)?;
                    let chat = v.chat.as_deref();
                    return self.take_kept(v.primary.path(), e, page, facts, chat, report);
                }
            }
        }
        match loaded {
            Some(loaded) => self.write(v, loaded, open, report),
            None => match v.primary.plan(self.args) {
                Ok(fresh) => {
                    let fresh = Planned {
                        record: VideoRecord {
                            slug: v.record.slug.clone(),
                            ..fresh.record
                        },
                        given_slug: v.given_slug.clone(),
                        ..fresh
                    };
                    let loaded = Loaded::of(&fresh);
                    self.write(
                        &fresh,
                        loaded.expect("planned anew, so not kept"),
                        open,
                        report,
                    )
                }
                Err(e) => {
                    let path = v.primary.path().display();
                    report.failures.push(format!("{path}: {e:#}"));
                    Ok(())
                }
            },
        }
    }

    /// Writes `v` as its files were read (`loaded`), and notes it in the
    /// ledger.
    fn write(
        &mut self,
        v: &Planned,
        loaded: Loaded,
        open: bool,
        report: &mut ImportReport,
    ) -> Result<()> {
        report.absorb(&loaded.notes);
        let Some(record) = loaded.record else {
            return Ok(());
        };
        let (page, _) = if open {
            self.pages.push(&record.slug, &record)?
        } else {
            self.pages.push_uncut(&record.slug, &record)?
        };
        self.rows.push(SummaryRow::of(
            &self.entry.slug,
            page,
            &record.slug,
            &record.title,
            record.facts(),
        ));
        self.stats.insert(record.slug.clone(), stats_of(&record));
        if let Some(path) = &v.chat {
            self.add_chat(&record.slug, path, report)?;
        }
        report.videos += 1;
        report.cues += record.cues.len() as u64;
        self.videos += 1;
        if let Some(files) = v.stamps.clone() {
            let order = ledger::Order {
                channel: v.channel.clone(),
                seq: v.seq,
                slug: v.given_slug.clone(),
                title: record.title.clone(),
                upload_date: record.upload_date.clone(),
            };
            let wrote = (self.entry.slug.clone(), record.slug.clone());
            let e = ledger::Entry {
                files,
                order,
                wrote,
                notes: loaded.notes,
            };
            self.note(v.primary.path(), e);
        }
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
        for (line, why) in &live.bad_lines {
            report
                .skipped_chat_lines
                .push(format!("{}:{line}: {why}", path.display()));
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

    /// Writes the manifests and stats, and adds the channel to `ledger`;
    /// returns the corpus.json entry and the summaries rows.
    fn finish(self, ledger: &mut Ledger) -> Result<(ChannelEntry, Vec<SummaryRow>)> {
        let slug = &self.entry.slug;
        let manifest = self
            .pages
            .finish(&self.entry.name, Some(self.entry.platform))?;
        if let Some(chat) = self.chat {
            chat.finish(&self.entry.name, Some(self.entry.platform))?;
        }
        compose::write_json(self.root, &paths::stats(slug), &self.stats)?;
        let rel = paths::manifest(Layer::Transcripts, slug);
        let bytes = std::fs::read(self.root.join(&rel))?;
        let sha = archilyzer_core::source::sha256_hex(&bytes);
        ledger.manifests.insert(slug.clone(), sha);
        for n in 1..=manifest.pages.len() as u32 {
            let rel = paths::page(Layer::Transcripts, slug, n);
            if let Some(stat) = ledger::Stat::of(&self.root.join(&rel)) {
                ledger.pages.insert(rel, (stat.size, stat.mtime_ns));
            }
        }
        ledger.videos.extend(self.ledger);
        let entry = ChannelEntry {
            video_count: self.videos,
            page_count: manifest.pages.len() as u32,
            ..self.entry
        };
        Ok((entry, self.rows))
    }
}

/// Threads reading caption files: every core, and at least four, so a
/// cold disk has several reads in flight.
pub(super) fn readers() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get().max(4))
}

/// A video's files as read (on a worker thread): its record with cues
/// (`None` when they could not be read at all), the report lines that
/// gave.
struct Loaded {
    record: Option<VideoRecord>,
    notes: ledger::VideoNotes,
}

impl Loaded {
    /// Reads `v`'s files; `None` for a kept video (nothing to read).
    fn of(v: &Planned) -> Option<Loaded> {
        if matches!(v.cues, CueSource::Kept(_)) {
            return None;
        }
        let mut record = v.record.clone();
        let mut own = ImportReport::default();
        let read = load_cues(&mut record, &v.cues, &mut own);
        Some(Loaded {
            record: read.then_some(record),
            notes: own.notes(),
        })
    }
}

/// Reads a planned video's cues into its record; `false` (and the report
/// says why) when a bare file or a result cannot be read at all. A yt-dlp
/// video keeps its metadata even with no readable caption file.
fn load_cues(record: &mut VideoRecord, cues: &CueSource, report: &mut ImportReport) -> bool {
    match cues {
        CueSource::Ranked {
            choice,
            keep_translations,
        } => {
            ytdlp::load_cues(record, choice, *keep_translations, report);
            true
        }
        CueSource::Bare(path) => match files::read_captions(path) {
            Ok((_, parsed)) => {
                report.note_skipped_cues(path, &parsed.skipped);
                record.duration = parsed.cues.last().map(|c| c.end);
                record.cues = parsed.cues;
                true
            }
            Err(e) => {
                report.failures.push(format!("{}: {e:#}", path.display()));
                false
            }
        },
        // `Loaded::of` reads no kept video; `Channel::add` plans one anew
        // when it cannot be taken from the archive.
        CueSource::Kept(e) => {
            report.failures.push(format!(
                "{}/{}: a video the import ledger kept was read as new; run the import again with --repack",
                e.wrote.0, e.wrote.1
            ));
            false
        }
        CueSource::Result(path) => match result::video(path) {
            Ok(read) => {
                record.cues = read.record.cues;
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
