//! Which caption file of a video to import when there are several.
//!
//! The order, best first: the uploader's own captions in the wanted
//! language; the `-orig` track (automatic captions in the language actually
//! spoken); the uploader's captions in another language; automatic
//! captions in the wanted language when no `-orig` track exists; anything
//! else. A plain `en` beside an `es-orig` is an auto-translation: a fluent
//! transcript of words nobody said, so it ranks below the original. Ties
//! go to the richer format (json3, srv3, vtt, srt), then the language name.

use std::path::PathBuf;

use archilyzer_core::captions::CaptionFormat;

/// One candidate file.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    pub lang: String,
    pub format: CaptionFormat,
    /// Listed under the info JSON's `subtitles` (written by the uploader).
    pub manual: bool,
}

/// The candidates, best first, each with the reason for its rank.
pub fn rank(mut candidates: Vec<Candidate>, wanted: &str) -> Vec<(Candidate, &'static str)> {
    let has_orig = candidates.iter().any(|c| c.lang.ends_with("-orig"));
    let matches = |lang: &str| {
        lang == wanted
            || lang
                .strip_prefix(wanted)
                .is_some_and(|r| r.starts_with('-') && !r.ends_with("-orig"))
    };
    let score = |c: &Candidate| -> (u8, &'static str) {
        if c.manual && matches(&c.lang) {
            (0, "the uploader's captions in the wanted language")
        } else if c.lang.ends_with("-orig") {
            (1, "automatic captions in the spoken language")
        } else if c.manual {
            (2, "the uploader's captions")
        } else if !has_orig && matches(&c.lang) {
            (3, "automatic captions in the wanted language")
        } else {
            (4, "the only kind left (may be an auto-translation)")
        }
    };
    candidates
        .sort_by(|a, b| (score(a).0, a.format, &a.lang).cmp(&(score(b).0, b.format, &b.lang)));
    candidates
        .into_iter()
        .map(|c| {
            let why = score(&c).1;
            (c, why)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(lang: &str, format: CaptionFormat, manual: bool) -> Candidate {
        Candidate {
            path: PathBuf::from(format!("v.{lang}.{}", format.extension())),
            lang: lang.into(),
            format,
            manual,
        }
    }

    #[test]
    fn the_original_language_beats_an_auto_translation() {
        let ranked = rank(
            vec![
                cand("en", CaptionFormat::Vtt, false),
                cand("es-orig", CaptionFormat::Vtt, false),
            ],
            "en",
        );
        assert_eq!(ranked[0].0.lang, "es-orig");
        let ranked = rank(
            vec![
                cand("en-orig", CaptionFormat::Vtt, false),
                cand("en", CaptionFormat::Json3, false),
            ],
            "en",
        );
        assert_eq!(ranked[0].0.lang, "en-orig");
    }

    #[test]
    fn uploader_captions_win_and_ties_go_to_the_richer_format() {
        let ranked = rank(
            vec![
                cand("en-orig", CaptionFormat::Json3, false),
                cand("en", CaptionFormat::Srt, true),
                cand("en", CaptionFormat::Vtt, true),
            ],
            "en",
        );
        assert_eq!(
            (ranked[0].0.lang.as_str(), ranked[0].0.format),
            ("en", CaptionFormat::Vtt)
        );
        let ranked = rank(
            vec![
                cand("fr", CaptionFormat::Vtt, false),
                cand("de", CaptionFormat::Vtt, false),
            ],
            "en",
        );
        assert_eq!(ranked[0].0.lang, "de", "deterministic: by language name");
    }
}
