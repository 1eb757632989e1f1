//! How a remote store reaches its host: timeouts and retries. Plain
//! settings with no I/O, so they exist in every build, the ones without
//! the `remote` feature included (which then refuse a URL, naming it).

use std::time::Duration;

/// How often and how patiently to retry.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1).
    pub attempts: u32,
    /// Wait before the second attempt; doubled for each one after.
    pub first_backoff: Duration,
    /// The longest wait between attempts, `Retry-After` included.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 4,
            first_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(5),
        }
    }
}

/// Settings of a remote store.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// How long to wait for a connection.
    pub connect_timeout: Duration,
    /// The longest wait for any read of a response (headers or body).
    pub read_timeout: Duration,
    /// How often, and how patiently, to retry.
    pub retry: RetryPolicy,
    /// The body bytes the stores opened with these options received.
    pub downloaded: std::sync::Arc<crate::net::Downloaded>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        let secs = std::env::var("ARCHILYZER_HTTP_TIMEOUT_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(30);
        HttpOptions {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(secs),
            retry: RetryPolicy::default(),
            downloaded: Default::default(),
        }
    }
}
