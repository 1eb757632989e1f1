//! archilyzer-mcp as a library: the MCP handler, the tools and what they
//! read, so that the binary (`main.rs`: flags, then stdio or HTTP through
//! [`http`]) and the tests share one code path.
//!
//! - [`handler`]: the MCP handler (tools, the prompt, resources,
//!   completion), the same over both transports.
//! - [`context`]: what a call is given (sources, editor, umtool, binaries).
//! - [`sources`]: which archive a call reads (and, over HTTP, may read).
//! - [`frames`]: malformed JSON-RPC frames answered as the specification
//!   says, on both transports, before rmcp reads them.
//! - [`http`]: `--http`, the Streamable HTTP door: token, Host/Origin
//!   allow-lists, body and in-flight limits, call timeout.
//! - [`tool`]: what every tool shares (context, results, the corpus trailer).
//! - [`output`]: the tools' structured results and their output schemas.
//! - [`tools`]: the one table of tools ([`tools::registry`]), dispatch,
//!   validation and the bodies of the read-side tools.
//! - [`editor`]: the local Archilyzer editor the write-side tools ask.
//! - [`plans`]: the /sweep and /ask planners and the `sweep` prompt.
//! - [`resources`]: transcripts, channels, reports and the overview as
//!   MCP resources (what `@` attaches), and completion of their names.
//! - [`service`]: the JSON-over-HTTP client for local services.
//! - [`transcript`]: the words of any video URL (yt-dlp, then local Whisper).
//! - [`archilyzer_core::links`]: moment links (folding duplicate recordings is
//!   `archilyzer_core::collapse`).
#![forbid(unsafe_code)]

pub mod budget;
pub mod context;
pub mod editor;
pub mod frames;
pub mod handler;
pub mod http;
pub mod kept;
pub mod metrics;
pub mod output;
pub mod passages;
pub mod plans;
pub mod resources;
pub mod service;
pub mod sources;
pub mod tool;
pub mod tools;
pub mod transcript;
