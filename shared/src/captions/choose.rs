//! Which caption track of a video becomes its transcript: the one rule
//! `import` and the `transcript` tool share.
//!
//! A yt-dlp request routinely writes several tracks, and two of them can be
//! different languages under similar names: on a Spanish video,
//! `<id>.en.vtt` is the platform's machine *translation* and
//! `<id>.es-orig.vtt` is what was said. A translation is a fluent text of
//! words nobody spoke, so it is never a transcript while the original is
//! there.
//!
//! The video's original language is yt-dlp's `language` field, else the
//! language of an `-orig` track, else the one language of its automatic
//! tracks when they all share one. The rules, best first:
//!
//! 1. the uploader's captions in the asked language;
//! 2. the uploader's captions in the original language;
//! 3. automatic captions of the original audio (`-orig`, or an automatic
//!    track in the original language; with the original unknown, an
//!    automatic track in the asked language);
//! 4. the uploader's captions in any other language.
//!
//! Any other automatic track is a machine translation: [`rank`] sets it
//! apart in [`Choice::translations`], and the caller decides (import leaves
//! such a video without a transcript unless asked to keep it marked; the
//! `transcript` tool transcribes the audio instead). Within a rule, json3
//! beats srv3 beats vtt beats srt, then the asked language exactly, then
//! the file name, so the choice is the same on every run.

use std::path::{Path, PathBuf};

use super::CaptionFormat;

/// One caption file of a video.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// The file.
    pub path: PathBuf,
    /// The language code as yt-dlp named the file (`en`, `es-orig`).
    pub code: String,
    /// The file's format.
    pub format: CaptionFormat,
    /// Written by the uploader (listed under the info JSON's
    /// `subtitles`); else the platform's automatic captions.
    pub manual: bool,
}

impl Track {
    /// The language without region or `-orig` (`en-US` → `en`).
    pub fn base(&self) -> String {
        base(&self.code)
    }

    /// The language the transcript is in, as the archive records it
    /// (`es-orig` → `es`).
    pub fn lang(&self) -> &str {
        self.code.trim_end_matches("-orig")
    }

    fn is_orig(&self) -> bool {
        self.code.ends_with("-orig")
    }
}

fn base(code: &str) -> String {
    code.trim_end_matches("-orig")
        .split(['-', '_'])
        .next()
        .unwrap_or("")
        .to_lowercase()
}

/// yt-dlp's own files beside the tracks, `<id>.info.json` and
/// `<id>.live_chat.json`: JSON, but not captions.
const NOT_TRACKS: [&str; 2] = ["info", "live_chat"];

/// The caption files among `paths` named `<stem>.<code>.<ext>` (or
/// `<stem>.<ext>`, a file with no language code) with a caption extension; `manual` lists the codes the uploader wrote (the
/// keys of the info JSON's `subtitles`). Sorted by path.
pub fn tracks<'a>(
    paths: impl IntoIterator<Item = &'a Path>,
    stem: &str,
    manual: &[String],
) -> Vec<Track> {
    let mut out: Vec<Track> = paths
        .into_iter()
        .filter_map(|p| {
            let format = CaptionFormat::of_path(p)?;
            let name = p.file_name()?.to_str()?;
            let rest = name.strip_prefix(stem)?.strip_prefix('.')?;
            let code = rest.strip_suffix(format.extension())?.trim_end_matches('.');
            let ok = !code.contains('.') && !NOT_TRACKS.contains(&code);
            ok.then(|| Track {
                path: p.to_path_buf(),
                code: code.to_string(),
                format,
                manual: manual.iter().any(|m| m == code),
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The caption files in folder `dir` named `<stem>.<code>.<ext>`.
pub fn tracks_in(dir: &Path, stem: &str, manual: &[String]) -> Vec<Track> {
    let paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    tracks(paths.iter().map(PathBuf::as_path), stem, manual)
}

/// The video's original language: `declared` (yt-dlp's `language`), else
/// the language of an `-orig` track, else the one language every
/// automatic track shares.
pub fn original_language(declared: Option<&str>, tracks: &[Track]) -> Option<String> {
    if let Some(l) = declared.map(base).filter(|l| !l.is_empty()) {
        return Some(l);
    }
    if let Some(t) = tracks.iter().find(|t| t.is_orig()) {
        return Some(t.base());
    }
    let mut auto = tracks
        .iter()
        .filter(|t| !t.manual && !t.code.is_empty())
        .map(Track::base);
    let first = auto.next()?;
    auto.all(|b| b == first).then_some(first)
}

/// Why a track may be the transcript: the rule it falls under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    /// The uploader's captions in the asked language.
    UploaderAsked,
    /// The uploader's captions in the original language.
    UploaderOriginal,
    /// The platform's automatic captions of the original audio.
    AutoOriginal,
    /// The uploader's captions in another language.
    UploaderOther,
    /// A file with no language code in its name (made by hand or by a
    /// speech-to-text run, not by the platform).
    Unlabelled,
}

impl Rule {
    /// The rule in words, for import's report.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::UploaderAsked => "the uploader's captions in the wanted language",
            Rule::UploaderOriginal => "the uploader's captions in the spoken language",
            Rule::AutoOriginal => "automatic captions in the spoken language",
            Rule::UploaderOther => "the uploader's captions in another language",
            Rule::Unlabelled => "a caption file with no language in its name",
        }
    }
}

/// The tracks of a video, sorted out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Choice {
    /// The tracks that may be the transcript, best first, with their rule.
    pub ranked: Vec<(Track, Rule)>,
    /// Machine translations: never a transcript while `ranked` holds any.
    pub translations: Vec<Track>,
    /// The original language the choice assumed, when known.
    pub original: Option<String>,
}

impl Choice {
    /// The best track, if any may be the transcript.
    pub fn best(&self) -> Option<&Track> {
        self.ranked.first().map(|(t, _)| t)
    }
}

/// The rule `t` falls under, or `None` for a machine translation.
fn rule(t: &Track, asked: &str, original: Option<&str>) -> Option<Rule> {
    let of_original = original.is_some_and(|o| t.base() == o);
    if t.code.is_empty() {
        return Some(Rule::Unlabelled);
    }
    match (t.manual, t.is_orig()) {
        (true, _) if t.base() == asked => Some(Rule::UploaderAsked),
        (true, _) if of_original => Some(Rule::UploaderOriginal),
        (true, _) => Some(Rule::UploaderOther),
        (false, true) => Some(Rule::AutoOriginal),
        (false, false) if of_original => Some(Rule::AutoOriginal),
        (false, false) if original.is_none() && t.base() == asked => Some(Rule::AutoOriginal),
        (false, false) => None,
    }
}

/// Sorts `tracks` for a reader who asked for language `asked`, the
/// video's original language being `original` (see [`original_language`]).
pub fn rank(tracks: Vec<Track>, asked: &str, original: Option<&str>) -> Choice {
    let asked = base(asked);
    let mut choice = Choice {
        original: original.map(str::to_string),
        ..Choice::default()
    };
    for t in tracks {
        match rule(&t, &asked, original) {
            Some(r) => choice.ranked.push((t, r)),
            None => choice.translations.push(t),
        }
    }
    choice.ranked.sort_by(|(a, ra), (b, rb)| {
        let key = |t: &Track, r: &Rule| (*r, t.format, t.base() != asked, t.path.clone());
        key(a, ra).cmp(&key(b, rb))
    });
    choice
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(code: &str, format: CaptionFormat, manual: bool) -> Track {
        Track {
            path: PathBuf::from(format!("v.{code}.{}", format.extension())),
            code: code.into(),
            format,
            manual,
        }
    }

    fn best(tracks: &[Track], asked: &str, declared: Option<&str>) -> Option<Track> {
        let original = original_language(declared, tracks);
        rank(tracks.to_vec(), asked, original.as_deref())
            .best()
            .cloned()
    }

    use CaptionFormat::{Json3, Srt, Vtt};

    #[test]
    fn an_auto_translation_is_never_chosen_over_the_original() {
        let spanish = [t("en", Vtt, false), t("es", Vtt, false)];
        // yt-dlp's `language` names the original.
        assert_eq!(best(&spanish, "en", Some("es")).unwrap().code, "es");
        let choice = rank(spanish.to_vec(), "en", Some("es"));
        assert_eq!(choice.translations, vec![t("en", Vtt, false)]);
        // Without it, an -orig track tells.
        let orig = [t("en", Json3, false), t("es-orig", Vtt, false)];
        assert_eq!(best(&orig, "en", None).unwrap().code, "es-orig");
        assert_eq!(best(&orig, "en", None).unwrap().lang(), "es");
        // Only a translation: nothing may be the transcript.
        let only = rank(vec![t("en", Vtt, false)], "en", Some("es"));
        assert_eq!((only.best(), only.translations.len()), (None, 1));
    }

    #[test]
    fn uploader_captions_then_format_then_name_decide() {
        let english = [
            t("en-orig", Json3, false),
            t("en", Srt, true),
            t("en", Vtt, true),
            t("de", Json3, true),
        ];
        let got = best(&english, "en", Some("en")).unwrap();
        assert_eq!((got.code.as_str(), got.format), ("en", Vtt));
        assert_eq!(best(&english, "de", Some("en")).unwrap().code, "de");
        let other = [t("fr", Srt, true), t("en-orig", Vtt, false)];
        assert_eq!(
            best(&other, "de", Some("en")).unwrap().code,
            "en-orig",
            "the original audio's captions beat another language"
        );
        let spanish = [t("es", Srt, true), t("es-orig", Json3, false)];
        let got = best(&spanish, "en", Some("es")).unwrap();
        assert_eq!((got.code.as_str(), got.manual), ("es", true));
    }

    #[test]
    fn with_the_original_unknown_a_lone_automatic_language_is_taken() {
        let german = [t("de", Vtt, false)];
        assert_eq!(original_language(None, &german).as_deref(), Some("de"));
        assert_eq!(best(&german, "en", None).unwrap().code, "de");
        // Two automatic languages and no hint: the asked one is taken, the
        // other may be a translation.
        let two = [t("de", Vtt, false), t("en", Vtt, false)];
        assert_eq!(original_language(None, &two), None);
        let choice = rank(two.to_vec(), "en", None);
        assert_eq!(choice.best().unwrap().code, "en");
        assert_eq!(choice.translations[0].code, "de");
    }

    #[test]
    fn tracks_are_found_by_stem_and_extension() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "t.en.vtt",
            "t.es-orig.json3",
            "t.info.json",
            "t.live_chat.json",
            "u.en.vtt",
            "t.en.vtt.part",
            "t.srt",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let found = tracks_in(dir.path(), "t", &["en".to_string()]);
        let codes: Vec<(&str, bool)> = found.iter().map(|t| (t.code.as_str(), t.manual)).collect();
        assert_eq!(codes, vec![("en", true), ("es-orig", false), ("", false)]);
        let choice = rank(found, "en", None);
        assert_eq!(choice.ranked.last().unwrap().1, Rule::Unlabelled);
    }
}
