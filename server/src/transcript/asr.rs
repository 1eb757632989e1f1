//! Reading Whisper's JSON and deciding whether to trust it.
//!
//! Whisper's characteristic error is fluent text for audio that holds no
//! such speech, which a quote check cannot catch. So a speech-to-text
//! transcript is marked `confident: false` when the decoder was unsure or
//! heard mostly non-speech:
//!
//! - the duration-weighted mean of the segments' `avg_logprob` is below
//!   [`LOGPROB_FLOOR`] (exactly at the floor counts as sure), or
//! - half the audio or more lies in segments whose `no_speech_prob` is
//!   above [`NO_SPEECH`] (music: a healthy log-probability and a high
//!   no-speech probability).
//!
//! The two thresholds are Whisper's own defaults for the same decisions.
//! A segment without a start is refused, never stamped at 0:00.

use serde::Deserialize;

/// Mean log-probability below this is an unsure decode.
pub const LOGPROB_FLOOR: f64 = -1.0;
/// A segment above this no-speech probability is non-speech.
pub const NO_SPEECH: f64 = 0.6;

#[derive(Deserialize)]
struct Output {
    #[serde(default)]
    language: Option<String>,
    segments: Vec<RawSegment>,
}

#[derive(Deserialize)]
struct RawSegment {
    start: Option<f64>,
    end: Option<f64>,
    #[serde(default)]
    text: String,
    #[serde(default)]
    avg_logprob: Option<f64>,
    #[serde(default)]
    no_speech_prob: Option<f64>,
}

/// One decoded segment.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Start, in seconds.
    pub start: f64,
    /// End, in seconds.
    pub end: f64,
    /// The words heard.
    pub text: String,
    /// Whisper's mean log-probability of the segment's tokens.
    pub avg_logprob: f64,
    /// Whisper's probability that the segment holds no speech.
    pub no_speech_prob: f64,
}

/// A decode: its segments and the language it reported.
#[derive(Debug, Clone, PartialEq)]
pub struct Decode {
    /// The language Whisper detected.
    pub language: Option<String>,
    /// The segments heard.
    pub segments: Vec<Segment>,
}

/// Parses Whisper's JSON output.
pub fn parse(text: &str) -> Result<Decode, String> {
    let out: Output = serde_json::from_str(text)
        .map_err(|e| format!("the speech-to-text output is not Whisper JSON ({e})"))?;
    let mut segments = Vec::new();
    for (i, s) in out.segments.into_iter().enumerate() {
        let start = s
            .start
            .filter(|t| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                format!("speech-to-text segment {i} has no start time; it is not stamped at 0:00")
            })?;
        segments.push(Segment {
            start,
            end: s.end.filter(|e| e.is_finite()).unwrap_or(start).max(start),
            text: s.text.trim().to_string(),
            avg_logprob: s.avg_logprob.unwrap_or(f64::NEG_INFINITY),
            no_speech_prob: s.no_speech_prob.unwrap_or(1.0),
        });
    }
    Ok(Decode {
        language: out.language.filter(|l| !l.is_empty()),
        segments,
    })
}

/// The confidence verdict and the figures behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// The mean log-probability over the segments.
    pub mean_logprob: f64,
    /// Share of the audio in non-speech segments, 0 to 1.
    pub non_speech: f64,
    /// Whether the transcript may be taken as evidence: a mean log-probability at [`LOGPROB_FLOOR`] or above, and less than half the audio without speech.
    pub confident: bool,
}

/// Weighs each segment by its duration (all equal when none has one).
pub fn gate(segments: &[Segment]) -> Gate {
    let weights: Vec<f64> = segments.iter().map(|s| s.end - s.start).collect();
    let uniform = weights.iter().all(|w| *w <= 0.0);
    let w = |i: usize| if uniform { 1.0 } else { weights[i].max(0.0) };
    let total: f64 = (0..segments.len()).map(w).sum();
    if total <= 0.0 {
        return Gate {
            mean_logprob: f64::NEG_INFINITY,
            non_speech: 1.0,
            confident: false,
        };
    }
    let mean_logprob = segments
        .iter()
        .enumerate()
        .map(|(i, s)| w(i) * s.avg_logprob)
        .sum::<f64>()
        / total;
    let non_speech = segments
        .iter()
        .enumerate()
        .filter(|(_, s)| s.no_speech_prob > NO_SPEECH)
        .map(|(i, _)| w(i))
        .sum::<f64>()
        / total
        + 0.0; // an empty sum is -0.0
    Gate {
        mean_logprob,
        non_speech,
        confident: mean_logprob >= LOGPROB_FLOOR && non_speech < 0.5,
    }
}

/// The language a decoder printed (`Detected language 'Spanish' …`).
pub fn language_from_log(log: &str) -> Option<String> {
    let rest = log.split("Detected language").nth(1)?;
    let name = rest.split(['\'', '"']).nth(1)?;
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(start: f64, end: f64, lp: f64, ns: f64) -> Segment {
        Segment {
            start,
            end,
            text: "x".into(),
            avg_logprob: lp,
            no_speech_prob: ns,
        }
    }

    #[test]
    fn the_gate_holds_at_its_boundary_and_catches_music() {
        assert!(
            gate(&[seg(0.0, 10.0, -1.0, 0.1)]).confident,
            "exactly at the floor is sure"
        );
        assert!(!gate(&[seg(0.0, 10.0, -1.0001, 0.1)]).confident);
        let weighted = gate(&[seg(0.0, 90.0, -0.5, 0.1), seg(90.0, 100.0, -3.0, 0.1)]);
        assert!((weighted.mean_logprob - -0.75).abs() < 1e-9 && weighted.confident);
        let music = gate(&[seg(0.0, 60.0, -0.2, 0.95), seg(60.0, 70.0, -0.3, 0.2)]);
        assert!(!music.confident && music.non_speech > 0.8, "{music:?}");
        let half = gate(&[seg(0.0, 5.0, -0.2, 0.9), seg(5.0, 10.0, -0.2, 0.1)]);
        assert!(!half.confident, "half non-speech is mostly non-speech");
        assert!(!gate(&[]).confident);
    }

    #[test]
    fn a_segment_without_a_start_is_refused() {
        let err =
            parse(r#"{"segments":[{"start":1.0,"end":2.0,"text":"a"},{"end":3.0,"text":"b"}]}"#)
                .unwrap_err();
        assert_eq!(
            err,
            "speech-to-text segment 1 has no start time; it is not stamped at 0:00"
        );
        assert_eq!(
            language_from_log("Detected language 'Spanish' with probability 0.98"),
            Some("Spanish".into())
        );
    }
}
