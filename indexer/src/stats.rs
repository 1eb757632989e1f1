//! `archilyzer-index stats`: what an archive holds, per channel and in all.
//!
//! Counts come from reading every transcript page (cues cannot be counted
//! any other way); pages and bytes come from the manifests.

use archilyzer_core::archive::Archive;
use archilyzer_core::source::ReadError;
use serde::Serialize;

use crate::cli::{IndexArgs, SourceArgs};

/// Flags of `archilyzer-index stats`.
#[derive(clap::Args, Debug, Clone)]
pub struct StatsArgs {
    #[command(flatten)]
    /// The archive to describe.
    pub source: SourceArgs,
    #[command(flatten)]
    /// The index to describe beside it.
    pub index: IndexArgs,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Prints the figures of the archive the flags name.
pub fn command(args: &StatsArgs) -> anyhow::Result<std::process::ExitCode> {
    let archive = args.source.open()?;
    let mut f = figures(&archive)?;
    f.index = args
        .index
        .dir(&archive)
        .ok()
        .map(|d| index_figures(&archive, &d));
    if args.json {
        crate::cli::print(&format!("{}\n", serde_json::to_string_pretty(&f)?))?;
    } else {
        crate::cli::print(&render(&f))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Figures for one channel.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ChannelFigures {
    /// The site.
    pub site: String,
    /// The channel's slug (`all` in the total).
    pub channel: String,
    /// Transcript pages.
    pub pages: u64,
    /// Videos.
    pub videos: u64,
    /// Cues.
    pub cues: u64,
    /// Transcript bytes.
    pub bytes: u64,
}

/// Figures for the whole archive.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArchiveFigures {
    /// The archive, as a source handle.
    pub source: String,
    /// Per channel.
    pub channels: Vec<ChannelFigures>,
    /// All channels together.
    pub total: ChannelFigures,
    /// The index of this source, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexFigures>,
}

/// Where the index is, how big, how old, and whether it is fresh.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct IndexFigures {
    /// The index folder.
    pub dir: String,
    /// Its size on disk.
    pub bytes: u64,
    /// Unix seconds of the build.
    pub built_at: Option<u64>,
    /// Whether it is fresh, partly stale, or missing, as a search would say.
    pub status: String,
}

/// Figures of the index in `dir` against the archive as it is now.
pub fn index_figures(archive: &Archive, dir: &std::path::Path) -> IndexFigures {
    let (pages, _) = archive.page_table();
    let (index, status) = archilyzer_core::index::Index::open(dir, archive, &pages);
    let bytes = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    IndexFigures {
        dir: dir.display().to_string(),
        bytes,
        built_at: index.map(|i| i.raw.meta.built_at),
        status: status.describe(),
    }
}

/// Reads every transcript page of `archive` and counts.
pub fn figures(archive: &Archive) -> Result<ArchiveFigures, ReadError> {
    let mut out = ArchiveFigures {
        source: archive.handle().to_string(),
        ..Default::default()
    };
    for site in archive.sites() {
        for channel in &site.corpus().channels {
            let manifest = site.transcript_manifest(&channel.slug)?;
            let mut f = ChannelFigures {
                site: site.id().to_string(),
                channel: channel.slug.clone(),
                pages: manifest.pages.len() as u64,
                bytes: manifest.pages.iter().map(|p| p.bytes).sum(),
                ..Default::default()
            };
            for n in 1..=manifest.pages.len() as u32 {
                let page = site.transcript_page(&channel.slug, n)?;
                f.videos += page.videos.len() as u64;
                f.cues += page.videos.iter().map(|v| v.cues.len() as u64).sum::<u64>();
            }
            out.total.pages += f.pages;
            out.total.videos += f.videos;
            out.total.cues += f.cues;
            out.total.bytes += f.bytes;
            out.channels.push(f);
        }
    }
    out.total.channel = format!("{} channel(s)", out.channels.len());
    out.index = None;
    Ok(out)
}

/// The figures as an aligned table for a person.
pub fn render(f: &ArchiveFigures) -> String {
    let mut s = format!("source: {}\n", f.source);
    s.push_str(&format!(
        "{:<14} {:<28} {:>6} {:>8} {:>10} {:>14}\n",
        "site", "channel", "pages", "videos", "cues", "bytes"
    ));
    for c in f.channels.iter().chain(std::iter::once(&f.total)) {
        s.push_str(&format!(
            "{:<14} {:<28} {:>6} {:>8} {:>10} {:>14}\n",
            c.site, c.channel, c.pages, c.videos, c.cues, c.bytes
        ));
    }
    if let Some(i) = &f.index {
        let age = i
            .built_at
            .map(|t| format!(", built {}", archilyzer_core::time::utc(t)))
            .unwrap_or_default();
        s.push_str(&format!(
            "{}; {} bytes at {}{age}\n",
            i.status, i.bytes, i.dir
        ));
    }
    s
}
