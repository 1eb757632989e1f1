//! Faults on every I/O path, and hostile input, each a test: the disk
//! fills during a build, a remote site dies mid-scan, a page is truncated
//! on disk, a manifest or handle tries to escape the archive, queries and
//! regexes past their limits, and pages built to exhaust memory.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use archilyzer_core::archive::Archive;
use archilyzer_core::query::{search, Request};
use archilyzer_core::source::SourceHandle;
use archilyzer_testkit::TestServer;
use common::{copy_dir, files_under, generated, open, open_local, transcript_pages};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_archilyzer-index"))
}

fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .map(|f| {
            (
                f.strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(&f).unwrap(),
            )
        })
        .collect()
}

fn req(q: &str) -> Request {
    Request {
        query: q.into(),
        use_aliases: true,
        ..Request::default()
    }
}

fn first_page(site: &Path) -> PathBuf {
    transcript_pages(site).remove(0)
}

#[test]
fn a_full_disk_during_build_is_a_clear_error_and_the_previous_index_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let (site, idx) = (tmp.path().join("alpha"), tmp.path().join("index"));
    copy_dir(&generated().join("alpha"), &site);
    let ok = bin()
        .args(["build", "--local"])
        .arg(&site)
        .arg("--index")
        .arg(&idx)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let before = contents(&idx);
    let biggest = before.values().map(Vec::len).max().unwrap() as u64;
    assert!(Command::new("touch")
        .arg(first_page(&site))
        .status()
        .unwrap()
        .success());
    // A file-size limit below the biggest index file: writes past it fail
    // with EFBIG (SIGXFSZ is ignored so the error reaches the program).
    let limit_kb = (biggest / 1024 / 2).max(1);
    let out = Command::new("sh")
        .args([
            "-c",
            &format!("trap '' XFSZ; ulimit -f {limit_kb}; exec \"$0\" \"$@\""),
        ])
        .arg(env!("CARGO_BIN_EXE_archilyzer-index"))
        .args(["build", "--local"])
        .arg(&site)
        .arg("--index")
        .arg(&idx)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the build must fail: {stderr}");
    assert!(
        stderr.contains("the build did not finish; the index at")
            && stderr.contains("is as it was before"),
        "{stderr}"
    );
    assert!(
        stderr.contains("File too large"),
        "the cause is named: {stderr}"
    );
    assert_eq!(contents(&idx), before, "the previous index is intact");
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        2,
        "no staging dir is left behind: {leftovers:?}"
    );
}

#[test]
fn a_remote_site_that_dies_mid_scan_names_the_unread_pages_and_says_partial() {
    let server = TestServer::serve(generated());
    let archive = open(&format!("remote:{}", server.url("alpha")), None);
    let full = search(
        &open_local(&generated().join("alpha")),
        None,
        &req("really"),
    )
    .unwrap();
    let (pages, _) = archive.page_table();
    server.die_after_pages(3);
    let r = search(&archive, None, &req("really")).unwrap();
    assert!(r.coverage.partial, "coverage is PARTIAL");
    let unread = pages
        .iter()
        .filter(|p| p.layer == archilyzer_core::format::paths::Layer::Transcripts)
        .count()
        - 3;
    assert_eq!(r.unreadable.len(), unread, "{:?}", r.unreadable);
    assert!(
        r.unreadable.iter().all(|u| u.contains("/page-")),
        "{:?}",
        r.unreadable
    );
    assert!(r.videos.len() < full.videos.len() && !r.videos.is_empty());
}

#[test]
fn a_page_truncated_on_disk_is_named_and_the_rest_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("alpha");
    copy_dir(&generated().join("alpha"), &site);
    let page = first_page(&site);
    let bytes = std::fs::read(&page).unwrap();
    std::fs::write(&page, &bytes[..bytes.len() / 2]).unwrap();
    let r = search(&open_local(&site), None, &req("really")).unwrap();
    let name = page.file_name().unwrap().to_string_lossy().to_string();
    assert_eq!(r.unreadable.len(), 1, "{:?}", r.unreadable);
    assert!(r.unreadable[0].contains(&name), "{:?}", r.unreadable);
    assert!(r.coverage.partial && !r.videos.is_empty());
}

#[test]
fn a_manifest_entry_or_handle_that_escapes_the_archive_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("alpha");
    copy_dir(&generated().join("alpha"), &site);
    std::fs::write(
        tmp.path().join("secret.json"),
        b"{\"channel\":\"x\",\"page\":1,\"videos\":[]}",
    )
    .unwrap();
    let channel = std::fs::read_dir(site.join("transcripts"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let manifest_path = channel.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    manifest["pages"][0]["file"] = "../../../secret.json".into();
    if let Some(p) = manifest["pages"].get_mut(1) {
        p["file"] = "/etc/passwd".into();
    }
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let r = search(&open_local(&site), None, &req("really")).unwrap();
    assert!(
        r.unreadable
            .iter()
            .any(|u| u.contains("../../../secret.json")
                && u.contains("a manifest's page file is a plain file name")),
        "{:?}",
        r.unreadable
    );
    assert!(
        r.unreadable.iter().any(|u| u.contains("/etc/passwd")),
        "{:?}",
        r.unreadable
    );
    for bad in [
        "remote:file:///etc",
        "hub:ftp://h.example",
        "local:",
        "local:  ",
        "remote:--exec=x",
    ] {
        assert!(SourceHandle::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn queries_and_regexes_past_their_limits_are_refused_with_the_limit_named() {
    let archive = open_local(&generated().join("alpha"));
    let long = "word ".repeat(300);
    let err = search(&archive, None, &req(&long)).unwrap_err().to_string();
    assert_eq!(err, "the query is 1500 bytes long; the limit is 1000");
    let mut huge = req("(\\w{50}){50}(\\w{50}){50}");
    huge.regex = true;
    let err = search(&archive, None, &huge).unwrap_err().to_string();
    assert!(
        err.contains("does not compile") && err.contains("size limit"),
        "{err}"
    );
}

/// Peak RSS in MB of `archilyzer-index ARGS`, measured by its parent.
fn peak_rss_mb(args: &[&str]) -> (u64, String) {
    let script = "import resource, subprocess, sys\np = subprocess.run(sys.argv[1:], capture_output=True, text=True)\nprint(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\nprint(p.returncode)\nprint(p.stdout[-2000:] + p.stderr[-2000:])";
    let out = Command::new("python3")
        .args(["-c", script, env!("CARGO_BIN_EXE_archilyzer-index")])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mb = text.lines().next().unwrap().parse().unwrap();
    (mb, text)
}

/// Peak RSS in MB of a full-scan search of `dir` for `query`, and what it printed.
fn scan_rss_mb(dir: &Path, query: &str) -> (u64, String) {
    let dir = dir.to_str().unwrap();
    peak_rss_mb(&[
        "search",
        "--no-index",
        "--local",
        dir,
        "--limit",
        "1",
        query,
    ])
}

/// An archive of one channel whose only page is `videos` (JSON).
fn one_page_archive(dir: &Path, videos: &str) {
    let page = format!("{{\"channel\":\"big\",\"page\":1,\"videos\":{videos}}}");
    let tdir = dir.join("transcripts/big");
    std::fs::create_dir_all(&tdir).unwrap();
    std::fs::write(tdir.join("page-0001.json"), &page).unwrap();
    let sha = archilyzer_core::source::sha256_hex(page.as_bytes());
    let manifest = serde_json::json!({"channel": "big", "name": "Big", "pages": [{"file": "page-0001.json", "videos": 1, "bytes": page.len(), "sha256": sha}], "slugToPage": {"v1": 1}});
    std::fs::write(tdir.join("manifest.json"), manifest.to_string()).unwrap();
    let corpus = serde_json::json!({"kind": "site", "spec": 1, "site": {"id": "big", "title": "Big"}, "channels": [{"slug": "big", "name": "Big", "platform": "other", "videoCount": 1, "pageCount": 1}]});
    std::fs::write(dir.join("corpus.json"), corpus.to_string()).unwrap();
}

#[test]
fn a_100_mb_cue_and_a_million_tiny_cues_are_searched_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("bigcue");
    let text = "lorem ipsum dolor ".repeat(100_000_000 / 18) + "needle";
    one_page_archive(
        &big,
        &format!("[{{\"slug\":\"v1\",\"title\":\"t\",\"cues\":[[1.0,2.0,\"{text}\"]]}}]"),
    );
    drop(text);
    let (mb, out) = scan_rss_mb(&big, "needle");
    assert!(out.contains("1 video(s), 1 hit(s)"), "{out}");
    assert!(mb < 700, "a 100 MB cue took {mb} MB");
    println!("100 MB cue: peak RSS {mb} MB");

    let many = tmp.path().join("many");
    let mut cues = String::from("[");
    for i in 0..1_000_000u32 {
        if i > 0 {
            cues.push(',');
        }
        cues.push_str(&format!("[{}.0,{}.5,\"w{}\"]", i, i, i % 1000));
    }
    cues.push(']');
    one_page_archive(
        &many,
        &format!("[{{\"slug\":\"v1\",\"title\":\"t\",\"cues\":{cues}}}]"),
    );
    let (mb, out) = scan_rss_mb(&many, "w999");
    assert!(out.contains("1 video(s), 1000 hit(s)"), "{out}");
    assert!(mb < 900, "a million cues took {mb} MB");
    println!("1,000,000 cues: peak RSS {mb} MB");
}

#[test]
fn non_utf8_bytes_are_named_never_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("bad");
    one_page_archive(&site, "[]");
    let page = site.join("transcripts/big/page-0001.json");
    let mut bytes = b"{\"channel\":\"big\",\"page\":1,\"videos\":[{\"slug\":\"v1\",\"title\":\"t\",\"cues\":[[1.0,2.0,\"caf".to_vec();
    bytes.extend([0xff, 0xfe]);
    bytes.extend(b"\"]]}]}");
    std::fs::write(&page, &bytes).unwrap();
    let r = search(
        &Archive::open(&SourceHandle::local(&site), &common::options(None)).unwrap(),
        None,
        &req("caf"),
    )
    .unwrap();
    assert_eq!(r.unreadable.len(), 1, "{:?}", r);
    assert!(
        r.unreadable[0].contains("page-0001.json"),
        "{:?}",
        r.unreadable
    );
    let from = tmp.path().join("vtt");
    std::fs::create_dir_all(&from).unwrap();
    let mut vtt = b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nbad \xff\xfe bytes\n".to_vec();
    vtt.extend(b"\n00:00:03.000 --> 00:00:04.000\nfine\n");
    std::fs::write(from.join("a.vtt"), vtt).unwrap();
    let out = bin()
        .args(["import", "--from"])
        .arg(&from)
        .arg("--out")
        .arg(tmp.path().join("imported"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success()
            && stderr.contains("a.vtt: 2 byte sequence(s) are not UTF-8 and were kept as U+FFFD"),
        "{stderr}"
    );
    let archive = open_local(&tmp.path().join("imported"));
    let v = &archive.sites()[0]
        .transcript_page("imported", 1)
        .unwrap()
        .videos[0];
    assert_eq!(v.cues.len(), 2, "nothing is dropped");
    assert!(v.cues[0].text.contains('\u{fffd}'));
}
