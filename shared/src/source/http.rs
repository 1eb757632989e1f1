//! A composed public dir served over HTTP(S).
//!
//! Promises:
//! - connect and read timeouts on every request;
//! - a bounded number of attempts, with exponential backoff, on a 5xx, a
//!   429 (honouring a short `Retry-After`), a timeout, a dropped connection
//!   or a body cut short; any other status is answered at once;
//! - conditional revalidation (`If-None-Match` / `If-Modified-Since`) of
//!   every file it has cached on disk, so an unchanged file costs a 304;
//! - pages, whose sha256 the manifest gives, are cached on disk by that
//!   hash and served from there with no request at all; a page whose bytes
//!   do not hash to the manifest's value is retried, then refused;
//! - a byte range of a page is asked with `Range`; a server that ignores it
//!   and sends the whole file has that file checked as a page, kept, and
//!   the range cut from it; a 206 is accepted only for exactly the range
//!   asked. Ranges are cached on disk too, keyed by the page's sha256;
//! - whole files are asked for compressed (gzip, brotli) and decoded; a
//!   range is asked for the bytes as stored, and a range answer that is
//!   encoded anyway is set aside for a whole-page read, so compression
//!   never changes which bytes a range holds;
//! - `ETag`s, weak ones included, serve only to revalidate (`If-None-Match`
//!   compares weakly); what a page holds is always proven by its sha256;
//! - redirects are followed within the host only ([`crate::net::site_client`]);
//! - an HTML answer (an error page, a fallback page) where a file was
//!   expected is named as such, with its title, never parsed as JSON.

use std::time::Duration;

use std::ops::Range;

use reqwest::header::{
    HeaderMap, CONTENT_ENCODING, CONTENT_RANGE, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE,
    IF_NONE_MATCH, LAST_MODIFIED, RANGE, RETRY_AFTER,
};
use reqwest::StatusCode;
use reqwest::{Client, Response};

use crate::net::{block_on, describe, site_client, Downloaded, Encoding, Failure};
use url::Url;

use super::disk_cache::{DiskCache, Validators};
use super::http_options::{HttpOptions, RetryPolicy};
use super::{check_relative_path, cut_range, sha256_hex, ReadError, Store};

impl RetryPolicy {
    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let exp = self
            .first_backoff
            .saturating_mul(1 << attempt.saturating_sub(1).min(16));
        retry_after.unwrap_or(exp).min(self.max_backoff)
    }
}

/// A site (or hub) origin read over HTTP.
#[derive(Debug, Clone)]
pub struct HttpStore {
    base: Url,
    /// For whole files: asks for compression and decodes it.
    client: Client,
    /// For byte ranges: the bytes as stored.
    raw: Client,
    options: HttpOptions,
    cache: Option<std::sync::Arc<DiskCache>>,
}

/// What one attempt came to.
enum Attempt {
    Done(Result<Option<Vec<u8>>, ReadError>),
    Retry {
        reason: Retryable,
        wait: Option<Duration>,
    },
}

enum Retryable {
    Status(u16),
    Network(String, Failure),
    Integrity { expected: String, found: String },
}

impl HttpStore {
    /// A store for the origin `base` (a trailing `/` is added if missing),
    /// with an optional disk cache.
    pub fn new(
        base: &str,
        options: HttpOptions,
        cache: Option<std::sync::Arc<DiskCache>>,
    ) -> Result<Self, ReadError> {
        let mut base = Url::parse(base).map_err(|e| {
            ReadError::Other(format!(
                "{base:?} is not a URL ({e}): pass an http:// or https:// origin"
            ))
        })?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(ReadError::Other(format!(
                "{base} is not an http:// or https:// URL"
            )));
        }
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        base.set_query(None);
        base.set_fragment(None);
        let make = |encoding| {
            site_client(options.connect_timeout, options.read_timeout, encoding)
                .map_err(|e| ReadError::Other(e.to_string()))
        };
        Ok(HttpStore {
            base,
            client: make(Encoding::Decoded)?,
            raw: make(Encoding::Identity)?,
            options,
            cache,
        })
    }

    /// The site's origin, with a trailing slash.
    pub fn base(&self) -> &Url {
        &self.base
    }

    fn url(&self, path: &str) -> Result<Url, ReadError> {
        check_relative_path(path)?;
        self.base
            .join(path)
            .map_err(|e| ReadError::Other(format!("cannot form a URL for {path}: {e}")))
    }

    /// Runs `attempt` up to the policy's count, sleeping between tries.
    fn with_retries(
        &self,
        url: &Url,
        mut attempt: impl FnMut() -> Attempt,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        let policy = &self.options.retry;
        let attempts = policy.attempts.max(1);
        for n in 1..=attempts {
            let (reason, wait) = match attempt() {
                Attempt::Done(result) => return result,
                Attempt::Retry { reason, wait } => (reason, wait),
            };
            if n == attempts {
                return Err(match reason {
                    Retryable::Status(status) => ReadError::Http {
                        url: url.to_string(),
                        status,
                        attempts,
                    },
                    Retryable::Network(reason, failure) => ReadError::Network {
                        url: url.to_string(),
                        reason,
                        failure,
                        attempts,
                    },
                    Retryable::Integrity { expected, found } => ReadError::Integrity {
                        path: url.to_string(),
                        expected,
                        found,
                    },
                });
            }
            let pause = policy.backoff(n, wait);
            tracing::debug!("{url}: retrying in {pause:?}");
            std::thread::sleep(pause);
        }
        unreachable!("the loop returns on its last attempt")
    }

    /// One GET, conditional on `cached` validators when given.
    fn get_once(&self, url: &Url, cached: Option<&Validators>) -> Result<Response, Attempt> {
        let mut req = self.client.get(url.clone());
        if let Some(v) = cached {
            if let Some(etag) = &v.etag {
                req = req.header(IF_NONE_MATCH, etag);
            }
            if let Some(lm) = &v.last_modified {
                req = req.header(IF_MODIFIED_SINCE, lm);
            }
        }
        send(req)
    }

    fn fetch_conditional(&self, url: &Url) -> Result<Option<Vec<u8>>, ReadError> {
        let key = format!("url:{url}");
        let cached = self.cache.as_ref().and_then(|c| c.get(&key));
        self.with_retries(url, || {
            let resp = match self.get_once(url, cached.as_ref().map(|c| &c.1)) {
                Ok(r) => r,
                Err(outcome) => return outcome,
            };
            let status = resp.status();
            if status == StatusCode::NOT_MODIFIED {
                if let Some((body, _)) = &cached {
                    return Attempt::Done(Ok(Some(body.clone())));
                }
            }
            let resp = match judge(resp) {
                Ok(r) => r,
                Err(outcome) => return outcome,
            };
            let validators = validators(resp.headers());
            match read_body(resp, &self.options.downloaded) {
                Ok(body) => {
                    if let Some(c) = &self.cache {
                        if validators.etag.is_some() || validators.last_modified.is_some() {
                            c.put(&key, &body, &validators);
                        }
                    }
                    Attempt::Done(Ok(Some(body)))
                }
                Err(reason) => Attempt::Retry { reason, wait: None },
            }
        })
    }
}

/// Sends `req`: a transport failure is worth retrying, a redirect the
/// client refused ([`crate::net::site_client`]) is not.
fn send(req: reqwest::RequestBuilder) -> Result<Response, Attempt> {
    block_on(async move { req.send().await }).map_err(|e| {
        if e.is_redirect() {
            let why =
                std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
            return Attempt::Done(Err(ReadError::Other(why)));
        }
        let failure = Failure::of(&e);
        if !failure.worth_retrying() {
            return Attempt::Done(Err(ReadError::Network {
                url: e.url().map_or_else(String::new, |u| u.to_string()),
                reason: describe(&e),
                failure,
                attempts: 1,
            }));
        }
        Attempt::Retry {
            reason: Retryable::Network(describe(&e), failure),
            wait: None,
        }
    })
}

/// A response with a file in it, or what to do instead: an HTML page is
/// named ([`html_page`]); a missing file is `None`; a 5xx or 429 is
/// retried; any other status is an error at once.
fn judge(resp: Response) -> Result<Response, Attempt> {
    let html = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.trim_start().to_ascii_lowercase().starts_with("text/html"));
    let missing = matches!(resp.status(), StatusCode::NOT_FOUND | StatusCode::GONE);
    if html && !missing && !resp.status().is_server_error() {
        return Err(Attempt::Done(Err(html_page(resp))));
    }
    match classify(&resp) {
        Some(outcome) => Err(outcome),
        None => Ok(resp),
    }
}

/// The error for an HTML answer, naming the page's `<title>`.
fn html_page(resp: Response) -> ReadError {
    let (url, status) = (resp.url().to_string(), resp.status().as_u16());
    let body = block_on(async move { resp.bytes().await }).unwrap_or_default();
    let text = String::from_utf8_lossy(&body[..body.len().min(64 * 1024)]).into_owned();
    let title = title_of(&text).map_or(String::new(), |t| format!(" ({t:?})"));
    ReadError::HtmlPage { url, status, title }
}

/// The first 80 characters of an HTML page's `<title>`, spaces folded.
fn title_of(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title = html[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!title.is_empty()).then(|| title.chars().take(80).collect())
}

/// Sorts a response that is not a plain 200 into done or retry.
fn classify(resp: &Response) -> Option<Attempt> {
    let status = resp.status();
    if status.is_success() {
        return None;
    }
    if status == StatusCode::NOT_FOUND || status == StatusCode::GONE {
        return Some(Attempt::Done(Ok(None)));
    }
    if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
        let wait = resp
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        return Some(Attempt::Retry {
            reason: Retryable::Status(status.as_u16()),
            wait,
        });
    }
    Some(Attempt::Done(Err(ReadError::Http {
        url: resp.url().to_string(),
        status: status.as_u16(),
        attempts: 1,
    })))
}

/// Whether an answer of the raw client is content-encoded.
fn is_encoded(resp: &Response) -> bool {
    resp.headers()
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|e| !e.trim().eq_ignore_ascii_case("identity"))
}

fn read_body(resp: Response, counted: &Downloaded) -> Result<Vec<u8>, Retryable> {
    let expected = resp.content_length();
    let body = block_on(async move { resp.bytes().await })
        .map_err(|e| Retryable::Network(describe(&e), Failure::of(&e)))?;
    counted.add(body.len());
    match expected {
        Some(n) if n != body.len() as u64 => Err(Retryable::Network(
            format!("body cut short ({} of {n} bytes)", body.len()),
            Failure::CutShort,
        )),
        _ => Ok(body.to_vec()),
    }
}

fn validators(headers: &HeaderMap) -> Validators {
    let text = |h| {
        headers
            .get(h)
            .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    Validators {
        etag: text(ETAG),
        last_modified: text(LAST_MODIFIED),
    }
}

impl HttpStore {
    /// A page from the disk cache, if held and still hashing to `sha256`.
    fn cached_page(&self, sha256: &str) -> Option<Vec<u8>> {
        let (body, _) = self.cache.as_ref()?.get(&format!("sha256:{sha256}"))?;
        (sha256_hex(&body) == sha256).then_some(body)
    }

    /// Keeps a page (already checked against `sha256`) on disk.
    fn keep_page(&self, sha256: &str, body: &[u8]) {
        if let Some(c) = &self.cache {
            c.put(&format!("sha256:{sha256}"), body, &Validators::default());
        }
    }
}

/// A whole page's body, accepted only when it hashes to `sha256`.
fn checked_page(body: Result<Vec<u8>, Retryable>, sha256: &str) -> Attempt {
    match body {
        Ok(body) => match sha256_hex(&body) {
            found if found == sha256 => Attempt::Done(Ok(Some(body))),
            found => Attempt::Retry {
                reason: Retryable::Integrity {
                    expected: sha256.to_string(),
                    found,
                },
                wait: None,
            },
        },
        Err(reason) => Attempt::Retry { reason, wait: None },
    }
}

/// The body of a 206, accepted only when `Content-Range` names exactly the
/// range asked and the body has its length.
fn ranged_body(resp: Response, range: &Range<u64>, counted: &Downloaded) -> Attempt {
    let asked = format!("bytes {}-{}/", range.start, range.end.saturating_sub(1));
    let answered = resp
        .headers()
        .get(CONTENT_RANGE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    if !answered.starts_with(&asked) {
        return Attempt::Done(Err(ReadError::Other(format!(
            "{}: asked for {asked}… and was sent {answered:?}",
            resp.url()
        ))));
    }
    match read_body(resp, counted) {
        Ok(body) if body.len() as u64 == range.end - range.start => Attempt::Done(Ok(Some(body))),
        Ok(body) => Attempt::Retry {
            reason: Retryable::Network(
                format!(
                    "range body of {} bytes where {} were asked",
                    body.len(),
                    range.end - range.start
                ),
                Failure::CutShort,
            ),
            wait: None,
        },
        Err(reason) => Attempt::Retry { reason, wait: None },
    }
}

impl Store for HttpStore {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ReadError> {
        let url = self.url(path)?;
        self.fetch_conditional(&url)
    }

    fn read_page(&self, path: &str, sha256: &str) -> Result<Option<Vec<u8>>, ReadError> {
        let url = self.url(path)?;
        if let Some(body) = self.cached_page(sha256) {
            return Ok(Some(body));
        }
        let body = self.with_retries(&url, || match self.get_once(&url, None).and_then(judge) {
            Ok(resp) => checked_page(read_body(resp, &self.options.downloaded), sha256),
            Err(outcome) => outcome,
        })?;
        if let Some(b) = &body {
            self.keep_page(sha256, b);
        }
        Ok(body)
    }

    fn read_page_range(
        &self,
        path: &str,
        sha256: &str,
        range: Range<u64>,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        let url = self.url(path)?;
        if let Some(page) = self.cached_page(sha256) {
            return cut_range(&page, range, url.as_str()).map(Some);
        }
        let key = format!("range:{sha256}:{}-{}", range.start, range.end);
        if let Some((body, _)) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            if body.len() as u64 == range.end - range.start {
                return Ok(Some(body));
            }
        }
        let mut whole = None;
        let mut encoded = false;
        let body = self.with_retries(&url, || {
            let req = self.raw.get(url.clone()).header(
                RANGE,
                format!("bytes={}-{}", range.start, range.end.saturating_sub(1)),
            );
            let resp = match send(req).and_then(judge) {
                Ok(r) => r,
                Err(outcome) => return outcome,
            };
            if is_encoded(&resp) {
                // Bytes of a compressed stream, not of the file.
                encoded = true;
                return Attempt::Done(Ok(None));
            }
            if resp.status() == StatusCode::PARTIAL_CONTENT {
                return ranged_body(resp, &range, &self.options.downloaded);
            }
            // The server ignored `Range` and sent the whole file: check it
            // as a page, keep it, and cut the range out of it.
            match checked_page(read_body(resp, &self.options.downloaded), sha256) {
                Attempt::Done(Ok(Some(page))) => {
                    let cut = cut_range(&page, range.clone(), url.as_str());
                    whole = Some(page);
                    Attempt::Done(cut.map(Some))
                }
                other => other,
            }
        })?;
        if encoded {
            let page = self.read_page(path, sha256)?;
            return page.map(|p| cut_range(&p, range, url.as_str())).transpose();
        }
        match (&whole, &body, &self.cache) {
            (Some(page), _, _) => self.keep_page(sha256, page),
            (None, Some(b), Some(c)) => c.put(&key, b, &Validators::default()),
            _ => {}
        }
        Ok(body)
    }

    fn location(&self) -> String {
        self.base.to_string()
    }

    fn relative(&self, reference: &str) -> Result<Box<dyn Store>, ReadError> {
        let url = self
            .base
            .join(reference)
            .map_err(|e| ReadError::Other(format!("hub member URL {reference:?}: {e}")))?;
        Ok(Box::new(HttpStore::new(
            url.as_str(),
            self.options.clone(),
            self.cache.clone(),
        )?))
    }
}
