//! The one HTTP plumbing both binaries share: a small private tokio runtime
//! that drives `reqwest` for synchronous callers, a client builder with
//! timeouts, and a one-line description of a transport error.
//!
//! Callers (scanner threads, the server's blocking tool tasks) stay
//! synchronous; the async client is used because only it has a read
//! timeout. [`block_on`] must not be called from inside an async task.

use std::time::Duration;

use reqwest::Client;

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

/// The HTTP client could not be started (its TLS backend failed to load:
/// check the system's OpenSSL and certificates).
#[derive(Debug, thiserror::Error)]
#[error("cannot start an HTTP client: {0}")]
pub struct ClientError(#[source] reqwest::Error);

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
