//! `archilyzer-mcp`: the MCP server an agent is registered with, over
//! stdio, or over Streamable HTTP with `--http ADDR` ([`http`]).
//!
//! This file parses the flags and starts a transport; what the server
//! answers is the library's ([`archilyzer_mcp::handler`]). Over stdio,
//! stdout carries only the protocol; logs go to stderr. Both protocol eras
//! are served by rmcp (the 2026-07-28 `server/discover` exchange and the
//! 2025 `initialize` handshake), with the same tools on each.
#![deny(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;

use archilyzer_core::archive::OpenOptions;
use archilyzer_core::memory::Budget;
use archilyzer_core::source::{SourceFlags, SourceHandle};
use clap::Parser;

use archilyzer_mcp::handler::Archilyzer;
use archilyzer_mcp::http;
use archilyzer_mcp::sources::{SourcePolicy, Sources};

/// jemalloc rather than the system allocator. A long-running server frees
/// page-sized buffers from many threads; glibc keeps such memory in
/// per-thread arenas, so the resident size of an idle server wandered by 10%
/// or more between idle moments under the same load. jemalloc, told below
/// to return freed pages to the system within half a second from a
/// background thread, comes back to the same size whenever the server is
/// idle (`server/tests/load_http.py` and `soak.py` measure it). Its arena
/// for requests of 8 MB and more is turned off (`oversize_threshold:0`):
/// that arena hands pages back at once, so every page file of that size
/// read into memory faulted in fresh zeroed pages, a fifth of a phrase
/// search's time on an archive of 7 MB pages; such buffers now wait the
/// same half second as every other.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read once at start-up (a NUL-terminated C string
/// under the name the prefixed build looks for).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[allow(unsafe_code)] // a symbol name jemalloc reads; the only exception to the crate's rule
#[export_name = "_rjem_malloc_conf"]
pub static MALLOC_CONF: &[u8; 80] =
    b"background_thread:true,dirty_decay_ms:500,muzzy_decay_ms:0,oversize_threshold:0\0";

/// Which archive to serve by default. Precedence: hub > remote > local.
#[derive(Parser)]
#[command(
    name = "archilyzer-mcp",
    version,
    about = "MCP server for a transcript archive (stdio, or Streamable HTTP with --http)"
)]
struct Cli {
    /// The default corpus.
    #[command(flatten)]
    source: SourceFlags,
    /// The index of the default source (default: the cache dir's).
    #[arg(long)]
    index: Option<PathBuf>,
    /// The sentence model find_passages ranks by meaning with (default:
    /// ARCHILYZER_MODEL, then the model `archilyzer-index model install`
    /// installed, then the Hugging Face cache's all-MiniLM-L6-v2).
    #[arg(long, value_name = "DIR")]
    model: Option<PathBuf>,
    /// Serve MCP over Streamable HTTP at this address (e.g.
    /// 127.0.0.1:8765, endpoint /mcp) instead of stdio. Off loopback,
    /// ARCHILYZER_HTTP_TOKEN must be set.
    #[arg(long)]
    http: Option<std::net::SocketAddr>,
    /// With --http: also accept this Host name (e.g. mcp.example.org; repeatable).
    #[arg(long = "allow-host", requires = "http")]
    allow_hosts: Vec<String>,
    /// With --http: also accept this browser Origin (e.g.
    /// https://chat.example.org; repeatable).
    #[arg(long = "allow-origin", requires = "http")]
    allow_origins: Vec<String>,
    /// With --http: sources a call may name besides the default corpus and
    /// its hub's members (handles, e.g. remote:https://site; repeatable).
    #[arg(long = "allow-sources", requires = "http")]
    allow_sources: Vec<String>,
    /// With --http: the largest request body accepted, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    max_body_bytes: usize,
    /// With --http: calls at once from one client address.
    #[arg(long, default_value_t = 8)]
    max_in_flight_per_client: usize,
    /// With --http: calls at once in all.
    #[arg(long, default_value_t = 64)]
    max_in_flight: usize,
    /// With --http: the longest a call may take, in seconds.
    #[arg(long, default_value_t = 120)]
    call_timeout_secs: u64,
    /// The memory budget, in MB, for the page bytes calls read at once
    /// (each whole page read takes twice its size until it is done; a
    /// read waits for room, and a call that cannot get it in 30 s is
    /// answered busy). Over stdio and HTTP alike.
    #[arg(long, env = "ARCHILYZER_MAX_MEMORY_MB", default_value_t = DEFAULT_MAX_MEMORY_MB)]
    max_memory: u64,
}

/// `--max-memory`'s default, in MB: with the server's own ~60 MB, a peak
/// within 256 MB at any page size (`server/tests/load_http.py`).
const DEFAULT_MAX_MEMORY_MB: u64 = 128;

impl Cli {
    fn handle(&self) -> Result<SourceHandle, String> {
        self.source.handle().map_err(|e| e.to_string())
    }
}

fn main() -> std::process::ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(serve()),
        Err(e) => {
            eprintln!("archilyzer-mcp: cannot start the async runtime: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve() -> std::process::ExitCode {
    archilyzer_core::logging::init();
    let cli = Cli::parse();
    let handle = match cli.handle() {
        Ok(h) => h,
        Err(e) => {
            eprintln!("archilyzer-mcp: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    tracing::info!("default source: {handle}");
    if let Some(missing) = handle.missing_local() {
        // Not fatal: a call can still name another corpus with `source`.
        eprintln!("archilyzer-mcp: {missing}");
    }
    let options = OpenOptions {
        memory: Arc::new(Budget::new(cli.max_memory.max(1) << 20)),
        ..OpenOptions::default()
    };
    let mut sources = Sources::new(handle, cli.index.clone())
        .with_caches(options, archilyzer_core::index::default_root());
    warm_default_index(&sources);
    if let Some(addr) = cli.http {
        let allowed = match cli
            .allow_sources
            .iter()
            .map(|s| SourceHandle::parse(s).map_err(|e| format!("--allow-sources {s:?}: {e}")))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(a) => a,
            Err(e) => {
                eprintln!("archilyzer-mcp: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        sources = sources.with_policy(SourcePolicy::Restricted(allowed));
        let config = http::HttpConfig {
            addr,
            token: std::env::var("ARCHILYZER_HTTP_TOKEN").ok(),
            allow_hosts: cli.allow_hosts.clone(),
            allow_origins: cli.allow_origins.clone(),
            max_body_bytes: cli.max_body_bytes,
            per_client: cli.max_in_flight_per_client.max(1),
            total: cli.max_in_flight.max(1),
            call_timeout: std::time::Duration::from_secs(cli.call_timeout_secs.max(1)),
        };
        if let Err(e) = config.check() {
            eprintln!("archilyzer-mcp: {e}");
            return std::process::ExitCode::FAILURE;
        }
        let server = Archilyzer::with_model(sources, cli.model.clone());
        // Ready when the default archive opens (opened once, then kept).
        let context = server.context.clone();
        let served = http::Served {
            indexes: context.sources.indexes().clone(),
            downloaded: context.sources.downloaded().clone(),
            metrics: context.metrics.clone(),
            ready: Arc::new(move || {
                let sources = &context.sources;
                sources.archive(sources.default_handle()).is_ok()
            }),
        };
        return match http::serve(config, served, move || server.clone()).await {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("archilyzer-mcp: cannot serve HTTP at {addr}: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    let server = Archilyzer::with_model(sources, cli.model.clone());
    match archilyzer_mcp::frames::serve_stdio(server).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("archilyzer-mcp: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// A server keeps each index it loads warm (rows and places in memory,
/// read on a thread of their own), and loads the default source's index
/// now, so its first questions find it ready.
fn warm_default_index(sources: &Sources) {
    let indexes = sources.indexes().clone();
    indexes.keep_warm();
    if let Some(dir) = sources.index_dir(sources.default_handle()) {
        std::thread::spawn(move || {
            if let Err(e) = indexes.load(&dir) {
                tracing::debug!("index {} not loaded at start: {e}", dir.display());
            }
        });
    }
}
