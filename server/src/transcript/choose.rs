//! Which caption file of the ones yt-dlp wrote becomes the transcript.
//!
//! One request routinely writes several files, directory order means
//! nothing, and two files can be different languages under similar names:
//! on a Spanish video, `t.en.json3` is YouTube's machine *translation* and
//! `t.es-orig.json3` is what was said. The rules, in order:
//!
//! 1. uploader captions in the asked language;
//! 2. uploader captions in the video's original language;
//! 3. the platform's automatic captions of the original audio (`*-orig`,
//!    or an automatic track in the original language);
//! 4. uploader captions in any other language.
//!
//! An automatic track in another language than the original is a
//! translation and is never chosen: with nothing else, the audio is
//! transcribed instead. Within a rule, json3 beats srv3 beats vtt beats
//! srt, then the asked language exactly, then the name (so the choice is
//! the same on every run).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// A caption file and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    pub path: PathBuf,
    /// The language code as yt-dlp named the file (`en`, `es-orig`).
    pub code: String,
    pub ext: String,
    /// Written by the uploader (else the platform's automatic captions).
    pub manual: bool,
}

impl Track {
    /// The language without region or `-orig` (`en-US` → `en`).
    pub fn base(&self) -> String {
        base(&self.code)
    }
}

fn base(code: &str) -> String {
    code.trim_end_matches("-orig")
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_lowercase()
}

const EXTS: &[&str] = &["json3", "srv3", "vtt", "srt"];

/// The caption files under `dir` named `<stem>.<lang>.<ext>`.
pub fn tracks(dir: &Path, stem: &str, info: &Value) -> Vec<Track> {
    let manual: Vec<String> = info["subtitles"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let mut out: Vec<Track> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let rest = name.strip_prefix(&format!("{stem}."))?;
            let (code, ext) = rest.rsplit_once('.')?;
            EXTS.contains(&ext).then(|| Track {
                path: e.path(),
                code: code.to_string(),
                ext: ext.to_string(),
                manual: manual.iter().any(|m| m == code),
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The video's original language: yt-dlp's `language`, else the base of
/// an `-orig` track.
pub fn original_language(info: &Value, tracks: &[Track]) -> Option<String> {
    info["language"]
        .as_str()
        .filter(|l| !l.is_empty())
        .map(base)
        .or_else(|| {
            tracks
                .iter()
                .find(|t| t.code.ends_with("-orig"))
                .map(Track::base)
        })
}

/// The rule a track falls under (lower is better), or `None` for a
/// machine translation.
fn rule(t: &Track, want: &str, original: Option<&str>) -> Option<u8> {
    let is_original = original.is_none_or(|o| t.base() == o);
    match (t.manual, t.code.ends_with("-orig")) {
        (true, _) if t.base() == want => Some(1),
        (true, _) if is_original => Some(2),
        (false, true) => Some(3),
        (false, false) if original.is_some() && is_original => Some(3),
        (false, false) if original.is_none() && t.base() == want => Some(3),
        (true, _) => Some(4),
        (false, false) => None,
    }
}

/// The track to read, if any may be.
pub fn choose(tracks: &[Track], want: &str, original: Option<&str>) -> Option<Track> {
    let want = base(want);
    tracks
        .iter()
        .filter_map(|t| Some((rule(t, &want, original)?, t)))
        .min_by_key(|(r, t)| {
            (
                *r,
                EXTS.iter().position(|e| *e == t.ext).unwrap_or(EXTS.len()),
                t.code != want,
                t.path.clone(),
            )
        })
        .map(|(_, t)| t.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(code: &str, ext: &str, manual: bool) -> Track {
        Track {
            path: PathBuf::from(format!("t.{code}.{ext}")),
            code: code.into(),
            ext: ext.into(),
            manual,
        }
    }

    #[test]
    fn an_auto_translation_is_never_chosen_over_the_original() {
        let spanish = [t("en", "json3", false), t("es-orig", "json3", false)];
        let got = choose(&spanish, "en", Some("es")).unwrap();
        assert_eq!(got.code, "es-orig");
        // Even without yt-dlp's `language`, the -orig track tells.
        let orig = original_language(&Value::Null, &spanish);
        assert_eq!(orig.as_deref(), Some("es"));
        assert_eq!(
            choose(&spanish, "en", orig.as_deref()).unwrap().code,
            "es-orig"
        );
        // Only a translation: nothing is chosen (the audio is transcribed).
        assert_eq!(choose(&[t("en", "json3", false)], "en", Some("es")), None);
    }

    #[test]
    fn uploader_captions_then_format_then_name_decide() {
        let english = [
            t("en-orig", "json3", false),
            t("en", "vtt", true),
            t("en", "json3", true),
            t("de", "json3", true),
        ];
        let got = choose(&english, "en", Some("en")).unwrap();
        assert_eq!(
            (got.code.as_str(), got.ext.as_str(), got.manual),
            ("en", "json3", true)
        );
        let got = choose(&english, "de", Some("en")).unwrap();
        assert_eq!(got.code, "de");
        let got = choose(
            &[t("fr", "srt", true), t("en-orig", "vtt", false)],
            "de",
            Some("en"),
        )
        .unwrap();
        assert_eq!(
            got.code, "en-orig",
            "the original audio's captions beat another language"
        );
        let got = choose(
            &[t("es", "srt", true), t("es-orig", "json3", false)],
            "en",
            Some("es"),
        )
        .unwrap();
        assert_eq!(
            (got.code.as_str(), got.manual),
            ("es", true),
            "uploader captions of the original first"
        );
    }
}
