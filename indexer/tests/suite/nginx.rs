//! Remote reads against nginx, as people publish archives: Debian's nginx
//! on 127.0.0.1 serving a generated archive and the committed test
//! archive in three configurations: plain; `gzip on` for JSON; `etag off`
//! (validators are `Last-Modified` only). In each, a search answers as a
//! local read does with and without an index (the indexed one by byte
//! ranges), a warm re-run downloads nothing, and a page changed behind its
//! manifest is refused.
//!
//! The test starts and stops nginx itself. Without an `nginx` binary
//! (`ARCHILYZER_NGINX`, else `/usr/sbin/nginx`, else `PATH`) it skips and
//! says so, unless `ARCHILYZER_REQUIRE_NGINX` is set (CI installs it).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use archilyzer_core::archive::Archive;
use archilyzer_core::index;
use archilyzer_core::query::{search, Request};
use common::{copy_dir, generated, open, open_local, testdata_archive};

/// One configuration under test: its name and what it adds to `server {}`.
const CONFIGS: [(&str, &str); 3] = [
    ("plain", ""),
    (
        "gzip",
        "gzip on; gzip_types application/json; gzip_min_length 0; gzip_proxied any;",
    ),
    ("etag-off", "etag off;"),
];

fn nginx_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ARCHILYZER_NGINX") {
        return Some(PathBuf::from(p));
    }
    let debian = PathBuf::from("/usr/sbin/nginx");
    if debian.exists() {
        return Some(debian);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("nginx"))
        .find(|p| p.exists())
}

/// nginx serving `root` on a free port of 127.0.0.1; stopped when dropped.
struct Nginx {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Nginx {
    fn start(binary: &Path, root: &Path, extra: &str) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let d = dir.path().display();
        let user = if is_root() { "user root;" } else { "" };
        let conf = format!(
            r#"{user}
daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 64; }}
http {{
    types {{ application/json json; }}
    default_type application/octet-stream;
    log_format line '$uri $status $body_bytes_sent "$sent_http_content_encoding" "$http_range"';
    access_log {d}/access.log line;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        {extra}
    }}
}}
"#,
            root = root.display()
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
        let child = Command::new(binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        let nginx = Nginx { child, port, dir };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not listen on {port}: {}",
                std::fs::read_to_string(nginx.dir.path().join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        nginx
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{path}", self.port)
    }

    /// The access log's lines so far.
    /// The access log once it has settled: nginx writes a request's line
    /// after the response's last byte is sent, so a client can hold the
    /// answer before its line is there (seen on a loaded machine).
    fn log(&self) -> Vec<Line> {
        let path = self.dir.path().join("access.log");
        let read = || std::fs::read_to_string(&path).unwrap_or_default();
        let mut text = read();
        for _ in 0..30 {
            std::thread::sleep(std::time::Duration::from_millis(200));
            let now = read();
            if now == text {
                break;
            }
            text = now;
        }
        text.lines()
            .filter_map(|l| {
                let mut parts = l.splitn(5, ' ');
                Some(Line {
                    uri: parts.next()?.to_string(),
                    status: parts.next()?.parse().ok()?,
                    bytes: parts.next()?.parse().ok()?,
                    encoding: parts.next()?.trim_matches('"').to_string(),
                    range: parts.next()?.trim_matches('"').to_string(),
                })
            })
            .collect()
    }
}

/// One request in nginx's access log (`-` for a header not sent).
#[derive(Debug, Clone)]
#[allow(dead_code)]
struct Line {
    uri: String,
    status: u16,
    bytes: u64,
    encoding: String,
    range: String,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// `(channel, slug, hits)` of every video matching `word`.
fn found(archive: &Archive, index: Option<&Path>, word: &str) -> Vec<(String, String, usize)> {
    let q = Request {
        query: word.into(),
        ..Default::default()
    };
    let r = search(archive, index, &q).unwrap();
    assert!(r.unreadable.is_empty(), "{word}: {:?}", r.unreadable);
    r.videos
        .iter()
        .map(|v| (v.channel.clone(), v.slug.clone(), v.hits.len()))
        .collect()
}

/// A word one video of a multi-video page holds, and that page's file.
fn rare_word(index: &Path) -> (String, String) {
    use fst::Streamer;
    let raw = index::RawIndex::load(index).unwrap();
    let mut stream = raw.terms.stream();
    while let Some((term, offset)) = stream.next() {
        let word = String::from_utf8(term.to_vec()).unwrap();
        let postings = raw.postings_with_counts(offset).unwrap();
        if let ([p], true) = (postings.as_slice(), word.len() >= 6) {
            let key = &raw.meta.pages[p.page as usize].key;
            if p.holders.as_ref().is_some_and(|h| h.len() == 1) {
                let file = format!("transcripts/{}/page-{:04}.json", key.channel, key.page);
                return (word, file);
            }
        }
    }
    panic!("no word held by one video of a page");
}

/// The remote suite on `site` (a folder under `root`), served by `nginx`.
fn remote_suite(nginx: &Nginx, root: &Path, site: &str, config: &str) {
    let handle = format!("remote:{}", nginx.url(site));
    let local = open_local(&root.join(site));
    let remote = open(&handle, None);
    assert_eq!(
        found(&remote, None, "the"),
        found(&local, None, "the"),
        "{config} {site}"
    );

    let index = tempfile::tempdir().unwrap();
    index::build(&remote, index.path(), &|_| {}).unwrap();
    let (word, page) = rare_word(index.path());
    let mark = nginx.log().len();
    let cache = tempfile::tempdir().unwrap();
    let ranged = found(
        &open(&handle, Some(cache.path())),
        Some(index.path()),
        &word,
    );
    assert_eq!(
        ranged,
        found(&local, None, &word),
        "{config} {site}: {word} by range"
    );
    let page_uri = format!("/{site}/{page}");
    let reads: Vec<_> = nginx.log()[mark..]
        .iter()
        .filter(|l| l.uri == page_uri)
        .cloned()
        .collect();
    assert!(
        !reads.is_empty()
            && reads
                .iter()
                .all(|l| l.status == 206 && l.range.starts_with("bytes=") && l.encoding == "-"),
        "{config} {site}: the page is read by range, as stored: {reads:?}"
    );

    // Warm: the same search with the same disk cache downloads nothing.
    let mark = nginx.log().len();
    let again = found(
        &open(&handle, Some(cache.path())),
        Some(index.path()),
        &word,
    );
    assert_eq!(again, ranged);
    let downloads: Vec<_> = nginx.log()[mark..]
        .iter()
        .filter(|l| matches!(l.status, 200 | 206))
        .cloned()
        .collect();
    assert!(
        downloads.is_empty(),
        "{config} {site}: the warm run downloaded {downloads:?}"
    );
    let revalidated = nginx.log()[mark..]
        .iter()
        .filter(|l| l.status == 304)
        .count();
    assert!(revalidated > 0, "{config} {site}: the warm run revalidates");

    // A page changed behind its unchanged manifest is refused.
    let path = root.join(site).join(&page);
    let original = std::fs::read(&path).unwrap();
    let changed =
        String::from_utf8(original.clone())
            .unwrap()
            .replacen(&word, &word.to_uppercase(), 1);
    std::fs::write(&path, changed).unwrap();
    let q = Request {
        query: word.clone(),
        ..Default::default()
    };
    let r = search(&open(&handle, None), None, &q).unwrap();
    std::fs::write(&path, original).unwrap();
    let unreadable = r.unreadable.join("\n");
    assert!(
        unreadable.contains(&page) && unreadable.contains("does not match the manifest's"),
        "{config} {site}: {unreadable}"
    );
}

#[test]
fn archives_served_by_nginx_read_as_local_ones_in_three_configurations() {
    let Some(binary) = nginx_binary() else {
        assert!(
            std::env::var_os("ARCHILYZER_REQUIRE_NGINX").is_none(),
            "ARCHILYZER_REQUIRE_NGINX is set but no nginx binary was found: apt-get install nginx-light"
        );
        eprintln!(
            "skipped: no nginx binary (apt-get install nginx-light, or set ARCHILYZER_NGINX)"
        );
        return;
    };
    let served = tempfile::tempdir().unwrap();
    let root = served.path().join("www");
    copy_dir(&generated().join("alpha"), &root.join("generated"));
    copy_dir(&testdata_archive().join("alpha"), &root.join("testdata"));
    for (name, extra) in CONFIGS {
        let nginx = Nginx::start(&binary, &root, extra);
        for site in ["generated", "testdata"] {
            remote_suite(&nginx, &root, site, name);
        }
        let gzipped = nginx.log().iter().filter(|l| l.encoding == "gzip").count();
        eprintln!(
            "nginx {name}: {} requests, {gzipped} gzipped",
            nginx.log().len()
        );
        match name {
            "gzip" => assert!(gzipped > 0, "gzip: whole files come compressed"),
            _ => assert_eq!(gzipped, 0, "{name}"),
        }
    }
}
