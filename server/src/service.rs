//! A JSON-over-HTTP client for a local service this server asks (the
//! Archilyzer editor, umtool).
//!
//! Promises: path segments and query values are percent-encoded as data
//! (an id that begins with `-` or holds `/` stays one segment); a body that
//! is not a JSON object is kept as `{"error": <its text>}`; a bearer token,
//! when there is one, goes out in the `Authorization` header only and is
//! replaced by `[WORKER_TOKEN]` in anything the service or the network says
//! before that text goes anywhere.

use std::time::Duration;

use serde_json::{json, Value};
use url::Url;

/// A bearer token. It has no `Display`, and its `Debug` hides it.
#[derive(Clone)]
struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(hidden)")
    }
}

/// A service at an origin.
pub struct Service {
    /// How messages name it ("the editor").
    name: &'static str,
    base: Url,
    token: Option<Token>,
    client: reqwest::Client,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("name", &self.name)
            .field("base", &self.base.as_str())
            .finish()
    }
}

/// What a service answered: its status and JSON body.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body, as JSON (null when it was not JSON).
    pub body: Value,
}

impl Reply {
    /// Whether the status is a success (2xx).
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body read as `T`, the type its contract (`contract`, a file of
    /// docs/) describes, or a message naming the contract it breaks.
    pub fn parse<T: serde::de::DeserializeOwned>(
        &self,
        who: &str,
        contract: &str,
    ) -> Result<T, String> {
        T::deserialize(&self.body)
            .map_err(|e| format!("{who}: the answer is not what docs/{contract} describes: {e}"))
    }

    /// The service's `error` text, or the status when it gave none.
    pub fn error(&self) -> String {
        /// What a refusal's body says, when it says anything.
        #[derive(serde::Deserialize)]
        struct Refusal {
            error: String,
        }
        match serde_json::from_value::<Refusal>(self.body.clone()) {
            Ok(r) if !r.error.trim().is_empty() => r.error.trim().to_string(),
            _ => format!("no error text (HTTP {})", self.status),
        }
    }
}

impl Service {
    /// `name` at `url` (which the env variable `var` gave), with an
    /// optional bearer token.
    pub fn new(
        name: &'static str,
        var: &str,
        url: &str,
        token: Option<&str>,
    ) -> Result<Service, String> {
        let base = match Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => u,
            _ => {
                return Err(format!(
                    "{var} is {url:?}, which is not an http:// or https:// URL: set it to the service's origin"
                ))
            }
        };
        let client = archilyzer_core::net::client(Duration::from_secs(5), Duration::from_secs(30))
            .map_err(|e| e.to_string())?;
        Ok(Service {
            name,
            base,
            token: token.map(|t| Token(t.to_string())),
            client,
        })
    }

    /// The origin, for messages.
    pub fn origin(&self) -> &str {
        self.base.as_str().trim_end_matches('/')
    }

    /// The text for a service that could not be reached.
    pub fn unreachable(&self, why: &str) -> String {
        format!(
            "Could not reach {} at {}: {why}. Is it running?",
            self.name,
            self.origin()
        )
    }

    fn url(&self, segments: &[&str], query: &[(&str, String)]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        url
    }

    /// `GET` the path made of `segments`. `Err` is the text for an
    /// unreachable service.
    pub fn get(&self, segments: &[&str], query: &[(&str, String)]) -> Result<Reply, String> {
        self.send(self.client.get(self.url(segments, query)))
    }

    /// `POST` `body` as JSON to the path made of `segments`.
    pub fn post(&self, segments: &[&str], body: &Value) -> Result<Reply, String> {
        let bytes = serde_json::to_vec(body).unwrap_or_default();
        self.send(
            self.client
                .post(self.url(segments, &[]))
                .header("Content-Type", "application/json")
                .body(bytes),
        )
    }

    fn send(&self, mut request: reqwest::RequestBuilder) -> Result<Reply, String> {
        if let Some(token) = &self.token {
            request = request.bearer_auth(&token.0);
        }
        let result = archilyzer_core::net::block_on(async move {
            let resp = request.send().await?;
            let status = resp.status().as_u16();
            Ok::<_, reqwest::Error>((status, resp.bytes().await?))
        });
        let (status, bytes) = result
            .map_err(|e| self.unreachable(&self.scrub(&archilyzer_core::net::describe(&e))))?;
        let text = self.scrub(&String::from_utf8_lossy(&bytes));
        let body = match serde_json::from_str::<Value>(&text) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({"error": text.trim()}),
        };
        tracing::debug!(
            status,
            service = self.name,
            origin = self.origin(),
            "service answered"
        );
        Ok(Reply { status, body })
    }

    /// `s` with every occurrence of the token replaced.
    pub fn scrub(&self, s: &str) -> String {
        match &self.token {
            Some(t) => s.replace(&t.0, "[WORKER_TOKEN]"),
            None => s.to_string(),
        }
    }
}
