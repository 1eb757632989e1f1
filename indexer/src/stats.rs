//! `archilyzer-index stats`: what an archive holds, per channel and in all.
//!
//! Counts come from reading every transcript page (cues cannot be counted
//! any other way); pages and bytes come from the manifests.

use archilyzer_core::archive::Archive;
use archilyzer_core::source::ReadError;
use serde::Serialize;

/// Figures for one channel.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ChannelFigures {
    pub site: String,
    pub channel: String,
    pub pages: u64,
    pub videos: u64,
    pub cues: u64,
    pub bytes: u64,
}

/// Figures for the whole archive.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArchiveFigures {
    pub source: String,
    pub channels: Vec<ChannelFigures>,
    pub total: ChannelFigures,
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
    s
}
