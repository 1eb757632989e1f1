//! Finding the inputs of an import and reading caption files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use archilyzer_core::captions::{self, CaptionFormat, Parsed};

/// Media extensions a bare caption file's name may carry before its own
/// (`episode.mp3.vtt`).
const MEDIA_EXTENSIONS: &[&str] = &[
    "mp3", "mp4", "m4a", "wav", "webm", "mkv", "opus", "ogg", "flac", "aac", "mov",
];

/// The files of an import folder, sorted by path, with each caption file
/// and live chat matched to the info JSON it belongs to.
///
/// Matching is linear: a caption file `<id>.<lang>.<ext>` belongs to the
/// info JSON `<id>.info.json` in its own folder, found by looking up each
/// prefix of its name that ends before a `.`, longest first (so `a.b`
/// wins over `a` for `a.b.en.vtt`); failing that, to the one info JSON
/// anywhere with that id. A file that belongs to none is a bare caption.
pub struct Inputs {
    /// Every `.info.json`, with the id its name gives.
    pub infos: Vec<(String, PathBuf)>,
    /// Results of the transcript tool.
    pub results: Vec<PathBuf>,
    /// The caption files of each info JSON (by position in `infos`).
    captions_of: Vec<Vec<PathBuf>>,
    /// The live chat of each info JSON, if downloaded.
    chat_of: Vec<Option<PathBuf>>,
    /// Caption files that belong to no info JSON.
    bare: Vec<PathBuf>,
    /// Live chats that belong to no info JSON (named, not imported).
    pub orphan_chats: Vec<PathBuf>,
    /// Caption files counted, for the summary.
    pub caption_files: usize,
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
        let mut inputs = Inputs {
            infos: Vec::new(),
            results: Vec::new(),
            captions_of: Vec::new(),
            chat_of: Vec::new(),
            bare: Vec::new(),
            orphan_chats: Vec::new(),
            caption_files: 0,
        };
        let mut captions = Vec::new();
        let mut chats = Vec::new();
        for path in all {
            let name = file_name(&path);
            if let Some(id) = name.strip_suffix(".info.json") {
                inputs.infos.push((id.to_string(), path));
            } else if name.ends_with(".live_chat.json") {
                chats.push(path);
            } else if name.ends_with(".json") && super::result::is_result(&path) {
                inputs.results.push(path);
            } else if CaptionFormat::of_path(&path).is_some() {
                captions.push(path);
            }
        }
        inputs.caption_files = captions.len();
        inputs.captions_of = vec![Vec::new(); inputs.infos.len()];
        inputs.chat_of = vec![None; inputs.infos.len()];
        let owners = Owners::of(&inputs.infos);
        for path in captions {
            match owners.owner(&path) {
                Some(i) => inputs.captions_of[i].push(path),
                None => inputs.bare.push(path),
            }
        }
        for path in chats {
            match owners.owner(&path) {
                Some(i) if inputs.chat_of[i].is_none() => inputs.chat_of[i] = Some(path),
                _ => inputs.orphan_chats.push(path),
            }
        }
        Ok(inputs)
    }

    /// The caption files of the info JSON at position `i`.
    pub fn captions_of(&self, i: usize) -> &[PathBuf] {
        &self.captions_of[i]
    }

    /// The live chat of the info JSON at position `i`.
    pub fn chat_of(&self, i: usize) -> Option<&PathBuf> {
        self.chat_of[i].as_ref()
    }

    /// Caption files that belong to no info JSON.
    pub fn bare(&self) -> &[PathBuf] {
        &self.bare
    }
}

/// Info JSONs by (folder, id), and by id alone where it is unique.
struct Owners<'a> {
    by_folder: HashMap<(&'a Path, &'a str), usize>,
    by_id: HashMap<&'a str, Option<usize>>,
}

impl<'a> Owners<'a> {
    fn of(infos: &'a [(String, PathBuf)]) -> Self {
        let mut owners = Owners {
            by_folder: HashMap::new(),
            by_id: HashMap::new(),
        };
        for (i, (id, path)) in infos.iter().enumerate() {
            let folder = path.parent().unwrap_or(Path::new(""));
            owners.by_folder.entry((folder, id.as_str())).or_insert(i);
            owners
                .by_id
                .entry(id.as_str())
                .and_modify(|e| *e = None)
                .or_insert(Some(i));
        }
        owners
    }

    /// The info JSON a file `<id>.<anything>` belongs to: the longest id
    /// that prefixes its name before a `.`, in its folder first.
    fn owner(&self, path: &Path) -> Option<usize> {
        let name = file_name(path);
        let folder = path.parent().unwrap_or(Path::new(""));
        let prefixes: Vec<&str> = name
            .char_indices()
            .filter(|&(at, c)| c == '.' && at > 0)
            .map(|(at, _)| &name[..at])
            .rev()
            .collect();
        prefixes
            .iter()
            .find_map(|id| self.by_folder.get(&(folder, *id)).copied())
            .or_else(|| {
                prefixes
                    .iter()
                    .find_map(|id| self.by_id.get(id).copied().flatten())
            })
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

/// Reads and parses one caption file: its cues, and the cues skipped for
/// a timing that cannot be read (the rest of the file is kept).
pub fn read_captions(path: &Path) -> Result<(CaptionFormat, Parsed)> {
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
    let parsed = captions::read(format, &text)
        .map_err(|e| anyhow::anyhow!("cannot parse as {}: {e}", format.extension()))?;
    Ok((format, parsed))
}

/// What a bare caption file's name says: `12_Some_Title.mp3.en.vtt` →
/// sequence 12, title "Some Title", language `en`.
#[derive(Debug, PartialEq)]
pub struct BareName {
    pub seq: Option<u64>,
    pub title: String,
    pub lang: Option<String>,
    /// The video's id, exactly as the file names it, when the name is an
    /// id rather than free text (see [`video_id`]).
    pub id: Option<String>,
}

/// Whether a caption file's stem is a video id (`0x0awirH-ju`,
/// `v4o95e`): one token of letters, digits, `-` and `_`, 6 to 40 long,
/// with a digit or a capital (free text such as `talk_about_cats` has
/// neither), and not the `12_Some_Title` form. Ids are case-sensitive,
/// so one is kept exactly as written.
pub fn video_id(stem: &str, seq: Option<u64>) -> Option<String> {
    let token = (6..=40).contains(&stem.len())
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let marked = stem
        .bytes()
        .any(|b| b.is_ascii_digit() || b.is_ascii_uppercase());
    (seq.is_none() && token && marked).then(|| stem.to_string())
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
        let id = video_id(&stem, seq);
        BareName {
            seq,
            title,
            lang,
            id,
        }
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
        assert_eq!(n.id, None, "free text is no id");
        let n = BareName::of(Path::new("0x0awirH-ju.en.vtt"));
        assert_eq!(
            n.id.as_deref(),
            Some("0x0awirH-ju"),
            "an id is kept as written"
        );
        assert_eq!(BareName::of(Path::new("talk_about_cats.vtt")).id, None);
        assert_eq!(BareName::of(Path::new("12_Some_Title.vtt")).id, None);
    }
}
