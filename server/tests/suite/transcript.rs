//! `transcript` with fake `yt-dlp` and `whisper-ctranslate2` executables
//! (Python scripts in tests/fakes that record their argv and write fixture
//! files), covering each rule of the tool, and the real yt-dlp from PyPI
//! found by the discovery code.

use crate::common;

use std::path::Path;

use archilyzer_mcp::tools::{Context, Output};
use archilyzer_mcp::transcript::discover::{Locator, YT_DLP};
use serde_json::{json, Value};

const URL: &str = "https://www.youtube.com/watch?v=-abc123XYZ_";

/// A directory holding the fakes and their scenario.
struct Fakes {
    dir: tempfile::TempDir,
}

impl Fakes {
    fn new(scenario: Value, whisper: bool) -> Fakes {
        let dir = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes");
        let mut names = vec!["yt-dlp"];
        if whisper {
            names.push("whisper-ctranslate2");
        }
        for name in names {
            std::fs::copy(src.join(name), dir.path().join(name)).unwrap();
        }
        std::fs::write(dir.path().join("scenario.json"), scenario.to_string()).unwrap();
        Fakes { dir }
    }

    fn locator(&self) -> Locator {
        Locator {
            own_dir: Some(self.dir.path().to_path_buf()),
            path: Some("/nonexistent".into()),
            home: None,
            yt_dlp_path: None,
            whisper_path: None,
        }
    }

    fn argv(&self, log: &str) -> Vec<Vec<String>> {
        std::fs::read_to_string(self.dir.path().join(log))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn run(loc: Locator, args: Value) -> Output {
    let ctx = Context {
        binaries: loc,
        ..common::alpha_context()
    };
    common::run(&ctx, "transcript", args)
}

fn json3(events: &[(u64, &str)]) -> String {
    let ev: Vec<Value> = events
        .iter()
        .map(|(t, s)| json!({"tStartMs": t, "dDurationMs": 1000, "segs": [{"utf8": s}]}))
        .collect();
    json!({"events": ev}).to_string()
}

fn info(extra: Value) -> Value {
    let mut i = json!({"id": "-abc123XYZ_", "title": "A talk", "channel": "Some Channel", "duration": 3725.0, "upload_date": "20261101", "description": "NOT A TRANSCRIPT"});
    for (k, v) in extra.as_object().unwrap() {
        i[k] = v.clone();
    }
    i
}

/// The value after `flag` in `argv`.
fn value_of<'a>(argv: &'a [String], flag: &str) -> Option<&'a str> {
    let at = argv.iter().position(|a| a == flag)?;
    argv.get(at + 1).map(String::as_str)
}

/// What every yt-dlp call must be: the URL last, after `--` (so it is
/// data, never an option), one video, no progress bars, its output in the
/// scratch folder.
fn assert_a_safe_call(argv: &[String], scratch: &str) {
    assert_eq!(
        argv[argv.len() - 2..],
        ["--".to_string(), URL.to_string()],
        "{argv:?}"
    );
    assert!(argv.iter().any(|a| a == "--no-playlist"), "{argv:?}");
    assert!(argv.iter().any(|a| a == "--no-progress"), "{argv:?}");
    let out = value_of(argv, "-o").expect("an output template");
    assert!(out.starts_with(&format!("{scratch}/")), "{out}");
    assert!(!argv.iter().any(|a| a.starts_with("--exec")), "{argv:?}");
}

/// The captions call: no media, the uploader's and the automatic
/// captions (always both), the wanted language and the `-orig` tracks,
/// timed formats first, and the info JSON.
fn assert_the_captions_call(argv: &[String], scratch: &str) {
    assert_a_safe_call(argv, scratch);
    for flag in [
        "--skip-download",
        "--write-subs",
        "--write-auto-subs",
        "--write-info-json",
    ] {
        assert!(argv.iter().any(|a| a == flag), "{flag} in {argv:?}");
    }
    let langs = value_of(argv, "--sub-langs").expect("--sub-langs");
    assert!(langs.contains("^en") && langs.contains("-orig"), "{langs}");
    let formats = value_of(argv, "--sub-format").expect("--sub-format");
    assert!(
        formats.starts_with("json3"),
        "the timed format first: {formats}"
    );
}

fn scratch_of(argv: &[String]) -> String {
    let o = &argv[argv.iter().position(|a| a == "-o").unwrap() + 1];
    Path::new(o).parent().unwrap().display().to_string()
}

#[test]
fn uploader_captions_give_a_timestamped_transcript_and_no_asr_block() {
    let fakes = Fakes::new(
        json!({"info": info(json!({"subtitles": {"en": []}, "language": "en"})),
               "subs": {"t.en.json3": json3(&[(1500, "hello there"), (3_723_000, "late line")]), "t.en.vtt": "WEBVTT\n\n00:00:09.000 --> 00:00:10.000\nfrom the vtt\n"}}),
        false,
    );
    let out = run(fakes.locator(), json!({"url": URL}));
    assert!(!out.is_error, "{}", out.text);
    let r = &out.structured;
    assert_eq!(r["caption_source"], "manual");
    assert_eq!(r["lang"], "en");
    assert_eq!(r["platform"], "youtube");
    assert_eq!(
        (
            r["title"].as_str(),
            r["channel"].as_str(),
            r["duration_s"].as_f64(),
            r["upload_date"].as_str()
        ),
        (
            Some("A talk"),
            Some("Some Channel"),
            Some(3725.0),
            Some("20261101")
        )
    );
    assert_eq!(r["text"], "[0:00:01] hello there\n[1:02:03] late line");
    assert_eq!(
        r["segments"],
        json!([{"t": 1.5, "text": "hello there"}, {"t": 3723.0, "text": "late line"}])
    );
    assert_eq!(
        (r["n_segments"].as_u64(), r["chars"].as_u64()),
        (Some(2), Some(20))
    );
    assert!(r.get("asr").is_none(), "captions carry no asr block");
    assert!(
        !out.text.contains("NOT A TRANSCRIPT"),
        "the description is never used"
    );
    let calls = fakes.argv("argv.log");
    assert_eq!(calls.len(), 1);
    let scratch = scratch_of(&calls[0]);
    assert_the_captions_call(&calls[0], &scratch);
    assert!(
        !Path::new(&scratch).exists(),
        "the scratch dir removes itself"
    );
}

#[test]
fn a_machine_translation_is_never_taken_for_the_original() {
    let fakes = Fakes::new(
        json!({"info": info(json!({"automatic_captions": {"en": [], "es-orig": []}})),
               "subs": {"t.en.json3": json3(&[(0, "a fluent translation")]), "t.es-orig.json3": json3(&[(2000, "lo que se dijo")])}}),
        false,
    );
    let out = run(fakes.locator(), json!({"url": URL, "lang": "en"}));
    assert_eq!(out.structured["caption_source"], "auto", "{}", out.text);
    assert_eq!(out.structured["lang"], "es");
    assert_eq!(out.structured["text"], "[0:00:02] lo que se dijo");
}

fn whisper(segments: Value, language: Option<&str>) -> Value {
    let mut w = json!({"text": "", "segments": segments});
    if let Some(l) = language {
        w["language"] = json!(l);
    }
    w
}

#[test]
fn no_captions_means_local_speech_to_text_with_the_language_detected() {
    let fakes = Fakes::new(
        json!({"info": info(json!({})), "subs": {},
               "whisper": whisper(json!([{"start": 0.0, "end": 4.0, "text": " Hola a todos.", "avg_logprob": -0.3, "no_speech_prob": 0.05},
                                         {"start": 4.0, "end": 9.5, "text": " Bienvenidos.", "avg_logprob": -0.5, "no_speech_prob": 0.1}]), Some("es"))}),
        true,
    );
    let out = run(
        fakes.locator(),
        json!({"url": URL, "asr_model": "large-v3"}),
    );
    assert!(!out.is_error, "{}", out.text);
    let r = &out.structured;
    assert_eq!(r["caption_source"], "asr");
    assert_eq!(r["lang"], "es");
    assert_eq!(r["asr"]["model"], "large-v3");
    assert_eq!(r["asr"]["language"], "es");
    assert_eq!(r["asr"]["confident"], true);
    assert!(
        (r["asr"]["mean_logprob"].as_f64().unwrap() - -0.416).abs() < 0.001,
        "{}",
        r["asr"]
    );
    assert_eq!(r["text"], "[0:00:00] Hola a todos.\n[0:00:04] Bienvenidos.");
    let yt = fakes.argv("argv.log");
    assert_eq!(yt.len(), 2, "captions first, then the audio");
    let scratch = scratch_of(&yt[0]);
    assert_the_captions_call(&yt[0], &scratch);
    assert_a_safe_call(&yt[1], &scratch);
    assert!(
        value_of(&yt[1], "-f").is_some_and(|f| f.starts_with("bestaudio")),
        "the audio only: {:?}",
        yt[1]
    );
    let w = fakes.argv("argv-whisper.log");
    assert_eq!(w.len(), 1);
    assert_eq!(
        w[0][0],
        format!("{scratch}/audio.m4a"),
        "the downloaded audio"
    );
    assert_eq!(
        value_of(&w[0], "--model"),
        Some("large-v3"),
        "asr_model is passed"
    );
    assert_eq!(
        value_of(&w[0], "--task"),
        Some("transcribe"),
        "never translate"
    );
    assert_eq!(value_of(&w[0], "--output_format"), Some("json"));
    assert_eq!(value_of(&w[0], "--output_dir"), Some(scratch.as_str()));
    assert!(
        !w[0].iter().any(|a| a.starts_with("--language")),
        "the language is detected, never forced"
    );
    assert!(!Path::new(&scratch).exists());
}

#[test]
fn music_or_an_unsure_decode_is_marked_not_confident() {
    let fakes = Fakes::new(
        json!({"info": info(json!({})), "subs": {},
               "whisper": whisper(json!([{"start": 0.0, "end": 50.0, "text": " Thank you for watching.", "avg_logprob": -0.2, "no_speech_prob": 0.93}]), None),
               "whisper_log": "Detected language 'English' with probability 0.41"}),
        true,
    );
    let out = run(fakes.locator(), json!({"url": URL}));
    assert_eq!(out.structured["asr"]["confident"], false, "{}", out.text);
    assert_eq!(out.structured["asr"]["language"], "English");
}

#[test]
fn an_empty_track_is_an_error_and_absent_captions_without_asr_too() {
    let fakes = Fakes::new(
        json!({"info": info(json!({"subtitles": {"en": []}})), "subs": {"t.en.json3": json3(&[(0, "\n")])}, "whisper": whisper(json!([]), None)}),
        true,
    );
    let out = run(fakes.locator(), json!({"url": URL}));
    assert!(out.is_error && out.text.contains("transcript: the en caption track has no words in it. That is not the same as silence"), "{}", out.text);
    assert!(
        fakes.argv("argv-whisper.log").is_empty(),
        "an empty track is not transcribed over"
    );

    let fakes = Fakes::new(json!({"info": info(json!({})), "subs": {}}), false);
    let out = run(fakes.locator(), json!({"url": URL, "asr": false}));
    assert!(
        out.is_error
            && out
                .text
                .contains("has no captions in en or in its original language, and asr is false"),
        "{}",
        out.text
    );

    let fakes = Fakes::new(
        json!({"info": info(json!({})), "subs": {}, "whisper": whisper(json!([{"start": 0.0, "end": 1.0, "text": " ", "avg_logprob": -0.1, "no_speech_prob": 0.1}]), Some("en"))}),
        true,
    );
    let out = run(fakes.locator(), json!({"url": URL}));
    assert!(
        out.is_error && out.text.contains("speech-to-text heard no words"),
        "{}",
        out.text
    );
}

#[test]
fn a_cue_without_a_start_is_refused_never_stamped_at_zero() {
    let bad = json!({"events": [{"tStartMs": 4000, "segs": [{"utf8": "ok"}]}, {"segs": [{"utf8": "no start"}]}]}).to_string();
    let fakes = Fakes::new(
        json!({"info": info(json!({"subtitles": {"en": []}})), "subs": {"t.en.json3": bad}}),
        false,
    );
    let out = run(fakes.locator(), json!({"url": URL}));
    assert!(
        out.is_error && out.text.contains("event 1 has text but no tStartMs"),
        "{}",
        out.text
    );
    let fakes = Fakes::new(
        json!({"info": info(json!({})), "subs": {}, "whisper": whisper(json!([{"end": 2.0, "text": "x"}]), None)}),
        true,
    );
    let out = run(fakes.locator(), json!({"url": URL}));
    assert!(
        out.is_error && out.text.contains("segment 0 has no start time"),
        "{}",
        out.text
    );
}

#[test]
fn only_web_urls_reach_a_subprocess_and_as_one_argument() {
    let fakes = Fakes::new(
        json!({"info": info(json!({"subtitles": {"en": []}})), "subs": {"t.en.json3": json3(&[(0, "x")])}}),
        false,
    );
    for bad in [
        "--exec=touch /tmp/pwned",
        "--config-location=/etc/x",
        "file:///etc/passwd",
    ] {
        let out = run(fakes.locator(), json!({"url": bad}));
        assert!(
            out.is_error && out.text.contains("transcript: url"),
            "{}",
            out.text
        );
    }
    assert!(fakes.argv("argv.log").is_empty(), "nothing was run");
    let odd = "https://a.example/v;$(id)&x=`id`";
    let out = run(fakes.locator(), json!({"url": odd}));
    assert!(!out.is_error, "{}", out.text);
    let argv = &fakes.argv("argv.log")[0];
    assert_eq!(
        &argv[argv.len() - 2..],
        &["--".to_string(), odd.to_string()]
    );
    assert_eq!(out.structured["platform"], "other");
}

#[test]
fn a_failing_yt_dlp_is_reported_with_its_words() {
    let fakes = Fakes::new(
        json!({"exit": 1, "stderr": "ERROR: [youtube] -abc123XYZ_: Video unavailable"}),
        false,
    );
    let out = run(fakes.locator(), json!({"url": URL}));
    assert!(out.is_error && out.text.contains("transcript: yt-dlp failed (exit 1): ERROR: [youtube] -abc123XYZ_: Video unavailable"), "{}", out.text);
}

#[test]
fn discovery_searches_the_usual_places_and_a_bad_setting_is_an_error() {
    let home = tempfile::tempdir().unwrap();
    let venv = home.path().join(".local/pipx/venvs/yt-dlp/bin");
    std::fs::create_dir_all(&venv).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/yt-dlp"),
        venv.join("yt-dlp"),
    )
    .unwrap();
    let loc = Locator {
        own_dir: None,
        path: Some("/nonexistent".into()),
        home: Some(home.path().into()),
        yt_dlp_path: None,
        whisper_path: None,
    };
    assert_eq!(loc.find(YT_DLP).unwrap(), venv.join("yt-dlp"));
    let local_bin = home.path().join(".local/bin");
    std::fs::create_dir_all(&local_bin).unwrap();
    std::fs::copy(venv.join("yt-dlp"), local_bin.join("yt-dlp")).unwrap();
    assert_eq!(
        loc.find(YT_DLP).unwrap(),
        local_bin.join("yt-dlp"),
        "~/.local/bin before the pipx venvs"
    );

    let set = Locator {
        yt_dlp_path: Some("/no/such/yt-dlp".into()),
        ..loc.clone()
    };
    let err = set.find(YT_DLP).unwrap_err();
    assert_eq!(err, "yt_dlp_path is set to /no/such/yt-dlp, which is not an executable file: fix the path, or unset it to search the usual places");

    let nothing = Locator {
        own_dir: None,
        path: Some("/nonexistent".into()),
        home: None,
        yt_dlp_path: None,
        whisper_path: None,
    };
    let out = run(nothing, json!({"url": URL}));
    assert!(
        out.is_error
            && out.text.contains("transcript: yt-dlp is not installed")
            && out.text.contains("pipx install yt-dlp"),
        "{}",
        out.text
    );

    let fakes = Fakes::new(json!({"info": info(json!({})), "subs": {}}), false);
    let out = run(fakes.locator(), json!({"url": URL}));
    assert!(
        out.is_error
            && out.text.contains("whisper-ctranslate2 is not installed")
            && out.text.contains("pipx install whisper-ctranslate2"),
        "{}",
        out.text
    );
}

#[test]
fn the_real_yt_dlp_from_pypi_is_found_and_answers_its_version() {
    let mut locator = Locator::from_env();
    if let Some(bin) = common::venv_bin() {
        // The test environment's yt-dlp, searched first, as a PATH entry.
        let path = locator.path.take().unwrap_or_default();
        let dirs = std::iter::once(bin).chain(std::env::split_paths(&path));
        locator.path = Some(std::env::join_paths(dirs).unwrap());
    }
    let found = locator.find(YT_DLP).unwrap_or_else(|e| {
        panic!(
            "{e}\n(yt-dlp is installed for the tests: {})",
            common::PYTHON_SETUP
        )
    });
    let out = std::process::Command::new(&found)
        .arg("--version")
        .output()
        .unwrap();
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let shape = version.split('.').collect::<Vec<_>>();
    assert!(
        out.status.success()
            && shape.len() >= 3
            && shape[0].len() == 4
            && shape.iter().all(|p| p.chars().all(|c| c.is_ascii_digit())),
        "{found:?} answered {version:?}"
    );
}
