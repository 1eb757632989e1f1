//! A static HTTP server on 127.0.0.1 for tests: it serves a directory (a
//! composed public dir, or several side by side) with `ETag` and
//! `Last-Modified` validators, answers `If-None-Match` with 304, records
//! every request, and injects faults on chosen paths.
//! Faults are exact: a body cut short of its `Content-Length`, a stall
//! before the headers, a status once then success. It answers a single
//! `Range: bytes=a-b` with 206 as static hosts do, unless told to ignore
//! ranges ([`TestServer::ignore_ranges`]), as some servers do. It can take
//! on the habits of real hosts and CDNs ([`Habits`]): gzip on the fly,
//! weak or no `ETag`s, HTML error pages, redirects.

use std::collections::{HashMap, VecDeque};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{respond_cut, Listener, Request};

/// One injected misbehaviour, used by the next request for its path.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this status (and an empty body).
    Status(u16),
    /// 429 with a `Retry-After` of this many seconds.
    TooManyRequests {
        /// The `Retry-After` seconds sent.
        retry_after: u64,
    },
    /// Wait this long before answering.
    Delay(Duration),
    /// Send the headers and only half the body, then close.
    Truncate,
    /// Serve the body with one byte changed.
    Corrupt,
    /// Answer with this status and an HTML page titled `title`, as a
    /// host's error (or fallback) page.
    Html {
        /// The status sent.
        status: u16,
        /// The page's `<title>`.
        title: String,
    },
    /// Answer 301 to this location.
    Redirect(String),
}

/// How the host behaves on every request (all off: the plain host).
#[derive(Debug, Clone, Default)]
pub struct Habits {
    /// gzip the body when asked (`Accept-Encoding: gzip`) and no range is
    /// asked, as nginx's `gzip on` does; its `ETag` is then weak.
    pub gzip: bool,
    /// gzip a range's answer, asked or not (bytes of the compressed
    /// stream), as a badly set CDN may.
    pub gzip_ranges: bool,
    /// Send every `ETag` weak (`W/"…"`) and compare `If-None-Match`
    /// weakly.
    pub weak_etags: bool,
    /// Send no `ETag` at all, only `Last-Modified` (nginx's `etag off`),
    /// and answer `If-Modified-Since` with 304.
    pub no_etags: bool,
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Logged {
    /// The path asked for.
    pub path: String,
    /// The `If-None-Match` sent, if any.
    pub if_none_match: Option<String>,
    /// The `Range` sent, if any.
    pub range: Option<String>,
    /// The status answered.
    pub status: u16,
    /// Body bytes sent.
    pub bytes: usize,
}

#[derive(Default)]
struct State {
    faults: HashMap<String, VecDeque<Fault>>,
    always: HashMap<String, Fault>,
    log: Vec<Logged>,
    /// Page requests still answered before the site "dies".
    pages_left: Option<usize>,
    /// Answer every `Range` request with the whole file (200).
    ignore_ranges: bool,
    habits: Habits,
}

/// A running server; stops when dropped.
pub struct TestServer {
    listener: Listener,
    state: Arc<Mutex<State>>,
}

impl TestServer {
    /// Serves `root` on an ephemeral port of 127.0.0.1.
    pub fn serve(root: impl Into<PathBuf>) -> TestServer {
        let root = root.into();
        let state = Arc::new(Mutex::new(State::default()));
        let st = state.clone();
        let listener = Listener::spawn(move |req, conn| {
            let _ = handle(req, conn, &root, &st);
        });
        TestServer { listener, state }
    }

    /// `http://127.0.0.1:PORT/` + `path` (no trailing slash added).
    pub fn url(&self, path: &str) -> String {
        self.listener.url(path)
    }

    /// Queues `fault` for the next request of `path` (relative to the
    /// root, e.g. `alpha/corpus.json`).
    pub fn fault_once(&self, path: &str, fault: Fault) {
        let mut s = self.state.lock().unwrap();
        s.faults
            .entry(path.to_string())
            .or_default()
            .push_back(fault);
    }

    /// Applies `fault` to every request of `path` until cleared.
    pub fn fault_always(&self, path: &str, fault: Fault) {
        self.state
            .lock()
            .unwrap()
            .always
            .insert(path.to_string(), fault);
    }

    /// Serves every path normally again.
    pub fn clear_faults(&self) {
        let mut s = self.state.lock().unwrap();
        s.faults.clear();
        s.always.clear();
    }

    /// Answers `n` more page requests (paths holding `/page-`), then drops
    /// the connection of every later one: a site dying mid-scan.
    pub fn die_after_pages(&self, n: usize) {
        self.state.lock().unwrap().pages_left = Some(n);
    }

    /// Answers `Range` requests with the whole file and a 200, as a
    /// server without range support does.
    pub fn ignore_ranges(&self) {
        self.state.lock().unwrap().ignore_ranges = true;
    }

    /// Behaves as `habits` says from now on.
    pub fn habits(&self, habits: Habits) {
        self.state.lock().unwrap().habits = habits;
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().unwrap().log.clone()
    }

    /// Requests so far for `path`.
    pub fn requests_for(&self, path: &str) -> Vec<Logged> {
        self.log().into_iter().filter(|l| l.path == path).collect()
    }
}

fn handle(
    req: Request,
    conn: TcpStream,
    root: &std::path::Path,
    state: &Mutex<State>,
) -> std::io::Result<()> {
    let if_none_match = req.header("if-none-match").map(str::to_string);
    let if_modified_since = req.header("if-modified-since").is_some();
    let habits = state.lock().unwrap().habits.clone();
    let gzip_asked = req
        .header("accept-encoding")
        .is_some_and(|e| e.contains("gzip"));
    let path = req.path.clone();
    let dead = {
        let mut s = state.lock().unwrap();
        let is_page = path.contains("/page-");
        match &mut s.pages_left {
            Some(0) if is_page => true,
            Some(n) if is_page => {
                *n -= 1;
                false
            }
            _ => false,
        }
    };
    if dead {
        return conn.shutdown(std::net::Shutdown::Both);
    }
    let fault = {
        let mut s = state.lock().unwrap();
        let once = s.faults.get_mut(&path).and_then(|q| q.pop_front());
        once.or_else(|| s.always.get(&path).cloned())
    };
    let body = if path.contains("..") {
        None
    } else {
        std::fs::read(root.join(&path)).ok()
    };
    let range = req.header("range").map(str::to_string);
    let gzip =
        (habits.gzip && gzip_asked && range.is_none()) || (habits.gzip_ranges && range.is_some());
    let weak = habits.weak_etags || gzip;
    let etag = body.as_ref().filter(|_| !habits.no_etags).map(|b| {
        let tag = format!("\"{}\"", &archilyzer_core::source::sha256_hex(b)[..16]);
        if weak {
            format!("W/{tag}")
        } else {
            tag
        }
    });
    // `If-None-Match` compares weakly: the tags without their `W/`.
    let opaque = |t: &Option<String>| t.as_deref().map(|t| t.trim_start_matches("W/").to_string());
    let not_modified = match &etag {
        Some(_) => if_none_match.is_some() && opaque(&if_none_match) == opaque(&etag),
        None => habits.no_etags && if_modified_since,
    };
    let ignore_ranges = state.lock().unwrap().ignore_ranges;
    let part = match (&body, &range) {
        (Some(b), Some(r)) if !ignore_ranges => byte_range(r, b.len()),
        _ => None,
    };
    let status = match (&fault, &body) {
        (Some(Fault::Status(s)), _) => *s,
        (Some(Fault::Html { status, .. }), _) => *status,
        (Some(Fault::Redirect(_)), _) => 301,
        (Some(Fault::TooManyRequests { .. }), _) => 429,
        (_, None) => 404,
        (_, Some(_)) if not_modified => 304,
        _ if part.is_some() => 206,
        _ => 200,
    };
    // A range of the file, or with `gzip_ranges` of its gzip stream.
    let body = match body {
        Some(b) if gzip => Some(gzipped(&b)),
        other => other,
    };
    let part = match (&body, &range) {
        (Some(b), Some(r)) if gzip && status == 206 => byte_range(r, b.len()),
        _ => part,
    };
    let (body, content_range) = match (part, body) {
        (Some((a, b)), Some(full)) if status == 206 => (
            Some(full[a..=b].to_vec()),
            Some(format!("bytes {a}-{b}/{}", full.len())),
        ),
        (_, body) => (body, None),
    };
    let encoding = gzip.then(|| "gzip".to_string());
    state.lock().unwrap().log.push(Logged {
        path: path.clone(),
        if_none_match,
        range,
        status,
        bytes: body.as_ref().map_or(0, Vec::len),
    });
    answer(
        conn,
        status,
        fault,
        body,
        Headers {
            etag,
            content_range,
            encoding,
        },
    )
}

/// `body` gzipped.
fn gzipped(body: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut out = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    out.write_all(body).expect("gzip into memory");
    out.finish().expect("gzip into memory")
}

/// The headers an answer may carry besides its status.
struct Headers {
    etag: Option<String>,
    content_range: Option<String>,
    encoding: Option<String>,
}

/// The inclusive byte range `bytes=a-b` names inside a body of `len` bytes.
fn byte_range(header: &str, len: usize) -> Option<(usize, usize)> {
    let (a, b) = header.strip_prefix("bytes=")?.split_once('-')?;
    let (a, b): (usize, usize) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (a <= b && b < len).then_some((a, b))
}

fn answer(
    mut conn: TcpStream,
    status: u16,
    fault: Option<Fault>,
    body: Option<Vec<u8>>,
    sent: Headers,
) -> std::io::Result<()> {
    if let Some(Fault::Delay(d)) = fault {
        std::thread::sleep(d);
    }
    let mut body = if status == 200 || status == 206 {
        body.unwrap_or_default()
    } else {
        Vec::new()
    };
    if let (Some(Fault::Corrupt), Some(b)) = (&fault, body.get_mut(20)) {
        *b = b.wrapping_add(1);
    }
    let mut headers = vec![("Last-Modified", "Mon, 30 Nov 2026 00:00:00 GMT".to_string())];
    if let Some(e) = sent.etag {
        headers.push(("ETag", e));
    }
    if let Some(r) = sent.content_range {
        headers.push(("Content-Range", r));
    }
    if let (Some(e), 200 | 206) = (sent.encoding, status) {
        headers.push(("Content-Encoding", e));
    }
    if let Some(Fault::Html { title, .. }) = &fault {
        headers.push(("Content-Type", "text/html; charset=utf-8".to_string()));
        body = format!(
            "<html>\n<head><title>{title}</title></head>\n<body><h1>{title}</h1></body>\n</html>\n"
        )
        .into_bytes();
    }
    if let Some(Fault::Redirect(to)) = &fault {
        headers.push(("Location", to.clone()));
    }
    if let Some(Fault::TooManyRequests { retry_after }) = fault {
        headers.push(("Retry-After", retry_after.to_string()));
    }
    let send = if matches!(fault, Some(Fault::Truncate)) {
        body.len() / 2
    } else {
        body.len()
    };
    respond_cut(&mut conn, status, &headers, &body, send)
}
