//! Finding the inputs of an import and reading caption files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use archilyzer_core::captions::{self, CaptionFormat};
use archilyzer_core::format::Cue;

/// Media extensions a bare caption file's name may carry before its own
/// (`episode.mp3.vtt`).
const MEDIA_EXTENSIONS: &[&str] = &[
    "mp3", "mp4", "m4a", "wav", "webm", "mkv", "opus", "ogg", "flac", "aac", "mov",
];

/// The files of an import folder, sorted by path.
pub struct Inputs {
    /// yt-dlp id → its `.info.json`.
    pub infos: BTreeMap<String, PathBuf>,
    /// Every caption file.
    pub captions: Vec<PathBuf>,
    /// Results of the transcript tool.
    pub results: Vec<PathBuf>,
}

impl Inputs {
    pub fn scan(dir: &Path) -> Result<Self> {
        anyhow::ensure!(
            dir.is_dir(),
            "{} is not a folder: pass --from the folder that holds the caption files",
            dir.display()
        );
        let mut all = Vec::new();
        walk(dir, &mut all)?;
        all.sort();
        let mut infos = BTreeMap::new();
        let mut captions = Vec::new();
        let mut results = Vec::new();
        for path in all {
            let name = file_name(&path);
            if let Some(id) = name.strip_suffix(".info.json") {
                infos.insert(id.to_string(), path);
            } else if name.ends_with(".live_chat.json") {
                tracing::info!("{}: live chat is not imported", path.display());
            } else if name.ends_with(".json") && super::result::is_result(&path) {
                results.push(path);
            } else if CaptionFormat::of_path(&path).is_some() {
                captions.push(path);
            }
        }
        Ok(Inputs {
            infos,
            captions,
            results,
        })
    }

    /// The id of the info JSON a caption file belongs to (the longest id
    /// its name starts with, followed by `.`), if any.
    fn owner(&self, path: &Path) -> Option<&str> {
        let name = file_name(path);
        self.infos
            .keys()
            .filter(|id| {
                name.len() > id.len()
                    && name.starts_with(id.as_str())
                    && name.as_bytes()[id.len()] == b'.'
            })
            .max_by_key(|id| id.len())
            .map(String::as_str)
    }

    /// The caption files of the video `id`.
    pub fn captions_of(&self, id: &str) -> Vec<&PathBuf> {
        self.captions
            .iter()
            .filter(|p| self.owner(p) == Some(id))
            .collect()
    }

    /// Caption files that belong to no info JSON.
    pub fn bare(&self) -> impl Iterator<Item = &PathBuf> {
        self.captions.iter().filter(|p| self.owner(p).is_none())
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads and parses one caption file.
pub fn read_captions(path: &Path) -> Result<(CaptionFormat, Vec<Cue>)> {
    let format = CaptionFormat::of_path(path).context("not a caption file extension")?;
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let bad = lossy.matches('\u{fffd}').count();
            tracing::warn!(
                "{}: {bad} byte sequence(s) are not UTF-8 and were kept as U+FFFD; re-save the file as UTF-8 to keep them",
                path.display()
            );
            lossy
        }
    };
    let cues = captions::parse(format, &text)
        .map_err(|e| anyhow::anyhow!("cannot parse as {}: {e}", format.extension()))?;
    Ok((format, cues))
}

/// What a bare caption file's name says: `12_Some_Title.mp3.en.vtt` →
/// sequence 12, title "Some Title", language `en`.
#[derive(Debug, PartialEq)]
pub struct BareName {
    pub seq: Option<u64>,
    pub title: String,
    pub lang: Option<String>,
}

impl BareName {
    pub fn of(path: &Path) -> Self {
        let name = file_name(path);
        let mut stem = name
            .rsplit_once('.')
            .map(|(s, _)| s)
            .unwrap_or(&name)
            .to_string();
        let mut lang = None;
        if let Some((rest, ext)) = stem.rsplit_once('.') {
            if is_lang(ext) && !MEDIA_EXTENSIONS.contains(&ext) {
                lang = Some(ext.to_string());
                stem = rest.to_string();
            }
        }
        if let Some((rest, ext)) = stem.rsplit_once('.') {
            if MEDIA_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()) {
                stem = rest.to_string();
            }
        }
        let digits: String = stem.chars().take_while(|c| c.is_ascii_digit()).collect();
        let after = &stem[digits.len()..];
        let (seq, rest) = match after.strip_prefix(['_', ' ', '-', '.']) {
            Some(rest) if !digits.is_empty() && !rest.is_empty() => (digits.parse().ok(), rest),
            _ => (None, stem.as_str()),
        };
        let title = rest
            .replace('_', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        BareName { seq, title, lang }
    }
}

/// `en`, `es`, `en-US`, `pt-BR`, `en-orig`.
fn is_lang(s: &str) -> bool {
    let (main, sub) = s.split_once('-').unwrap_or((s, ""));
    (2..=3).contains(&main.len())
        && main.chars().all(|c| c.is_ascii_lowercase())
        && (sub.is_empty() || (sub.len() <= 8 && sub.chars().all(|c| c.is_ascii_alphanumeric())))
}

/// A URL- and path-safe slug of a title.
pub fn slugify(title: &str) -> String {
    let mut s = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            s.extend(c.to_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    let s: String = s.trim_end_matches('-').chars().take(60).collect();
    if s.is_empty() {
        "untitled".to_string()
    } else {
        s.trim_end_matches('-').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_give_sequence_title_and_language() {
        let n = BareName::of(Path::new(
            "vtt/101_Tuomas_Sandholm_Interview_-_NIPS_’17_Best_Paper.mp3.vtt",
        ));
        assert_eq!(n.seq, Some(101));
        assert_eq!(n.title, "Tuomas Sandholm Interview - NIPS ’17 Best Paper");
        assert_eq!(n.lang, None);
        let n = BareName::of(Path::new("talk about cats.en.srt"));
        assert_eq!(
            (n.seq, n.title.as_str(), n.lang.as_deref()),
            (None, "talk about cats", Some("en"))
        );
        let n = BareName::of(Path::new("2024.vtt"));
        assert_eq!((n.seq, n.title.as_str()), (None, "2024"));
        assert_eq!(slugify("Hello, World! ’17"), "hello-world-17");
    }
}
