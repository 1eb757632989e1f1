//! Loopback HTTP servers for tests, on 127.0.0.1 and `std::net` only:
//! [`site::TestServer`] serves a composed public dir and injects faults,
//! and the small HTTP pieces here ([`Listener`], [`Request`],
//! [`respond`]) serve the server's fakes of the editor and umtool, which
//! live with the server's tests (`server/tests/common/`).
//!
//! They are a few dozen lines of HTTP/1.1 rather than a framework so that
//! every byte on the wire is under the test's control. One thread per
//! connection; every response closes its connection; dropping a server
//! stops it.
#![forbid(unsafe_code)]

pub mod site;

pub use site::{Fault, Habits, Logged, TestServer};

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One parsed request.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`…
    pub method: String,
    /// The path without its leading `/` or its query, percent-decoded.
    pub path: String,
    /// The query pairs, decoded.
    pub query: Vec<(String, String)>,
    /// Header names (lower case) and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body, as sent.
    pub body: Vec<u8>,
}

impl Request {
    /// A header's value (names compare without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A query parameter's value.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn read(conn: &TcpStream) -> std::io::Result<Request> {
        let mut reader = BufReader::new(conn.try_clone()?);
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("GET").to_string();
        let target = parts.next().unwrap_or("/").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let url = url::Url::parse(&format!("http://x{target}"))
            .unwrap_or_else(|_| url::Url::parse("http://x/").unwrap());
        let raw_path = url.path().trim_start_matches('/');
        let mut req = Request {
            method,
            path: percent_decode(raw_path).unwrap_or_else(|| raw_path.to_string()),
            query: url.query_pairs().into_owned().collect(),
            headers,
            body: Vec::new(),
        };
        let length: usize = req
            .header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        req.body = body;
        Ok(req)
    }
}

/// `%XX` escapes decoded; `None` for a malformed escape or non-UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            out.push(b);
            rest = tail;
        }
    }
    String::from_utf8(out).ok()
}

/// Writes one response with `Connection: close` and the extra headers.
pub fn respond(
    conn: &mut TcpStream,
    status: u16,
    headers: &[(&str, String)],
    body: &[u8],
) -> std::io::Result<()> {
    respond_cut(conn, status, headers, body, body.len())
}

/// Like [`respond`], but sends only the first `send` bytes of the body
/// under a `Content-Length` that promises all of it.
pub fn respond_cut(
    conn: &mut TcpStream,
    status: u16,
    headers: &[(&str, String)],
    body: &[u8],
    send: usize,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    conn.write_all(head.as_bytes())?;
    conn.write_all(&body[..send.min(body.len())])?;
    conn.flush()?;
    conn.shutdown(std::net::Shutdown::Both)
}

/// An accept loop on an ephemeral port of 127.0.0.1; stops when dropped.
pub struct Listener {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl Listener {
    /// Serves every connection on its own thread with `handler`.
    pub fn spawn<H>(handler: H) -> Listener
    where
        H: Fn(Request, TcpStream) + Send + Sync + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let (sp, handler) = (stop.clone(), Arc::new(handler));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if sp.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let handler = handler.clone();
                std::thread::spawn(move || {
                    if let Ok(req) = Request::read(&conn) {
                        handler(req, conn);
                    }
                });
            }
        });
        Listener { port, stop }
    }

    /// `http://127.0.0.1:PORT/` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}
