//! The one HTTP plumbing both binaries share: a small private tokio runtime
//! that drives `reqwest` for synchronous callers, a client builder with
//! timeouts, and a one-line description of a transport error.
//!
//! Callers (scanner threads, the server's blocking tool tasks) stay
//! synchronous; the async client is used because only it has a read
//! timeout. [`block_on`] must not be called from inside an async task.

use std::time::Duration;

use reqwest::Client;

use super::Failure;

/// Runs one future of an HTTP client built by [`client`] to completion.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    runtime().block_on(f)
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("archilyzer-http")
            .enable_all()
            .build()
            .expect("an HTTP runtime (two threads) can be started")
    })
}

/// An HTTP client bound to the shared runtime, with a connect timeout and
/// a timeout between reads.
pub fn client(connect_timeout: Duration, read_timeout: Duration) -> Result<Client, ClientError> {
    let _in_runtime = runtime().enter();
    Client::builder()
        .connect_timeout(connect_timeout)
        .read_timeout(read_timeout)
        .user_agent(concat!("archilyzer/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(ClientError)
}

/// How a client for an archive's host treats compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Asks for gzip or brotli and decodes what comes (whole files: a
    /// compressed page costs a fraction of the bytes).
    Decoded,
    /// Asks for the bytes as stored and decodes nothing, so a byte range
    /// is a range of the file and an encoded answer can be seen and
    /// refused.
    Identity,
}

/// A client for an archive's host: [`client`]'s timeouts, `encoding`, and
/// redirects followed only within the origin (and from `http` to `https`
/// on the same host, never back), at most 5, so a moved archive is named
/// rather than silently read from elsewhere.
pub fn site_client(
    connect_timeout: Duration,
    read_timeout: Duration,
    encoding: Encoding,
) -> Result<Client, ClientError> {
    let _in_runtime = runtime().enter();
    let decoded = encoding == Encoding::Decoded;
    Client::builder()
        .connect_timeout(connect_timeout)
        .read_timeout(read_timeout)
        .user_agent(concat!("archilyzer/", env!("CARGO_PKG_VERSION")))
        .gzip(decoded)
        .brotli(decoded)
        .redirect(reqwest::redirect::Policy::custom(same_host_only))
        .build()
        .map_err(ClientError)
}

/// The redirect rule of [`site_client`].
fn same_host_only(attempt: reqwest::redirect::Attempt) -> reqwest::redirect::Action {
    let (from, to) = (&attempt.previous()[0], attempt.url());
    let same =
        from.scheme() == to.scheme() && from.port_or_known_default() == to.port_or_known_default();
    let upgrade = from.scheme() == "http" && to.scheme() == "https";
    if attempt.previous().len() > 5 {
        let message = format!("{from} redirected more than 5 times");
        attempt.error(message)
    } else if from.host_str() != to.host_str() || !(same || upgrade) {
        let message = format!(
            "{from} redirects to {to}, outside the archive's origin: if the archive moved there, pass that address as the source"
        );
        attempt.error(message)
    } else {
        attempt.follow()
    }
}

/// The HTTP client could not be started (its TLS backend failed to load:
/// check the system's OpenSSL and certificates).
#[derive(Debug, thiserror::Error)]
#[error("cannot start an HTTP client: {0}")]
pub struct ClientError(#[source] reqwest::Error);

impl Failure {
    /// The kind of `e`, from its chain of causes.
    pub fn of(e: &reqwest::Error) -> Self {
        let causes = || std::iter::successors(std::error::Error::source(e), |s| s.source());
        let refused = causes().any(|s| {
            s.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
        });
        let unresolved = causes().any(|s| {
            let text = s.to_string();
            text.starts_with("dns error") || text.contains("failed to lookup address")
        });
        if e.is_timeout() {
            Failure::TimedOut
        } else if unresolved {
            Failure::NoSuchHost
        } else if refused {
            Failure::Refused
        } else if e.is_body() || e.is_decode() {
            Failure::CutShort
        } else {
            Failure::Other
        }
    }
}

/// What went wrong with a request, with its innermost cause.
pub fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_body() || e.is_decode() {
        "body cut short"
    } else {
        "request failed"
    };
    let mut cause = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    if cause.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} ({cause})")
    }
}
