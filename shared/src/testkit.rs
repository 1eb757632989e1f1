//! A static HTTP server on 127.0.0.1 for tests: it serves a directory (a
//! composed public dir, or several side by side) with `ETag` and
//! `Last-Modified` validators, answers `If-None-Match` with 304, records
//! every request, and injects faults on chosen paths.
//!
//! It is a few dozen lines of HTTP/1.1 over `std::net` rather than a
//! framework so that faults can be exact: a body cut short of its
//! `Content-Length`, a stall before the headers, a status once then
//! success. One thread per connection; every response closes the
//! connection. Dropping the server stops it.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One injected misbehaviour, used by the next request for its path.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this status (and an empty body).
    Status(u16),
    /// 429 with a `Retry-After` of this many seconds.
    TooManyRequests { retry_after: u64 },
    /// Wait this long before answering.
    Delay(Duration),
    /// Send the headers and only half the body, then close.
    Truncate,
    /// Serve the body with one byte changed.
    Corrupt,
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Logged {
    pub path: String,
    pub if_none_match: Option<String>,
    pub status: u16,
}

#[derive(Default)]
struct State {
    faults: HashMap<String, VecDeque<Fault>>,
    always: HashMap<String, Fault>,
    log: Vec<Logged>,
}

/// A running server; stops when dropped.
pub struct TestServer {
    port: u16,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl TestServer {
    /// Serves `root` on an ephemeral port of 127.0.0.1.
    pub fn serve(root: impl Into<PathBuf>) -> TestServer {
        let root = root.into();
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (st, sp) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if sp.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (root, st) = (root.clone(), st.clone());
                std::thread::spawn(move || {
                    let _ = handle(conn, &root, &st);
                });
            }
        });
        TestServer { port, state, stop }
    }

    /// `http://127.0.0.1:PORT/` + `path` (no trailing slash added).
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
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

    pub fn clear_faults(&self) {
        let mut s = self.state.lock().unwrap();
        s.faults.clear();
        s.always.clear();
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

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn handle(conn: TcpStream, root: &std::path::Path, state: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let target = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let mut if_none_match = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("if-none-match") {
                if_none_match = Some(v.trim().to_string());
            }
        }
    }
    let path = target
        .split('?')
        .next()
        .unwrap_or("")
        .trim_start_matches('/')
        .to_string();
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
    let etag = body
        .as_ref()
        .map(|b| format!("\"{}\"", &crate::source::sha256_hex(b)[..16]));
    let status = match (&fault, &body) {
        (Some(Fault::Status(s)), _) => *s,
        (Some(Fault::TooManyRequests { .. }), _) => 429,
        (_, None) => 404,
        (_, Some(_)) if if_none_match.is_some() && if_none_match == etag => 304,
        _ => 200,
    };
    state.lock().unwrap().log.push(Logged {
        path: path.clone(),
        if_none_match,
        status,
    });
    respond(conn, status, fault, body, etag)
}

fn respond(
    mut conn: TcpStream,
    status: u16,
    fault: Option<Fault>,
    body: Option<Vec<u8>>,
    etag: Option<String>,
) -> std::io::Result<()> {
    if let Some(Fault::Delay(d)) = fault {
        std::thread::sleep(d);
    }
    let mut body = if status == 200 {
        body.unwrap_or_default()
    } else {
        Vec::new()
    };
    if let (Some(Fault::Corrupt), Some(b)) = (&fault, body.get_mut(20)) {
        *b = b.wrapping_add(1);
    }
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\nLast-Modified: Mon, 30 Nov 2026 00:00:00 GMT\r\n",
        body.len()
    );
    if let Some(e) = etag {
        head.push_str(&format!("ETag: {e}\r\n"));
    }
    if let Some(Fault::TooManyRequests { retry_after }) = fault {
        head.push_str(&format!("Retry-After: {retry_after}\r\n"));
    }
    head.push_str("\r\n");
    conn.write_all(head.as_bytes())?;
    let send = if matches!(fault, Some(Fault::Truncate)) {
        body.len() / 2
    } else {
        body.len()
    };
    conn.write_all(&body[..send])?;
    conn.flush()?;
    conn.shutdown(std::net::Shutdown::Both)
}
