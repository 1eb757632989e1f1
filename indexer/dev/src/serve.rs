//! `archilyzer-dev serve`: a composed public dir served over HTTP on
//! loopback, slowed down on purpose, so the remote reader can be measured
//! as a distant static host would treat it.
//!
//! What it does, as static hosts do: `GET` and `HEAD` of files under the
//! folder (never outside it), a single `Range: bytes=a-b` answered with
//! 206 (or ignored with `--no-ranges`), `ETag` and `Last-Modified` with
//! `If-None-Match` answered by 304. What it adds: every response waits
//! `latency` before its headers, and all bodies together are paced to
//! `bytes_per_sec`. One thread per connection, each answered request
//! closes its connection. It is a measuring instrument, not a web server:
//! it binds only to loopback.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How the server treats requests.
#[derive(Debug, Clone)]
pub struct Pace {
    /// Wait before each response's headers.
    pub latency: Duration,
    /// All bodies together are sent at most this fast (0: no cap).
    pub bytes_per_sec: u64,
    /// Answer `Range` requests with the whole file, as some hosts do.
    pub ignore_ranges: bool,
}

/// A running server; it stops with the process.
pub struct Server {
    addr: SocketAddr,
}

/// Flags of `archilyzer-dev serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The folder to serve (its files appear at the root URL).
    pub dir: std::path::PathBuf,
    /// The loopback address to listen on.
    #[arg(long, default_value = "127.0.0.1:8780")]
    pub addr: SocketAddr,
    /// Wait this long before each response, in ms.
    #[arg(long, default_value_t = 0)]
    pub latency_ms: u64,
    /// Send all bodies together at most this fast, in MB/s (0: no cap).
    #[arg(long, default_value_t = 0)]
    pub mbps: u64,
    /// Answer Range requests with the whole file, as some hosts do.
    #[arg(long)]
    pub no_ranges: bool,
}

/// Serves the folder the flags name until the process is stopped.
pub fn command(args: &ServeArgs) -> anyhow::Result<std::process::ExitCode> {
    let pace = Pace {
        latency: Duration::from_millis(args.latency_ms),
        bytes_per_sec: args.mbps * 1_000_000,
        ignore_ranges: args.no_ranges,
    };
    let server = Server::start(&args.dir, args.addr, pace)?;
    let cap = if args.mbps == 0 {
        "no bandwidth cap".to_string()
    } else {
        format!("{} MB/s", args.mbps)
    };
    eprintln!(
        "serving {} at {} ({} ms a request, {cap}); Ctrl-C stops",
        args.dir.display(),
        server.url(),
        args.latency_ms
    );
    loop {
        std::thread::park();
    }
}

impl Server {
    /// Serves `root` on `addr` (a loopback address; port 0 picks one).
    pub fn start(root: &Path, addr: SocketAddr, pace: Pace) -> anyhow::Result<Server> {
        anyhow::ensure!(
            addr.ip().is_loopback(),
            "serve binds only to loopback (127.0.0.1 or ::1), not {addr}: it is a measuring instrument"
        );
        let root = std::fs::canonicalize(root)?;
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new((root, pace, Mutex::new(Instant::now())));
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || {
                    let (root, pace, line) = &*shared;
                    if let Err(e) = answer(conn, root, pace, line) {
                        tracing::debug!("serve: {e}");
                    }
                });
            }
        });
        Ok(Server { addr })
    }

    /// `http://ADDR/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

/// The head of one request: method, decoded path, and the headers used.
struct Asked {
    method: String,
    path: String,
    range: Option<String>,
    if_none_match: Option<String>,
}

fn read_request(conn: &TcpStream) -> std::io::Result<Asked> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/");
    let path = target.split('?').next().unwrap_or("/");
    let mut asked = Asked {
        method,
        path: percent_encoding::percent_decode_str(path)
            .decode_utf8_lossy()
            .trim_start_matches('/')
            .to_string(),
        range: None,
        if_none_match: None,
    };
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            let v = Some(v.trim().to_string());
            match k.trim().to_ascii_lowercase().as_str() {
                "range" => asked.range = v,
                "if-none-match" => asked.if_none_match = v,
                _ => {}
            }
        }
    }
    Ok(asked)
}

/// The file `path` names under `root`, if it is one and stays inside.
fn file_under(root: &Path, path: &str) -> Option<PathBuf> {
    let full = std::fs::canonicalize(root.join(path)).ok()?;
    (full.starts_with(root) && full.is_file()).then_some(full)
}

fn answer(
    mut conn: TcpStream,
    root: &Path,
    pace: &Pace,
    line: &Mutex<Instant>,
) -> std::io::Result<()> {
    let asked = read_request(&conn)?;
    tracing::debug!("serve: {} {} {:?}", asked.method, asked.path, asked.range);
    std::thread::sleep(pace.latency);
    if asked.method != "GET" && asked.method != "HEAD" {
        return head(&mut conn, "405 Method Not Allowed", 0, &[]);
    }
    let Some(file) = file_under(root, &asked.path) else {
        return head(&mut conn, "404 Not Found", 0, &[]);
    };
    let meta = std::fs::metadata(&file)?;
    let mtime = meta.modified()?;
    let etag = format!(
        "\"{:x}-{:x}\"",
        meta.len(),
        mtime
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let mut headers = vec![
        ("ETag", etag.clone()),
        ("Last-Modified", httpdate::fmt_http_date(mtime)),
        ("Accept-Ranges", "bytes".to_string()),
    ];
    if asked.if_none_match.as_deref() == Some(etag.as_str()) {
        return head(&mut conn, "304 Not Modified", 0, &headers);
    }
    let len = meta.len() as usize;
    let range = asked
        .range
        .as_deref()
        .filter(|_| !pace.ignore_ranges)
        .and_then(|r| byte_range(r, len));
    let (status, (a, b)) = match range {
        Some((a, b)) => {
            headers.push(("Content-Range", format!("bytes {a}-{b}/{len}")));
            ("206 Partial Content", (a, b + 1))
        }
        None => ("200 OK", (0, len)),
    };
    let mut part = vec![0; b - a];
    std::os::unix::fs::FileExt::read_exact_at(&std::fs::File::open(&file)?, &mut part, a as u64)?;
    head(&mut conn, status, part.len(), &headers)?;
    if asked.method == "GET" {
        send_paced(&mut conn, &part, pace.bytes_per_sec, line)?;
    }
    conn.flush()
}

/// The inclusive range a `bytes=a-b` header names within `len` bytes.
fn byte_range(header: &str, len: usize) -> Option<(usize, usize)> {
    let (a, b) = header.strip_prefix("bytes=")?.split_once('-')?;
    let a: usize = a.trim().parse().ok()?;
    let b: usize = b.trim().parse::<usize>().ok()?.min(len.checked_sub(1)?);
    (a <= b).then_some((a, b))
}

fn head(
    conn: &mut TcpStream,
    status: &str,
    length: usize,
    headers: &[(&str, String)],
) -> std::io::Result<()> {
    let mut text =
        format!("HTTP/1.1 {status}\r\nContent-Length: {length}\r\nConnection: close\r\n");
    for (k, v) in headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str("\r\n");
    conn.write_all(text.as_bytes())
}

/// Sends `body` in 64 KB slices, each waiting for its turn on the one
/// line all connections share, so the total rate stays under the cap.
fn send_paced(
    conn: &mut TcpStream,
    body: &[u8],
    bytes_per_sec: u64,
    line: &Mutex<Instant>,
) -> std::io::Result<()> {
    for slice in body.chunks(64 * 1024) {
        if bytes_per_sec > 0 {
            let cost = Duration::from_secs_f64(slice.len() as f64 / bytes_per_sec as f64);
            let done = {
                let mut free = line.lock().unwrap();
                *free = (*free).max(Instant::now()) + cost;
                *free
            };
            std::thread::sleep(done.saturating_duration_since(Instant::now()));
        }
        conn.write_all(slice)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(url: &str, path: &str, headers: &str) -> String {
        use std::io::Read;
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        let mut conn = TcpStream::connect(addr).unwrap();
        write!(conn, "GET /{path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n").unwrap();
        let mut out = String::new();
        conn.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn it_serves_ranges_whole_files_and_304s_and_nothing_outside_its_folder() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("site")).unwrap();
        std::fs::write(tmp.path().join("site/a.json"), "0123456789").unwrap();
        std::fs::write(tmp.path().join("secret"), "no").unwrap();
        let pace = Pace {
            latency: Duration::from_millis(30),
            bytes_per_sec: 0,
            ignore_ranges: false,
        };
        let server = Server::start(
            &tmp.path().join("site"),
            "127.0.0.1:0".parse().unwrap(),
            pace,
        )
        .unwrap();
        let started = Instant::now();
        let part = get(&server.url(), "a.json", "Range: bytes=2-4\r\n");
        assert!(
            started.elapsed() >= Duration::from_millis(30),
            "the latency"
        );
        assert!(part.starts_with("HTTP/1.1 206"), "{part}");
        assert!(part.contains("Content-Range: bytes 2-4/10") && part.ends_with("\r\n\r\n234"));
        let whole = get(&server.url(), "a.json", "");
        assert!(whole.starts_with("HTTP/1.1 200") && whole.ends_with("0123456789"));
        let etag = whole
            .lines()
            .find_map(|l| l.strip_prefix("ETag: "))
            .unwrap()
            .to_string();
        let again = get(
            &server.url(),
            "a.json",
            &format!("If-None-Match: {etag}\r\n"),
        );
        assert!(again.starts_with("HTTP/1.1 304"), "{again}");
        for outside in ["../secret", "%2e%2e/secret", "nothing.json"] {
            assert!(
                get(&server.url(), outside, "").starts_with("HTTP/1.1 404"),
                "{outside}"
            );
        }
        let refused = Server::start(
            tmp.path(),
            "0.0.0.0:0".parse().unwrap(),
            Pace {
                latency: Duration::ZERO,
                bytes_per_sec: 0,
                ignore_ranges: false,
            },
        );
        assert!(refused
            .err()
            .unwrap()
            .to_string()
            .contains("binds only to loopback"));
    }

    #[test]
    fn ranges_are_clamped_like_a_static_host_and_bad_ones_ignored() {
        assert_eq!(byte_range("bytes=2-5", 10), Some((2, 5)));
        assert_eq!(byte_range("bytes=2-50", 10), Some((2, 9)));
        assert_eq!(byte_range("bytes=5-2", 10), None);
        assert_eq!(byte_range("bytes=-5", 10), None);
        assert_eq!(byte_range("bytes=0-1", 0), None);
    }
}
