//! `archilyzer-mcp --http ADDR`: the same server over MCP's Streamable
//! HTTP transport, for agents on other machines and web clients.
//!
//! rmcp speaks the transport (both protocol eras; every request is served
//! statelessly and answered with one JSON body). This module is the door
//! in front of it, and what it promises:
//!
//! - **A token off loopback.** Bound to anything but a loopback address,
//!   the server refuses to start without `ARCHILYZER_HTTP_TOKEN`. With a
//!   token set, every request must carry `Authorization: Bearer <token>`;
//!   a missing or wrong one gets 401, each saying which it was. The comparison is of sha256 digests
//!   in constant time, and the token is never logged.
//! - **Host and Origin allow-lists** (DNS-rebinding protection, as the MCP
//!   transport specification asks): loopback names by default,
//!   `--allow-host` / `--allow-origin` add more; anything else gets 403
//!   naming the flag that lets it in. Checked here, and again by rmcp.
//! - **Limits, each with a clear error:** a request body over
//!   `--max-body-bytes` gets 413; more than `--max-in-flight-per-client`
//!   calls at once from one address get 429, more than `--max-in-flight`
//!   in all 503, both with `Retry-After`; a call (its body included) that
//!   takes longer than `--call-timeout-secs` gets 504; a client that
//!   trickles its headers is dropped after `HEADER_TIMEOUT`. Answer sizes
//!   are the tools' own budget (`max_chars`).
//!
//! - **Health and metrics:** `GET /health` answers `ready` (200) or
//!   `not ready` (503) with no token and nothing about the corpus;
//!   `GET /metrics` (behind the token when one is set) gives
//!   [`crate::metrics`] in the Prometheus text format.
//!
//! What a remote caller may read (`source`) is restricted in
//! [`crate::sources`], not here.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::Digest;

use crate::metrics::{Metrics, Refusal};
use archilyzer_core::index::IndexCache;
use archilyzer_core::net::Downloaded;

/// Whether the server can answer calls (its default archive opens).
pub type Readiness = Arc<dyn Fn() -> bool + Send + Sync>;

/// What the HTTP door shares with the server: when it is ready, the
/// indexes it keeps and the bytes it downloaded (which `/metrics` reports
/// beside the calls), and its counts.
pub struct Served {
    /// Whether the server can answer calls.
    pub ready: Readiness,
    /// The indexes its archives keep (their hits and misses).
    pub indexes: Arc<IndexCache>,
    /// The bytes its remote stores downloaded.
    pub downloaded: Arc<Downloaded>,
    /// The server's counts (its context's).
    pub metrics: Arc<Metrics>,
}

/// How long a client may take to send its request headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything `--http` was told.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// Where to listen.
    pub addr: SocketAddr,
    /// `ARCHILYZER_HTTP_TOKEN`, if set.
    pub token: Option<String>,
    /// Extra `Host` names accepted besides loopback's.
    pub allow_hosts: Vec<String>,
    /// Extra `Origin`s accepted besides loopback's.
    pub allow_origins: Vec<String>,
    /// The largest request body accepted.
    pub max_body_bytes: usize,
    /// Calls at once from one address.
    pub per_client: usize,
    /// Calls at once in all.
    pub total: usize,
    /// The longest a call may take.
    pub call_timeout: Duration,
}

impl HttpConfig {
    /// Refuses a configuration that would expose the archive: a
    /// non-loopback address without a token, or an empty token.
    pub fn check(&self) -> Result<(), String> {
        match &self.token {
            Some(t) if t.trim().is_empty() => Err(
                "ARCHILYZER_HTTP_TOKEN is set but empty: set it to a long random secret, or unset it to serve loopback only".into(),
            ),
            None if !self.addr.ip().is_loopback() => Err(format!(
                "refusing to serve {} without a token: any machine that reaches this address could read the archive. \
                 Set ARCHILYZER_HTTP_TOKEN to a long random secret (clients send it as `Authorization: Bearer …`), \
                 or bind to 127.0.0.1",
                self.addr
            )),
            _ => Ok(()),
        }
    }

    /// The `Host` names this server answers to: loopback's, and every
    /// `--allow-host`. One list for every path (`/mcp`, `/health`,
    /// `/metrics`).
    fn allowed_hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
            .map(String::from)
            .to_vec();
        hosts.extend(self.allow_hosts.iter().cloned());
        hosts
    }

    /// Whether `host` (a `Host` header, with or without its port) is one
    /// of [`HttpConfig::allowed_hosts`].
    fn host_allowed(&self, host: &str) -> bool {
        let name = match host.rsplit_once(':') {
            // `[::1]:8080` or `name:8080`; a bare `::1` has no port.
            Some((name, port))
                if port.bytes().all(|b| b.is_ascii_digit()) && !name.ends_with(':') =>
            {
                name
            }
            _ => host,
        };
        let name = name.to_ascii_lowercase();
        self.allowed_hosts()
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&name))
    }

    /// Whether a browser's `Origin` may call: a loopback page (any
    /// port), or one `--allow-origin` names.
    fn origin_allowed(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/');
        let loopback = url::Url::parse(origin).is_ok_and(|u| {
            matches!(u.scheme(), "http" | "https")
                && matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]"))
                && u.path() == "/"
        });
        loopback
            || self
                .allow_origins
                .iter()
                .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin))
    }

    fn rmcp_config(&self) -> StreamableHttpServerConfig {
        let hosts = self.allowed_hosts();
        let mut origins: Vec<String> = ["http", "https"]
            .iter()
            .flat_map(|s| ["localhost", "127.0.0.1", "[::1]"].map(|h| format!("{s}://{h}:*")))
            .collect();
        origins.extend(self.allow_origins.iter().cloned());
        StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_max_request_body_bytes(self.max_body_bytes)
    }
}

/// Serves MCP over HTTP at `config.addr` until the process ends, each
/// request handled by a fresh server from `make`.
pub async fn serve<S>(
    config: HttpConfig,
    served: Served,
    make: impl Fn() -> S + Send + Sync + 'static,
) -> std::io::Result<()>
where
    S: rmcp::ServerHandler + Send + 'static,
{
    let mcp = StreamableHttpService::new(
        move || Ok(make()),
        Arc::new(NeverSessionManager::default()),
        config.rmcp_config(),
    );
    let listener = tokio::net::TcpListener::bind(config.addr).await?;
    // Said whatever the log level: whoever started the server needs the
    // address (the port, with `:0`) and the sign that it listens.
    eprintln!(
        "archilyzer-mcp: listening at http://{}/mcp{}; GET /health says when the archive is ready",
        listener.local_addr()?,
        if config.token.is_some() {
            " (a bearer token is required)"
        } else {
            ""
        }
    );
    let door = Arc::new(Door::new(config, served));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!("accept: {e}");
                continue;
            }
        };
        let (door, mcp) = (door.clone(), mcp.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let (door, mcp) = (door.clone(), mcp.clone());
                async move { Ok::<_, Infallible>(door.answer(req, peer.ip(), &mcp).await) }
            });
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                tracing::debug!("connection from {peer}: {e}");
            }
        });
    }
}

type Body = BoxBody<Bytes, Infallible>;

/// What is wrong with a request's bearer token: each says what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenFault {
    /// No `Authorization` header.
    Missing,
    /// An `Authorization` header that is not `Bearer <token>`.
    NotBearer,
    /// A bearer token that is not the server's.
    Wrong,
}

impl TokenFault {
    fn message(self) -> &'static str {
        match self {
            TokenFault::Missing => "a bearer token is required: send `Authorization: Bearer <token>` with the server's ARCHILYZER_HTTP_TOKEN",
            TokenFault::NotBearer => "the Authorization header is not `Bearer <token>`: send the server's ARCHILYZER_HTTP_TOKEN after `Bearer `",
            TokenFault::Wrong => "the bearer token is not this server's: check the token your client sends against the server's ARCHILYZER_HTTP_TOKEN (it may have been changed)",
        }
    }

    fn refusal(self) -> Refusal {
        match self {
            TokenFault::Missing | TokenFault::NotBearer => Refusal::Unauthorized,
            TokenFault::Wrong => Refusal::WrongToken,
        }
    }
}

/// The checks in front of rmcp, and the count of calls in flight.
struct Door {
    config: HttpConfig,
    ready: Readiness,
    indexes: Arc<IndexCache>,
    downloaded: Arc<Downloaded>,
    metrics: Arc<Metrics>,
    token_digest: Option<[u8; 32]>,
    in_flight: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// A call's place in the counts, given back when dropped.
struct Slot {
    door: Arc<Door>,
    peer: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.door.in_flight.lock().unwrap();
        counts.0 -= 1;
        self.door.metrics.set_in_flight(counts.0);
        if let Some(n) = counts.1.get_mut(&self.peer) {
            *n -= 1;
            if *n == 0 {
                counts.1.remove(&self.peer);
            }
        }
    }
}

impl Door {
    fn new(config: HttpConfig, served: Served) -> Door {
        Door {
            token_digest: config.token.as_deref().map(digest),
            config,
            ready: served.ready,
            indexes: served.indexes,
            downloaded: served.downloaded,
            metrics: served.metrics,
            in_flight: Mutex::new((0, HashMap::new())),
        }
    }

    async fn answer<S>(
        self: &Arc<Self>,
        req: Request<Incoming>,
        peer: IpAddr,
        mcp: &StreamableHttpService<S, NeverSessionManager>,
    ) -> Response<Body>
    where
        S: rmcp::ServerHandler + Send + 'static,
    {
        // Every answer is given after the request's body is read (or
        // drained, up to a bound): a connection whose body was left unread
        // is closed after the answer, and a client that reuses it meanwhile
        // sees it drop without an answer.
        let get = req.method() == hyper::Method::GET;
        let host = req
            .headers()
            .get(hyper::header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !self.config.host_allowed(host) {
            let why = format!(
                "Host {host:?} is not a name this server answers to (DNS-rebinding protection): use localhost, or start the server with --allow-host NAME"
            );
            drain(req.into_body(), self.config.max_body_bytes).await;
            self.metrics.record_refusal(Refusal::Host);
            return refusal(StatusCode::FORBIDDEN, &why);
        }
        if get && req.uri().path() == "/health" {
            return self.health().await;
        }
        let origin = req
            .headers()
            .get(hyper::header::ORIGIN)
            .map(|o| o.to_str().unwrap_or("(not text)").to_string());
        if let Some(origin) = origin.filter(|o| !self.config.origin_allowed(o)) {
            let why = format!(
                "Origin {:?} is not one this server answers (DNS-rebinding protection): a browser page on another site may not call it. Start the server with --allow-origin {origin} to let that site in",
                origin
            );
            drain(req.into_body(), self.config.max_body_bytes).await;
            self.metrics.record_refusal(Refusal::Origin);
            return refusal(StatusCode::FORBIDDEN, &why);
        }
        if let Err(token) = self.authorized(&req) {
            drain(req.into_body(), self.config.max_body_bytes).await;
            self.metrics.record_refusal(token.refusal());
            return refusal(StatusCode::UNAUTHORIZED, token.message());
        }
        if get && req.uri().path() == "/metrics" {
            return text(
                StatusCode::OK,
                METRICS_TYPE,
                self.metrics
                    .render(self.indexes.lookups(), self.downloaded.total()),
            );
        }
        let declared = req
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
        if declared.is_some_and(|n| n > self.config.max_body_bytes) {
            // Read (and drop) what the client is sending, up to a bound, so
            // it sees the 413 rather than a connection reset mid-upload.
            drain(req.into_body(), DRAIN_AT_MOST).await;
            return self.too_large();
        }
        let slot = match self.admit(peer) {
            Ok(slot) => slot,
            Err((status, why)) => {
                drain(req.into_body(), self.config.max_body_bytes).await;
                self.metrics
                    .record_refusal(if status == StatusCode::TOO_MANY_REQUESTS {
                        Refusal::ClientLimit
                    } else {
                        Refusal::ServerBusy
                    });
                return busy(status, &why);
            }
        };
        let deadline = tokio::time::Instant::now() + self.config.call_timeout;
        let (parts, body) = req.into_parts();
        let body =
            match tokio::time::timeout_at(deadline, read_body(body, self.config.max_body_bytes))
                .await
            {
                Err(_) => return self.timeout(),
                Ok(ReadBody::TooLarge) => return self.too_large(),
                Ok(ReadBody::Broken(e)) => {
                    self.metrics.record_refusal(Refusal::BadBody);
                    return refusal(
                        StatusCode::BAD_REQUEST,
                        &format!("the request body could not be read: {e}"),
                    );
                }
                Ok(ReadBody::Whole(bytes)) => bytes,
            };
        if parts.method == hyper::Method::POST {
            if let Some(answer) = crate::frames::check(&body) {
                self.metrics.record_refusal(Refusal::BadFrame);
                return malformed(answer);
            }
        }
        let req = Request::from_parts(parts, Full::new(body));
        match tokio::time::timeout_at(deadline, mcp.handle(req)).await {
            Ok(response) => response.map(|body| HeldBody::new(body, slot, deadline).boxed()),
            Err(_) => self.timeout(),
        }
    }

    /// `GET /health`: ready or not, and nothing else.
    async fn health(&self) -> Response<Body> {
        let ready = self.ready.clone();
        let check = tokio::task::spawn_blocking(move || ready());
        match tokio::time::timeout(Duration::from_secs(5), check).await {
            Ok(Ok(true)) => text(StatusCode::OK, "text/plain", "ready\n".into()),
            _ => text(
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                "not ready\n".into(),
            ),
        }
    }

    fn timeout(&self) -> Response<Body> {
        self.metrics.record_refusal(Refusal::Timeout);
        refusal(StatusCode::GATEWAY_TIMEOUT, &self.timed_out())
    }

    fn too_large(&self) -> Response<Body> {
        self.metrics.record_refusal(Refusal::TooLarge);
        refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!(
                "the request body is larger than this server accepts ({} bytes, --max-body-bytes)",
                self.config.max_body_bytes
            ),
        )
    }

    fn timed_out(&self) -> String {
        format!(
            "the call took longer than {} s (--call-timeout-secs): narrow it (channels, dates, max_pages, a smaller batch) and call again",
            self.config.call_timeout.as_secs()
        )
    }

    /// Whether `req` carries the token (when one is set), or what is
    /// wrong with what it carries.
    fn authorized(&self, req: &Request<Incoming>) -> Result<(), TokenFault> {
        let Some(expected) = &self.token_digest else {
            return Ok(());
        };
        let Some(header) = req.headers().get(hyper::header::AUTHORIZATION) else {
            return Err(TokenFault::Missing);
        };
        let given = header
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .ok_or(TokenFault::NotBearer)?;
        match constant_time_eq(&digest(given.trim()), expected) {
            true => Ok(()),
            false => Err(TokenFault::Wrong),
        }
    }

    /// A slot for one more call from `peer`, or the 429/503 that says why not.
    fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Slot, (StatusCode, String)> {
        let mut counts = self.in_flight.lock().unwrap();
        let mine = counts.1.get(&peer).copied().unwrap_or(0);
        if mine >= self.config.per_client {
            return Err((
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "{} calls from this address are already running (--max-in-flight-per-client): wait for one to finish",
                    self.config.per_client
                ),
            ));
        }
        if counts.0 >= self.config.total {
            return Err((
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server is running its limit of {} calls (--max-in-flight): try again shortly",
                    self.config.total
                ),
            ));
        }
        counts.0 += 1;
        self.metrics.set_in_flight(counts.0);
        *counts.1.entry(peer).or_default() += 1;
        Ok(Slot {
            door: Arc::clone(self),
            peer,
        })
    }
}

/// A response body that holds its call's [`Slot`] until the body is sent
/// or dropped, and ends at the call's deadline. A call that reports
/// progress is answered as an event stream whose head goes out before the
/// tool has finished: the slot and the deadline must cover the stream,
/// not only the head.
struct HeldBody {
    inner: Body,
    deadline: Pin<Box<tokio::time::Sleep>>,
    _slot: Slot,
}

impl HeldBody {
    fn new(inner: Body, slot: Slot, deadline: tokio::time::Instant) -> HeldBody {
        HeldBody {
            inner,
            deadline: Box::pin(tokio::time::sleep_until(deadline)),
            _slot: slot,
        }
    }
}

impl hyper::body::Body for HeldBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        if self.deadline.as_mut().poll(cx).is_ready() {
            tracing::warn!(
                "a streamed answer passed the call timeout (--call-timeout-secs): ended"
            );
            return Poll::Ready(None);
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// The most of a refused body read before answering.
const DRAIN_AT_MOST: usize = 16 << 20;

/// Reads and drops `body` until it ends, `limit` bytes have come, or 5 s
/// have passed.
/// A request body as read.
enum ReadBody {
    Whole(Bytes),
    /// Longer than the limit (what followed was drained, up to a bound).
    TooLarge,
    /// The client's stream failed.
    Broken(hyper::Error),
}

/// Reads `body` whole, unless it passes `limit` bytes.
async fn read_body(mut body: Incoming, limit: usize) -> ReadBody {
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => return ReadBody::Broken(e),
        };
        let Some(data) = frame.data_ref() else {
            continue;
        };
        if out.len() + data.len() > limit {
            drain(body, DRAIN_AT_MOST).await;
            return ReadBody::TooLarge;
        }
        out.extend_from_slice(data);
    }
    ReadBody::Whole(Bytes::from(out))
}

async fn drain(mut body: Incoming, limit: usize) {
    let read = async {
        let mut seen = 0;
        while let Some(Ok(frame)) = body.frame().await {
            seen += frame.data_ref().map_or(0, |d| d.len());
            if seen > limit {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
}

fn digest(text: &str) -> [u8; 32] {
    sha2::Sha256::digest(text.as_bytes()).into()
}

/// Equal, in a time that does not depend on where the two first differ.
fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A plain-text refusal.
/// The content type of `/metrics` (Prometheus text, OpenMetrics flavour).
const METRICS_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A plain answer of `body` as `content_type`.
fn text(status: StatusCode, content_type: &str, body: String) -> Response<Body> {
    let mut resp = Response::new(Full::new(Bytes::from(body)).boxed());
    *resp.status_mut() = status;
    if let Ok(v) = hyper::header::HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    resp
}

fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{message}\n"))).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// The JSON-RPC error answer to a malformed frame
/// ([`crate::frames::check`]): 400 for one that is no request, 200 for a
/// request with the wrong params (a JSON-RPC answer to that request).
fn malformed(refusal: crate::frames::Refusal) -> Response<Body> {
    let status = match refusal.code() {
        crate::frames::code::INVALID_PARAMS => StatusCode::OK,
        _ => StatusCode::BAD_REQUEST,
    };
    text(status, "application/json", refusal.to_json())
}

/// A 429 or 503 with `Retry-After: 1`.
fn busy(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = refusal(status, message);
    response.headers_mut().insert(
        hyper::header::RETRY_AFTER,
        hyper::header::HeaderValue::from_static("1"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served() -> Served {
        Served {
            ready: Arc::new(|| true),
            indexes: Arc::default(),
            downloaded: Arc::default(),
            metrics: Arc::default(),
        }
    }

    fn config(addr: &str, token: Option<&str>) -> HttpConfig {
        HttpConfig {
            addr: addr.parse().unwrap(),
            token: token.map(String::from),
            allow_hosts: vec![],
            allow_origins: vec![],
            max_body_bytes: 1 << 20,
            per_client: 2,
            total: 3,
            call_timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn off_loopback_a_token_is_required_and_an_empty_one_refused() {
        let err = config("0.0.0.0:8765", None).check().unwrap_err();
        assert!(
            err.starts_with("refusing to serve 0.0.0.0:8765 without a token")
                && err.contains("ARCHILYZER_HTTP_TOKEN"),
            "{err}"
        );
        assert!(config("0.0.0.0:8765", Some("s3cret")).check().is_ok());
        assert!(config("127.0.0.1:8765", None).check().is_ok());
        assert!(config("[::1]:8765", None).check().is_ok());
        let err = config("127.0.0.1:8765", Some(" ")).check().unwrap_err();
        assert!(err.contains("is set but empty"), "{err}");
    }

    #[test]
    fn calls_in_flight_are_limited_per_address_and_in_all() {
        let door = Arc::new(Door::new(config("127.0.0.1:1", None), served()));
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let first = door.admit(a).ok().unwrap();
        let _second = door.admit(a).ok().unwrap();
        let (status, why) = door.admit(a).err().unwrap();
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert!(
            why.starts_with("2 calls from this address are already running"),
            "{why}"
        );
        assert_eq!(busy(status, &why).headers()["retry-after"], "1");
        let _other = door.admit(b).ok().unwrap();
        let (full, _) = door.admit("127.0.0.4".parse().unwrap()).err().unwrap();
        assert_eq!(full, StatusCode::SERVICE_UNAVAILABLE);
        drop(first);
        assert!(door.admit(a).is_ok(), "a finished call frees its slot");
    }

    /// A body that never sends anything: a tool still running.
    struct Running;

    impl hyper::body::Body for Running {
        type Data = Bytes;
        type Error = Infallible;
        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Pending
        }
    }

    #[tokio::test]
    async fn a_streamed_answer_holds_its_slot_until_sent_and_ends_at_the_deadline() {
        let door = Arc::new(Door::new(config("127.0.0.1:1", None), served()));
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let wait = Duration::from_millis(200);
        let started = tokio::time::Instant::now();
        let body = HeldBody::new(Running.boxed(), door.admit(a).ok().unwrap(), started + wait);
        let _second = door.admit(a).ok().unwrap();
        let (status, _) = door.admit(a).err().unwrap();
        assert_eq!(
            status,
            StatusCode::TOO_MANY_REQUESTS,
            "the stream holds its slot"
        );
        let sent = body.collect().await.unwrap().to_bytes();
        assert!(
            sent.is_empty() && started.elapsed() >= wait,
            "ended at the deadline"
        );
        assert!(door.admit(a).is_ok(), "a sent answer frees its slot");
    }

    #[test]
    fn token_digests_compare_equal_only_when_equal() {
        assert!(constant_time_eq(&digest("abc"), &digest("abc")));
        assert!(!constant_time_eq(&digest("abc"), &digest("abd")));
        assert!(!constant_time_eq(&digest(""), &digest("abc")));
    }
}
