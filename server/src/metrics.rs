//! What the HTTP server reports at `GET /metrics`, in the Prometheus text
//! format: tool calls by tool and outcome, their latency, refusals at the
//! door by kind, pages read, bytes downloaded from archive hosts, and how
//! often a kept index answered.
//!
//! Promise: every tool call (over stdio too) is counted once, when it
//! ends, under its tool's name; a call to an unknown tool is counted under
//! `unknown`, so the label set stays bounded by the tool table. The counts
//! are the server's own ([`Metrics`], held in its [`crate::context::Context`]
//! and shared with the HTTP door), not the process's: two servers in one
//! process count apart.

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// A tool call's labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: String,
    outcome: &'static str,
}

/// A tool's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: String,
}

/// A refusal's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabel {
    kind: &'static str,
}

/// A kept-index lookup's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabel {
    result: &'static str,
}

/// Why the door refused a request.
#[derive(Clone, Copy, Debug)]
pub enum Refusal {
    /// No bearer token, or not in the `Bearer` form (401).
    Unauthorized,
    /// A bearer token that is not the server's (401).
    WrongToken,
    /// A `Host` not on the allow-list (403).
    Host,
    /// A browser `Origin` not on the allow-list (403).
    Origin,
    /// A malformed JSON-RPC frame ([`crate::frames`]).
    BadFrame,
    /// A body over `--max-body-bytes` (413).
    TooLarge,
    /// Over `--max-in-flight-per-client` (429).
    ClientLimit,
    /// Over `--max-in-flight` (503).
    ServerBusy,
    /// Past `--call-timeout-secs` (504).
    Timeout,
    /// A body that could not be read (400).
    BadBody,
}

impl Refusal {
    fn label(self) -> &'static str {
        match self {
            Refusal::Unauthorized => "unauthorized",
            Refusal::WrongToken => "wrong_token",
            Refusal::Host => "host",
            Refusal::Origin => "origin",
            Refusal::BadFrame => "bad_frame",
            Refusal::TooLarge => "too_large",
            Refusal::ClientLimit => "client_limit",
            Refusal::ServerBusy => "server_busy",
            Refusal::Timeout => "timeout",
            Refusal::BadBody => "bad_body",
        }
    }
}

/// The server's counts, registered under `archilyzer_`.
pub struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    seconds: Family<ToolLabel, Histogram>,
    refusals: Family<KindLabel, Counter>,
    pages_read: Counter,
    downloaded: Counter,
    index_lookups: Family<ResultLabel, Counter>,
    in_flight: Gauge,
}

impl Default for Metrics {
    fn default() -> Metrics {
        let mut registry = Registry::with_prefix("archilyzer");
        let calls = Family::<CallLabels, Counter>::default();
        registry.register(
            "tool_calls",
            "Tool calls by tool and outcome",
            calls.clone(),
        );
        let seconds = Family::<ToolLabel, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.002, 2.0, 15))
        });
        registry.register("tool_call_seconds", "Tool call latency", seconds.clone());
        let refusals = Family::<KindLabel, Counter>::default();
        registry.register(
            "http_refusals",
            "Requests the HTTP door refused, by kind",
            refusals.clone(),
        );
        let pages_read = Counter::default();
        registry.register(
            "pages_read",
            "Archive pages read and confirmed by tool calls",
            pages_read.clone(),
        );
        let downloaded = Counter::default();
        registry.register(
            "downloaded_bytes",
            "Body bytes received from remote archive hosts",
            downloaded.clone(),
        );
        let index_lookups = Family::<ResultLabel, Counter>::default();
        registry.register(
            "index_lookups",
            "Index opens answered by a kept index (hit) or read from disk (miss)",
            index_lookups.clone(),
        );
        let in_flight = Gauge::default();
        registry.register(
            "http_in_flight",
            "Calls running now over HTTP",
            in_flight.clone(),
        );
        Metrics {
            registry,
            calls,
            seconds,
            refusals,
            pages_read,
            downloaded,
            index_lookups,
            in_flight,
        }
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Metrics {
    /// Counts one finished call of `tool` that took `took`, and the pages it
    /// read.
    pub fn record_call(&self, tool: &str, ok: bool, took: Duration, pages_read: u64) {
        let outcome = if ok { "ok" } else { "error" };
        self.calls
            .get_or_create(&CallLabels {
                tool: tool.to_string(),
                outcome,
            })
            .inc();
        self.seconds
            .get_or_create(&ToolLabel {
                tool: tool.to_string(),
            })
            .observe(took.as_secs_f64());
        self.pages_read.inc_by(pages_read);
    }

    /// Counts one refusal at the door.
    pub fn record_refusal(&self, why: Refusal) {
        self.refusals
            .get_or_create(&KindLabel { kind: why.label() })
            .inc();
    }

    /// Sets the number of calls running over HTTP.
    pub fn set_in_flight(&self, n: usize) {
        self.in_flight.set(n as i64);
    }

    /// The metrics now, in the Prometheus text format, with the totals the
    /// library keeps: the index cache's `(hits, misses)` and the bytes
    /// downloaded so far.
    pub fn render(&self, index_lookups: (u64, u64), downloaded: u64) -> String {
        // Totals kept by the library, brought up to date (they only grow).
        let catch_up = |c: &Counter, total: u64| c.inc_by(total.saturating_sub(c.get()));
        catch_up(&self.downloaded, downloaded);
        let (hits, misses) = index_lookups;
        catch_up(
            &self
                .index_lookups
                .get_or_create(&ResultLabel { result: "hit" }),
            hits,
        );
        catch_up(
            &self
                .index_lookups
                .get_or_create(&ResultLabel { result: "miss" }),
            misses,
        );
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out = "# the metrics could not be written\n".into();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_counted_under_its_tool_with_its_latency_and_pages() {
        let metrics = Metrics::default();
        metrics.record_call("search_transcripts", true, Duration::from_millis(30), 7);
        metrics.record_refusal(Refusal::ServerBusy);
        let text = metrics.render((3, 1), 0);
        assert!(
            text.contains(
                "archilyzer_tool_calls_total{tool=\"search_transcripts\",outcome=\"ok\"}"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "archilyzer_tool_call_seconds_bucket{le=\"0.032\",tool=\"search_transcripts\"}"
            ) || text.contains(
                "archilyzer_tool_call_seconds_bucket{tool=\"search_transcripts\",le=\"0.032\"}"
            ),
            "{text}"
        );
        assert!(
            text.contains("archilyzer_http_refusals_total{kind=\"server_busy\"}"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE archilyzer_pages_read counter"),
            "{text}"
        );
        assert!(
            text.contains("archilyzer_index_lookups_total{result=\"hit\"} 3"),
            "the index cache's hits as given: {text}"
        );
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[test]
    fn two_servers_in_one_process_count_apart() {
        let (one, other) = (Metrics::default(), Metrics::default());
        one.record_call("list_channels", true, Duration::from_millis(1), 0);
        let counted = "archilyzer_tool_calls_total{tool=\"list_channels\",outcome=\"ok\"} 1";
        assert!(one.render((0, 0), 0).contains(counted));
        assert!(!other.render((0, 0), 0).contains("list_channels"));
    }
}
