//! Invariant: never destroy what the project did not write. Every writing
//! command (`import --out`, `gen --out`, `build --index`) replaces only a
//! folder holding its own marker, and every file a command writes beside
//! its answer (`trend --svg`/`--html`, `search --html`, `bench --json`)
//! only a file holding its signature; anything else is refused before a
//! byte is written (and before the archive is read), with a text naming
//! the folder or file, what is wrong and what to do. Each test snapshots the whole scratch tree and asserts that a
//! refusal left every byte of it as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every file under `root` (relative path → bytes), folders included as
/// empty entries, so a removed or added folder shows too.
fn tree(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if p.is_dir() {
                out.insert(rel, None);
                stack.push(p);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn write(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
}

/// A yt-dlp download folder with the user's notes beside it.
fn downloads(dir: &Path) {
    for id in ["-xY3_abcDEF", "dQw4w9WgXcQ"] {
        write(
            &dir.join(format!("{id}.en.vtt")),
            "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhello from the archive\n",
        );
        write(
            &dir.join(format!("{id}.info.json")),
            &format!(
                r#"{{"id":"{id}","title":"Talk {id}","channel":"Kitchen Talks","channel_id":"UCkitchen01","upload_date":"20240101"}}"#
            ),
        );
    }
    write(&dir.join("notes.txt"), "my own notes, not a download\n");
}

struct Scratch {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    /// The cache dir, outside the snapshotted tree (opening an archive
    /// may create it).
    cache: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        downloads(&root.join("downloads"));
        write(&root.join("thesis/chapter1.tex"), "\\chapter{One}\n");
        write(&root.join("thesis/refs.bib"), "@book{x}\n");
        Scratch {
            _tmp: tmp,
            root,
            cache: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, rel: &str) -> String {
        self.root.join(rel).to_str().unwrap().to_string()
    }

    /// Runs the binary in `cwd` (default the scratch root) with HOME set to
    /// the scratch's `home`.
    fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        // `gen` and `bench` are developer tools, in their own binary.
        let exe = if matches!(args.first(), Some(&"gen" | &"bench")) {
            dev_binary()
        } else {
            PathBuf::from(env!("CARGO_BIN_EXE_archilyzer-index"))
        };
        Command::new(exe)
            .args(args)
            .current_dir(cwd)
            .env("HOME", self.root.join("home"))
            .env("ARCHILYZER_CACHE_DIR", self.cache.path())
            .env_remove("TRANSCRIPT_LOCAL_DIR")
            .output()
            .unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.root, args)
    }

    /// Runs `args`, expects a refusal whose text is `expected`, and checks
    /// that nothing under the scratch root changed.
    fn refused(&self, args: &[&str], expected: &str) {
        self.refused_in(&self.root, args, expected)
    }

    fn refused_in(&self, cwd: &Path, args: &[&str], expected: &str) {
        let before = tree(&self.root);
        let out = self.run_in(cwd, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end(), format!("error: {expected}"), "{args:?}");
        assert!(
            tree(&self.root) == before,
            "{args:?} changed files under the scratch folder"
        );
    }
}

/// `archilyzer-dev`, beside this crate's binary: it is a crate of its own
/// (indexer/dev/), which `cargo test --workspace` builds too.
fn dev_binary() -> PathBuf {
    let name = format!("archilyzer-dev{}", std::env::consts::EXE_SUFFIX);
    let exe = Path::new(env!("CARGO_BIN_EXE_archilyzer-index")).with_file_name(name);
    assert!(
        exe.is_file(),
        "{} is not built: run these tests with `cargo test --workspace --release` (archilyzer-dev is its own crate, indexer/dev/)",
        exe.display()
    );
    exe
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn import_into_its_own_download_folder_is_refused_and_every_file_survives() {
    let s = Scratch::new();
    let dl = s.path("downloads");
    s.refused(
        &["import", "--from", &dl, "--out", &dl],
        &format!("refusing to write --out {dl}: it is --from {dl} itself. Nothing was written; choose a new or empty folder for --out, apart from --from."),
    );
}

#[test]
fn import_into_a_folder_containing_or_inside_from_is_refused() {
    let s = Scratch::new();
    let dl = s.path("downloads");
    let root = s.path("");
    let root = root.trim_end_matches('/');
    s.refused(
        &["import", "--from", &dl, "--out", root],
        &format!("refusing to write --out {root}: it contains --from {dl}. Nothing was written; choose a new or empty folder for --out, apart from --from."),
    );
    let inside = s.path("downloads/archive");
    s.refused(
        &["import", "--from", &dl, "--out", &inside],
        &format!("refusing to write --out {inside}: it is inside --from {dl}. Nothing was written; choose a new or empty folder for --out, apart from --from."),
    );
}

#[test]
fn every_file_a_command_writes_is_claimed_before_the_archive_is_read() {
    let s = Scratch::new();
    let notes = s.root.join("notes.svg");
    write(&notes, "<svg>my own drawing</svg>");
    let (notes, thesis) = (s.path("notes.svg"), s.path("thesis"));
    // The archive named does not exist: a refusal that comes first proves
    // the claim is checked before anything is read.
    let nowhere = s.path("no-archive-here");
    let foreign = |flag: &str| {
        format!("refusing to write {flag} {notes}: the file exists and archilyzer did not write it. Nothing was written; name a new file, or move that one away first")
    };
    for (args, flag) in [
        (
            vec!["trend", "--local", &nowhere, "x", "--svg", &notes],
            "--svg",
        ),
        (
            vec!["trend", "--local", &nowhere, "x", "--html", &notes],
            "--html",
        ),
        (
            vec!["search", "--local", &nowhere, "x", "--html", &notes],
            "--html",
        ),
        (
            vec!["bench", "--local", &nowhere, "--json", &notes],
            "--json",
        ),
    ] {
        s.refused(&args, &foreign(flag));
    }
    let missing = s.path("no/such/folder/chart.svg");
    s.refused(
        &["trend", "--local", &nowhere, "x", "--svg", &missing],
        &format!("refusing to write --svg {missing}: the folder {} does not exist. Nothing was written; create it (mkdir -p) or name a file in a folder that exists", s.path("no/such/folder")),
    );
    s.refused(
        &["search", "--local", &nowhere, "x", "--html", &thesis],
        &format!("refusing to write --html {thesis}: it is a folder. Nothing was written; name a file, e.g. --html {thesis}/report"),
    );
    // Our own chart is replaced: written, then written again.
    let archive = s.path("archive");
    ok(&s.run(&["import", "--from", &s.path("downloads"), "--out", &archive]));
    let chart = s.path("chart.svg");
    for _ in 0..2 {
        ok(&s.run(&[
            "trend",
            "--local",
            &archive,
            "--no-index",
            "coffee",
            "--svg",
            &chart,
        ]));
    }
    assert!(std::fs::read_to_string(&chart).unwrap().contains("<svg"));
}

#[test]
fn writing_commands_refuse_a_folder_holding_someone_elses_files() {
    let s = Scratch::new();
    let (dl, thesis) = (s.path("downloads"), s.path("thesis"));
    let foreign = format!("refusing to write --out {thesis}: it holds files archilyzer-index did not write (chapter1.tex, refs.bib). Nothing was written; choose a new or empty folder for --out.");
    s.refused(&["import", "--from", &dl, "--out", &thesis], &foreign);
    s.refused(&["gen", "--out", &thesis, "--bytes", "200KB"], &foreign);

    let archive = s.path("archive");
    ok(&s.run(&["import", "--from", &dl, "--out", &archive]));
    s.refused(
        &["build", "--local", &archive, "--index", &thesis],
        &foreign.replace("--out", "--index"),
    );
    // Many entries: the first five by name, then the count.
    for i in 0..7 {
        write(&s.root.join(format!("many/file{i}.txt")), "x");
    }
    let many = s.path("many");
    s.refused(
        &["build", "--local", &archive, "--index", &many],
        &format!("refusing to write --index {many}: it holds files archilyzer-index did not write (file0.txt, file1.txt, file2.txt, file3.txt, file4.txt, … 7 entries in all). Nothing was written; choose a new or empty folder for --index."),
    );
}

#[test]
fn an_index_may_not_overlap_the_archive_it_reads() {
    let s = Scratch::new();
    let archive = s.path("archive");
    ok(&s.run(&["import", "--from", &s.path("downloads"), "--out", &archive]));
    let advice =
        "Nothing was written; choose a new or empty folder for --index, apart from the archive.";
    s.refused(
        &["build", "--local", &archive, "--index", &archive],
        &format!(
            "refusing to write --index {archive}: it is the archive {archive} itself. {advice}"
        ),
    );
    let inside = s.path("archive/index");
    s.refused(
        &["build", "--local", &archive, "--index", &inside],
        &format!(
            "refusing to write --index {inside}: it is inside the archive {archive}. {advice}"
        ),
    );
    let root = s.path("");
    let root = root.trim_end_matches('/');
    s.refused(
        &["build", "--local", &archive, "--index", root],
        &format!("refusing to write --index {root}: it contains the archive {archive}. {advice}"),
    );
}

#[test]
fn the_root_the_home_and_a_current_directory_not_ours_are_refused() {
    let s = Scratch::new();
    let dl = s.path("downloads");
    s.refused(
        &["import", "--from", &dl, "--out", "/"],
        "refusing to write --out /: it is the root of the file system. Nothing was written; choose a new or empty folder for --out.",
    );
    let home = s.path("home");
    std::fs::create_dir_all(&home).unwrap();
    s.refused(
        &["gen", "--out", &home, "--bytes", "200KB"],
        &format!("refusing to write --out {home}: it is your home directory. Nothing was written; choose a new or empty folder for --out."),
    );
    // The current directory, even an empty one.
    let work = s.root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    s.refused_in(
        &work,
        &["import", "--from", &dl, "--out", "."],
        "refusing to write --out .: it is the folder you are in, and replacing it would leave your shell in a deleted folder. Nothing was written; run the command from outside it (e.g. `cd ..`) and name the folder with --out.",
    );
    let archive = s.path("archive");
    ok(&s.run(&["import", "--from", &dl, "--out", &archive]));
    s.refused_in(
        &work,
        &["build", "--local", &archive, "--index", "."],
        "refusing to write --index .: it is the folder you are in, and replacing it would leave your shell in a deleted folder. Nothing was written; run the command from outside it (e.g. `cd ..`) and name the folder with --index.",
    );
}

#[test]
fn our_own_output_is_not_replaced_from_inside_it() {
    let s = Scratch::new();
    let dl = s.path("downloads");
    let archive = s.path("archive");
    ok(&s.run(&["import", "--from", &dl, "--out", &archive]));
    let inside = s.root.join("archive");
    s.refused_in(
        &inside,
        &["import", "--from", &dl, "--out", "."],
        "refusing to write --out .: it is the folder you are in, and replacing it would leave your shell in a deleted folder. Nothing was written; run the command from outside it (e.g. `cd ..`) and name the folder with --out.",
    );
    s.refused_in(
        &inside.join("transcripts"),
        &["import", "--from", &dl, "--out", ".."],
        "refusing to write --out ..: it holds the folder you are in, and replacing it would leave your shell in a deleted folder. Nothing was written; run the command from outside it (e.g. `cd ..`) and name the folder with --out.",
    );
}

#[test]
fn an_archive_gen_wrote_may_be_replaced_by_import_keeping_its_curated_files() {
    let s = Scratch::new();
    let dl = s.path("downloads");
    let generated = s.path("generated");
    ok(&s.run(&["gen", "--out", &generated, "--bytes", "200KB"]));
    let alpha = s.path("generated/alpha");
    ok(&s.run(&["import", "--from", &dl, "--out", &alpha]));
    let alpha = s.root.join("generated/alpha");
    let summaries = std::fs::read_to_string(alpha.join("summaries/index.json")).unwrap();
    assert!(summaries.contains("dQw4w9WgXcQ"), "the import replaced it");
    assert!(alpha.join("aliases.json").is_file(), "curated files kept");
    // The hub is no archive of videos: not import's to replace.
    let hub = s.path("generated/hub");
    s.refused(
        &["import", "--from", &dl, "--out", &hub],
        &format!("refusing to write --out {hub}: it holds files archilyzer-index did not write (corpus.json). Nothing was written; choose a new or empty folder for --out."),
    );
}

#[test]
fn a_folder_of_another_kind_or_a_file_is_refused() {
    let s = Scratch::new();
    let dl = s.path("downloads");
    let archive = s.path("archive");
    ok(&s.run(&["import", "--from", &dl, "--out", &archive]));
    let index = s.path("index");
    ok(&s.run(&["build", "--local", &archive, "--index", &index]));
    s.refused(
        &["import", "--from", &dl, "--out", &index],
        &format!("refusing to write --out {index}: it holds an index built by archilyzer-index. Nothing was written; choose a new or empty folder for --out."),
    );
    s.refused(
        &["gen", "--out", &archive, "--bytes", "200KB"],
        &format!("refusing to write --out {archive}: it holds an archive imported by archilyzer-index. Nothing was written; choose a new or empty folder for --out."),
    );
    let file = s.path("thesis/chapter1.tex");
    s.refused(
        &["import", "--from", &dl, "--out", &file],
        &format!("refusing to write --out {file}: it exists and is not a folder. Nothing was written; choose a new or empty folder for --out."),
    );
}

#[test]
fn rerunning_onto_its_own_output_replaces_it_and_touches_nothing_beside_it() {
    let s = Scratch::new();
    let dl = s.path("downloads");
    // A user's folder with the name the old implementation used for the
    // previous output: it must survive.
    write(&s.root.join("archive.old-archilyzer/keep.txt"), "keep me");
    write(&s.root.join("generated.old-archilyzer/keep.txt"), "keep me");
    let archive = s.path("archive");
    ok(&s.run(&["import", "--from", &dl, "--out", &archive]));
    std::fs::remove_file(s.root.join("downloads/dQw4w9WgXcQ.en.vtt")).unwrap();
    std::fs::remove_file(s.root.join("downloads/dQw4w9WgXcQ.info.json")).unwrap();
    ok(&s.run(&["import", "--from", &dl, "--out", &archive]));
    let summaries = std::fs::read_to_string(s.root.join("archive/summaries/index.json")).unwrap();
    assert!(summaries.contains("-xY3_abcDEF") && !summaries.contains("dQw4w9WgXcQ"));

    let index = s.path("index");
    ok(&s.run(&["build", "--local", &archive, "--index", &index]));
    ok(&s.run(&["build", "--local", &archive, "--index", &index]));

    let generated = s.path("generated");
    ok(&s.run(&["gen", "--out", &generated, "--bytes", "200KB"]));
    ok(&s.run(&[
        "gen", "--out", &generated, "--bytes", "200KB", "--seed", "2",
    ]));

    for old in ["archive.old-archilyzer", "generated.old-archilyzer"] {
        assert_eq!(
            std::fs::read_to_string(s.root.join(old).join("keep.txt")).unwrap(),
            "keep me"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(&s.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "staging left behind: {leftovers:?}");
}
