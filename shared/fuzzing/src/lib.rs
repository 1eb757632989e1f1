//! The body of every fuzz target, in one place, so that `fuzz/` (cargo
//! fuzz, libFuzzer) and the regression test (`tests/regressions.rs`,
//! every input that ever failed, on stable) run the very same code.
//!
//! Each body feeds arbitrary bytes to one parser and checks what the
//! parser promises beyond "does not panic": a time is finite and not
//! negative; a decoded share link or source handle encodes back to
//! itself; a parsed page reads the same through the owned and the
//! borrowed types; an index made of arbitrary bytes never changes an
//! answer (invariant 1: it may only cost time).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::captions::{self, CaptionFormat};
use archilyzer_core::clip::{parse_seconds, plan_window, MAX_WINDOW};
use archilyzer_core::format::{self, Manifest, PageView, TranscriptPage};
use archilyzer_core::index::files;
use archilyzer_core::query::{search, Request};
use archilyzer_core::share::{request, ShareLink};
use archilyzer_core::source::SourceHandle;
use serde_json::Value;

/// The targets, by name.
pub const TARGETS: &[&str] = &[
    "vtt",
    "srt",
    "whisper_tsv",
    "whisper_json",
    "json3",
    "srv3",
    "corpus_json",
    "index_files",
    "share_link",
    "source_handle",
    "clip_time",
    "sweep_request",
];

/// Runs target `name` on `data`; panics on a broken promise.
pub fn run(name: &str, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match name {
        "vtt" => caption(CaptionFormat::Vtt, &text),
        "srt" => caption(CaptionFormat::Srt, &text),
        "whisper_tsv" => caption(CaptionFormat::WhisperTsv, &text),
        "whisper_json" => caption(CaptionFormat::WhisperJson, &text),
        "json3" => caption(CaptionFormat::Json3, &text),
        "srv3" => caption(CaptionFormat::Srv3, &text),
        "corpus_json" => corpus_json(data),
        "index_files" => index_files(data),
        "share_link" => share_link(&text),
        "source_handle" => source_handle(&text),
        "clip_time" => clip_time(data, &text),
        "sweep_request" => sweep_request(&text),
        other => panic!("no fuzz target {other}"),
    }
}

fn caption(format: CaptionFormat, text: &str) {
    if let Ok(cues) = captions::parse(format, text) {
        for c in cues {
            assert!(
                c.start.is_finite() && c.start >= 0.0,
                "{format:?}: start {}",
                c.start
            );
            assert!(c.end.is_finite(), "{format:?}: end {}", c.end);
        }
    }
}

fn corpus_json(data: &[u8]) {
    let _ = format::parse_corpus(data, "corpus.json");
    let _ = format::parse::<Manifest>(data, "manifest.json");
    let owned = format::parse::<TranscriptPage>(data, "page.json");
    let view = serde_json::from_slice::<PageView>(data);
    if let Ok(page) = owned {
        let view = view.expect("a page the owned type reads, the borrowed view reads too");
        assert_eq!(page.videos.len(), view.videos.len());
        assert_eq!(page.channel, view.channel);
    }
}

/// The archive the index target opens, and its answer without an index.
fn fixture() -> &'static (Archive, Vec<(String, usize)>) {
    static FIXTURE: OnceLock<(Archive, Vec<(String, usize)>)> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/archive/alpha");
        let archive = Archive::open(&SourceHandle::local(&dir), &OpenOptions::default())
            .expect("testdata/archive/alpha opens");
        let answer = answer(&archive, None);
        (archive, answer)
    })
}

fn fuzz_request() -> Request {
    let mut r = Request {
        query: "really".into(),
        use_aliases: false,
        ..Request::default()
    };
    r.filters.channels = vec!["daily-dispatch".into()];
    r
}

fn answer(archive: &Archive, index: Option<&Path>) -> Vec<(String, usize)> {
    let r = search(archive, index, &fuzz_request()).expect("the fuzz query is valid");
    r.videos
        .iter()
        .map(|v| (v.slug.clone(), v.hits.len()))
        .collect()
}

/// The index files, in the order the input's parts fill them: every file
/// a build writes, so no file of the format escapes the fuzzer.
pub const INDEX_FILES: &[&str] = &files::ALL;
/// What separates the parts of an `index_files` input.
pub const PART: &[u8] = b"--8<--";

fn index_files(data: &[u8]) {
    let (archive, expected) = fixture();
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut rest = data;
    for name in INDEX_FILES {
        let at = memchr_find(rest, PART);
        let (part, next) = match at {
            Some(i) => (&rest[..i], &rest[i + PART.len()..]),
            None => (rest, &[][..]),
        };
        std::fs::write(dir.path().join(name), part).expect("write an index file");
        rest = next;
    }
    assert_eq!(
        &answer(archive, Some(dir.path())),
        expected,
        "an index changed an answer"
    );
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Joins the files of a real index into one `index_files` input (a seed);
/// an error names the file that could not be read.
pub fn index_seed(dir: &Path) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    for (i, name) in INDEX_FILES.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(PART);
        }
        let path = dir.join(name);
        let bytes = std::fs::read(&path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        out.extend(bytes);
    }
    Ok(out)
}

fn share_link(text: &str) {
    if let Ok(link) = ShareLink::decode(text) {
        let again = ShareLink::decode(&link.encode()).expect("an encoded link decodes");
        let mut expected = link.clone();
        expected.ignored.clear();
        assert_eq!(again, expected, "a link survives encode → decode");
    }
}

fn source_handle(text: &str) {
    if let Ok(h) = SourceHandle::parse(text) {
        let again = SourceHandle::parse(&h.to_string()).expect("a handle's text parses");
        assert_eq!(again, h);
    }
}

fn clip_time(data: &[u8], text: &str) {
    for v in [
        Value::String(text.to_string()),
        serde_json::from_slice(data).unwrap_or(Value::Null),
    ] {
        if let Some(s) = parse_seconds(&v) {
            assert!(s.is_finite() && s >= 0.0, "{v} → {s}");
        }
    }
    if data.len() >= 24 {
        let f = |i: usize| f64::from_le_bytes(data[i..i + 8].try_into().expect("8 bytes"));
        if let Ok(w) = plan_window(f(0), f(8), f(16).abs()) {
            assert!(
                w.from >= 0.0 && w.from < w.to && w.to - w.from <= MAX_WINDOW,
                "{w:?}"
            );
        }
    }
}

fn sweep_request(text: &str) {
    let p = request::parse(text);
    assert!((1..=request::MAX_BATCH).contains(&p.settings.batch_size));
    let typed: Vec<&str> = text.split_whitespace().collect();
    for word in p.question.split_whitespace() {
        assert!(
            typed.iter().any(|t| t.contains(word)),
            "{word:?} was not typed"
        );
    }
}

/// The regression inputs of `target` under `root` (`fuzz/regressions`).
pub fn regressions(root: &Path, target: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(target))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}
