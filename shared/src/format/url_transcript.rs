//! The `transcript` tool's answer as JSON: the one declaration of that
//! wire format. The server serialises its answer from [`UrlTranscript`];
//! `archilyzer-index import` reads a saved answer back through the same
//! type, so the two cannot disagree about a field.
//!
//! Reading is lenient where a saved file may say less than the server
//! writes: the counts, the text and the language may be absent, a
//! segment's time may be absent or null (read as no time, which the
//! importer refuses naming the segment, so nothing is stamped at 0:00),
//! and an older answer's `asr` may lack its newer fields.

use serde::{Deserialize, Deserializer, Serialize};

/// `transcript`'s answer (its text is the same, as pretty JSON).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UrlTranscript {
    /// The URL asked.
    pub url: String,
    /// Where it is hosted.
    #[serde(default)]
    pub platform: String,
    /// Its title, as yt-dlp read it.
    #[serde(default)]
    pub title: Option<String>,
    /// Its channel or uploader.
    #[serde(default)]
    pub channel: Option<String>,
    /// Its length, seconds.
    #[serde(default)]
    pub duration_s: Option<f64>,
    /// `YYYYMMDD`.
    #[serde(default)]
    pub upload_date: Option<String>,
    /// `manual`, `auto` (the platform's captions) or `asr` (transcribed here).
    pub caption_source: String,
    /// The language of the words.
    #[serde(default)]
    pub lang: String,
    /// Segments in all.
    #[serde(default)]
    pub n_segments: usize,
    /// Characters of speech.
    #[serde(default)]
    pub chars: usize,
    /// Each segment with its start, seconds.
    pub segments: Vec<Segment>,
    /// Every segment as `[h:mm:ss] words`, one a line.
    #[serde(default)]
    pub text: String,
    /// How speech-to-text went, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asr: Option<Asr>,
}

/// One segment.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Segment {
    /// Its start, seconds.
    #[serde(default = "not_a_number", deserialize_with = "number_or_nan")]
    pub t: f64,
    /// Its words.
    #[serde(default)]
    pub text: String,
}

/// How speech-to-text went.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Asr {
    /// The Whisper model.
    #[serde(default)]
    pub model: String,
    /// The language it heard.
    #[serde(default)]
    pub language: String,
    /// The mean log-probability of its segments.
    #[serde(default = "not_a_number", deserialize_with = "number_or_nan")]
    pub mean_logprob: f64,
    /// The share of segments it judged not speech.
    #[serde(default)]
    pub non_speech_share: f64,
    /// Whether the decode passes the confidence gate.
    #[serde(default)]
    pub confident: bool,
}

/// A number that is not there: NaN, which no check of a time (or a
/// shown log-probability) accepts.
fn not_a_number() -> f64 {
    f64::NAN
}

/// A number, or NaN for a `null`.
fn number_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_answer_reads_back_through_the_type_it_was_written_from() {
        let written = UrlTranscript {
            url: "https://a.example/v".into(),
            platform: "youtube".into(),
            title: Some("A talk".into()),
            channel: None,
            duration_s: Some(30.0),
            upload_date: None,
            caption_source: "asr".into(),
            lang: "en".into(),
            n_segments: 1,
            chars: 5,
            segments: vec![Segment {
                t: 1.5,
                text: "hello".into(),
            }],
            text: "[0:00:01] hello".into(),
            asr: Some(Asr {
                model: "small".into(),
                language: "en".into(),
                mean_logprob: -0.3,
                non_speech_share: 0.0,
                confident: true,
            }),
        };
        let back: UrlTranscript =
            serde_json::from_str(&serde_json::to_string(&written).unwrap()).unwrap();
        assert_eq!(back.segments[0].t, 1.5);
        assert_eq!(back.asr.unwrap().mean_logprob, -0.3);
        let sparse: UrlTranscript = serde_json::from_str(
            r#"{"url": "u", "caption_source": "auto", "segments": [{"text": "no time"}, {"t": null}]}"#,
        )
        .unwrap();
        assert!(
            sparse.segments.iter().all(|s| s.t.is_nan()),
            "absent or null: no time"
        );
        assert_eq!((sparse.lang.as_str(), sparse.n_segments), ("", 0));
    }
}
