//! What every build knows of the network: the kinds of failure a request
//! meets, with what to do about each, and the counter of bytes downloaded.
//! The HTTP client itself (`client`, `site_client` and `block_on`, behind the
//! `remote` feature) is the only part that opens a socket.

#[cfg(feature = "remote")]
mod client;
#[cfg(feature = "remote")]
pub use client::{block_on, client, describe, site_client, ClientError, Encoding};

/// Body bytes received from archive hosts, counted by every remote store
/// opened with the same [`crate::source::HttpOptions`] (a server's own
/// count; nothing process-wide).
#[derive(Debug, Default)]
pub struct Downloaded(std::sync::atomic::AtomicU64);

impl Downloaded {
    /// Counts `n` body bytes received from an archive's host.
    pub fn add(&self, n: usize) {
        self.0
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bytes counted so far (as decoded: a compressed answer counts
    /// its decoded size).
    pub fn total(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The kind of network failure a request met: what to tell the user, and
/// whether trying again may help (a name that does not resolve will not
/// resolve a second later; a refused or dropped connection may be a
/// server restarting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The host name does not resolve.
    NoSuchHost,
    /// Nothing listens at the address and port.
    Refused,
    /// No answer within the timeout.
    TimedOut,
    /// The body ended before its length.
    CutShort,
    /// Anything else.
    Other,
}

impl Failure {
    /// Whether another attempt may succeed.
    pub fn worth_retrying(self) -> bool {
        self != Failure::NoSuchHost
    }

    /// What to do about it.
    pub fn advice(self) -> &'static str {
        match self {
            Failure::NoSuchHost => "no such host: check the address for a typo, and this machine's network and DNS",
            Failure::Refused => "nothing listens at that address and port: check the URL, or start the server that publishes the archive",
            Failure::TimedOut => "the site is too slow or unreachable (timeouts can be raised with ARCHILYZER_HTTP_TIMEOUT_SECS)",
            Failure::CutShort => "the connection dropped before the file ended: try again, or check the host",
            Failure::Other => "the site is unreachable: check the URL and this machine's network",
        }
    }
}
