//! `transcript`: the spoken words of any video URL yt-dlp can fetch, from
//! its captions when it has any and from speech-to-text on this machine
//! when it has none, saying which, and saying when a machine transcript is
//! not to be trusted.
//!
//! Promises:
//! - only an http(s) URL reaches a subprocess ([`url`]), always after
//!   `--`, and every subprocess gets an argument array, never a shell;
//! - yt-dlp is always asked for automatic captions too
//!   (`--write-auto-subs`): without it most of YouTube would look
//!   captionless and be transcribed slowly and worse;
//! - the caption file is chosen by rule, never by directory order, and a
//!   machine translation is never taken for the original
//!   ([`archilyzer_core::captions::choose`], the rule import follows too);
//! - no captions means transcribe; captions with no words is an error (a
//!   transcript with no words reads as "nobody spoke");
//! - no timestamp is ever 0 because a cue was half-parsed;
//! - the decoder detects the language: `--language` is never passed (a
//!   forced language makes Whisper translate, fluently);
//! - a speech-to-text result carries an `asr` block with `confident`
//!   ([`asr`]); captions never carry one;
//! - the description is never used as a transcript;
//! - everything downloaded goes to a scratch directory that removes
//!   itself, and nothing is uploaded anywhere.

pub mod asr;
pub mod discover;
pub mod run;
pub mod url;

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::tool::ToolResult;
use archilyzer_core::captions;
use archilyzer_core::captions::choose::{self, Track};
use archilyzer_core::captions::info::YtDlpInfo;
pub use archilyzer_core::format::url_transcript::{Asr, Segment, UrlTranscript};
use discover::{Locator, WHISPER, YT_DLP};

/// How long each step may take.
pub const CAPTIONS_TIMEOUT: Duration = Duration::from_secs(180);
/// How long fetching a video's audio may take.
pub const AUDIO_TIMEOUT: Duration = Duration::from_secs(1200);
/// How long speech-to-text may take.
pub const ASR_TIMEOUT: Duration = Duration::from_secs(3600);

/// One line of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Start, in seconds.
    pub t: f64,
    /// The words said.
    pub text: String,
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// yt-dlp's arguments for the captions and metadata of `url`, written
/// into `dir` as `t.*`.
pub fn captions_argv(url: &str, lang: &str, dir: &Path) -> Vec<OsString> {
    let template = dir.join("t.%(ext)s");
    let langs = format!("^{}(-.*)?$,.*-orig", regex_escape(lang));
    let mut argv = os(&[
        "--skip-download",
        "--write-subs",
        "--write-auto-subs",
        "--sub-langs",
        &langs,
        "--sub-format",
        "json3/srv3/vtt/best",
        "--write-info-json",
        "--no-playlist",
        "--no-progress",
        "-o",
    ]);
    argv.push(template.into_os_string());
    argv.extend(os(&["--", url]));
    argv
}

/// yt-dlp's arguments to fetch the audio of `url` into `dir` as `audio.*`.
pub fn audio_argv(url: &str, dir: &Path) -> Vec<OsString> {
    let mut argv = os(&[
        "-f",
        "bestaudio/best",
        "--no-playlist",
        "--no-progress",
        "-o",
    ]);
    argv.push(dir.join("audio.%(ext)s").into_os_string());
    argv.extend(os(&["--", url]));
    argv
}

/// whisper-ctranslate2's arguments: transcribe (never translate), the
/// language left to detection, JSON into `dir`.
pub fn whisper_argv(audio: &Path, model: &str, dir: &Path) -> Vec<OsString> {
    let mut argv = vec![audio.as_os_str().to_owned()];
    argv.extend(os(&[
        "--model",
        model,
        "--task",
        "transcribe",
        "--output_format",
        "json",
        "--output_dir",
    ]));
    argv.push(dir.as_os_str().to_owned());
    argv
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special
                .then_some('\\')
                .into_iter()
                .chain(std::iter::once(c))
        })
        .collect()
}

/// What was asked, checked.
struct Ask {
    url: url::VideoUrl,
    lang: String,
    asr: bool,
    model: String,
}

/// `transcript`'s arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct UrlArgs {
    /// The video's http(s) URL.
    pub url: String,
    /// Caption language to prefer (default en); the original audio's
    /// captions are used over a machine translation.
    #[serde(default)]
    pub lang: Option<String>,
    /// Transcribe the audio when there are no captions (default true).
    #[serde(default = "asr_by_default")]
    pub asr: bool,
    /// Whisper model (default small).
    #[serde(default)]
    pub asr_model: Option<String>,
}

/// Speech-to-text is on unless a call turns it off.
fn asr_by_default() -> bool {
    true
}

fn ask(args: &UrlArgs) -> Result<Ask, String> {
    let url = url::classify(&args.url)?;
    let lang = args.lang.as_deref().unwrap_or("en").trim().to_string();
    let lang_ok = !lang.is_empty()
        && lang.len() <= 20
        && lang
            .split('-')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if !lang_ok {
        return Err(format!(
            "transcript: lang {lang:?} is not a language code such as en, es or pt-BR"
        ));
    }
    let model = args
        .asr_model
        .as_deref()
        .unwrap_or("small")
        .trim()
        .to_string();
    if model.is_empty()
        || !model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        || model.starts_with('-')
    {
        return Err(format!("transcript: asr_model {model:?} is not a model name such as tiny, small, medium or large-v3"));
    }
    Ok(Ask {
        url,
        lang,
        asr: args.asr,
        model,
    })
}

fn failed(what: &str, ran: &run::Ran) -> String {
    format!(
        "{what} failed (exit {}): {}",
        ran.code.map_or("by signal".to_string(), |c| c.to_string()),
        ran.tail(6)
    )
}

/// The transcript from the chosen caption file, or why there is none.
fn from_captions(track: &Track) -> Result<Vec<Line>, String> {
    let text = std::fs::read_to_string(&track.path).map_err(|e| {
        format!(
            "the caption file {} cannot be read: {e}",
            track.path.display()
        )
    })?;
    let cues = captions::parse(track.format, &text).map_err(|e| {
        format!(
            "the {} caption track ({}) cannot be read: {e}",
            track.code,
            track.format.extension()
        )
    })?;
    let lines: Vec<Line> = cues
        .into_iter()
        .filter(|c| !c.text.trim().is_empty())
        .map(|c| Line {
            t: c.start,
            text: c.text,
        })
        .collect();
    if lines.is_empty() {
        return Err(format!(
            "the {} caption track has no words in it. That is not the same as silence, so no transcript is returned; try again later or with asr",
            track.code
        ));
    }
    Ok(lines)
}

/// Downloads the audio and transcribes it; the lines and the `asr` block.
fn from_speech(loc: &Locator, a: &Ask, yt: &Path, dir: &Path) -> Result<(Vec<Line>, Asr), String> {
    let whisper = loc.find(WHISPER)?;
    let ran = run::run(yt, &audio_argv(&a.url.url, dir), AUDIO_TIMEOUT)?;
    if !ran.success {
        return Err(failed("downloading the audio with yt-dlp", &ran));
    }
    let audio = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_stem().is_some_and(|s| s == "audio")
                && p.extension().is_some_and(|e| e != "part")
        })
        .ok_or("yt-dlp finished but wrote no audio file")?;
    let ran = run::run(&whisper, &whisper_argv(&audio, &a.model, dir), ASR_TIMEOUT)?;
    if !ran.success {
        return Err(failed("speech-to-text with whisper-ctranslate2", &ran));
    }
    let out = dir.join("audio.json");
    let text = std::fs::read_to_string(&out)
        .map_err(|e| format!("whisper-ctranslate2 wrote no {} ({e})", out.display()))?;
    let decode = asr::parse(&text)?;
    let lines: Vec<Line> = decode
        .segments
        .iter()
        .filter(|s| !s.text.is_empty())
        .map(|s| Line {
            t: s.start,
            text: s.text.clone(),
        })
        .collect();
    if lines.is_empty() {
        return Err("speech-to-text heard no words in the audio; nothing is returned rather than an empty transcript".into());
    }
    let g = asr::gate(&decode.segments);
    let language = decode
        .language
        .or_else(|| asr::language_from_log(&format!("{}\n{}", ran.stdout, ran.stderr)))
        .unwrap_or_else(|| "unknown".into());
    let block = Asr {
        model: a.model.clone(),
        language,
        mean_logprob: (g.mean_logprob * 1000.0).round() / 1000.0,
        non_speech_share: (g.non_speech * 1000.0).round() / 1000.0,
        confident: g.confident,
    };
    Ok((lines, block))
}

/// The `transcript` tool.
pub fn transcript(loc: &Locator, args: &UrlArgs) -> ToolResult {
    let a = ask(args)?;
    let yt = loc.find(YT_DLP).map_err(|e| format!("transcript: {e}"))?;
    let scratch = tempfile::Builder::new()
        .prefix("archilyzer-transcript-")
        .tempdir()
        .map_err(|e| format!("transcript: no scratch directory could be made: {e}"))?;
    let dir = scratch.path();
    let ran = run::run(
        &yt,
        &captions_argv(&a.url.url, &a.lang, dir),
        CAPTIONS_TIMEOUT,
    )
    .map_err(|e| format!("transcript: {e}"))?;
    if !ran.success {
        return Err(format!("transcript: {}", failed("yt-dlp", &ran)).into());
    }
    let bytes = std::fs::read(dir.join("t.info.json")).map_err(|_| {
        "transcript: yt-dlp finished but wrote no metadata (t.info.json); is it up to date? pipx upgrade yt-dlp".to_string()
    })?;
    let info: YtDlpInfo = serde_json::from_slice(&bytes).map_err(|e| {
        format!("transcript: yt-dlp's metadata (t.info.json) is not the info JSON it writes ({e}); is it up to date? pipx upgrade yt-dlp")
    })?;
    let tracks = choose::tracks_in(dir, "t", &info.manual_codes());
    let original = choose::original_language(info.language.as_deref(), &tracks);
    let choice = choose::rank(tracks, &a.lang, original.as_deref());
    let (lines, source, lang, asr_block) = match choice.best() {
        Some(track) => {
            let lines = from_captions(track).map_err(|e| format!("transcript: {e}"))?;
            let source = if track.manual { "manual" } else { "auto" };
            (lines, source, track.base(), None)
        }
        None if !a.asr => {
            return Err(format!("transcript: the video has no captions in {} or in its original language, and asr is false: pass asr: true to transcribe the audio on this machine", a.lang).into())
        }
        None => {
            let (lines, block) = from_speech(loc, &a, &yt, dir).map_err(|e| format!("transcript: {e}"))?;
            let lang = block.language.clone();
            (lines, "asr", lang, Some(block))
        }
    };
    let result = assemble(&a, &info, &lines, source, &lang, asr_block);
    drop(scratch);
    let text = serde_json::to_string_pretty(&result).unwrap_or_default();
    Ok((text, crate::output::content(&result)))
}

fn assemble(
    a: &Ask,
    info: &YtDlpInfo,
    lines: &[Line],
    source: &str,
    lang: &str,
    asr: Option<Asr>,
) -> UrlTranscript {
    let text: String = lines
        .iter()
        .map(|l| {
            format!(
                "[{}] {}",
                archilyzer_core::format::clock_with_hours(l.t),
                l.text
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    UrlTranscript {
        url: a.url.url.clone(),
        platform: a.url.platform.to_string(),
        title: info.title.clone(),
        channel: info.channel.clone().or_else(|| info.uploader.clone()),
        duration_s: info.duration,
        upload_date: info.upload_date.clone(),
        caption_source: source.to_string(),
        lang: lang.to_string(),
        n_segments: lines.len(),
        chars: lines.iter().map(|l| l.text.chars().count()).sum(),
        segments: lines
            .iter()
            .map(|l| Segment {
                t: (l.t * 1000.0).round() / 1000.0,
                text: l.text.clone(),
            })
            .collect(),
        text,
        asr,
    }
}
