//! `archilyzer-mcp`: the MCP server an agent is registered with, over
//! stdio, or over Streamable HTTP with `--http ADDR` ([`http`]).
//!
//! Over stdio, stdout carries only the protocol; logs go to stderr. Both protocol eras
//! are served by rmcp (the 2026-07-28 `server/discover` exchange and the
//! 2025 `initialize` handshake), with the same tools on each. Tool bodies
//! are blocking (they read archives) and run on tokio's blocking pool.
#![deny(unsafe_code)]

use std::path::PathBuf;
use std::sync::Arc;

use archilyzer_core::source::{SourceHandle, DEFAULT_LOCAL_DIR};
use clap::Parser;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionInfo, ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

use archilyzer_mcp::editor::EditorSetup;
use archilyzer_mcp::http;
use archilyzer_mcp::sources::{SourcePolicy, Sources};
use archilyzer_mcp::tools::{self, Context, Tick};

/// jemalloc rather than the system allocator. A long-running server frees
/// page-sized buffers from many threads; glibc keeps such memory in
/// per-thread arenas, so the resident size of an idle server wandered by 10%
/// or more between idle moments under the same load. jemalloc, told below
/// to return freed pages to the system within half a second from a
/// background thread, comes back to the same size whenever the server is
/// idle (`server/tests/load_http.py` and `soak.py` measure it).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read once at start-up (a NUL-terminated C string
/// under the name the prefixed build looks for).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[allow(unsafe_code)] // a symbol name jemalloc reads; the only exception to the crate's rule
#[export_name = "_rjem_malloc_conf"]
pub static MALLOC_CONF: &[u8; 59] = b"background_thread:true,dirty_decay_ms:500,muzzy_decay_ms:0\0";

/// Which archive to serve by default. Precedence: hub > remote > local.
#[derive(Parser)]
#[command(
    name = "archilyzer-mcp",
    version,
    about = "MCP server for a transcript archive (stdio, or Streamable HTTP with --http)"
)]
struct Cli {
    /// A composed public dir on disk.
    #[arg(long, env = "TRANSCRIPT_LOCAL_DIR", default_value = DEFAULT_LOCAL_DIR)]
    local: PathBuf,
    /// A deployed site origin.
    #[arg(long, env = "TRANSCRIPT_SITE_URL")]
    remote: Option<String>,
    /// A hub origin (`URL#a,b` for a subset).
    #[arg(long, env = "TRANSCRIPT_HUB_URL")]
    hub: Option<String>,
    /// The index of the default source (default: the cache dir's).
    #[arg(long)]
    index: Option<PathBuf>,
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
        SourceHandle::from_flags(self.hub.as_deref(), self.remote.as_deref(), &self.local)
            .map_err(|e| e.to_string())
    }
}

/// The server: the sources, nothing else (no state between calls).
#[derive(Clone)]
struct Archilyzer {
    context: Arc<Context>,
}

const INSTRUCTIONS: &str = "Search and read a transcript archive. Start with list_channels; search with \
search_transcripts (a page of results) or enumerate_matches (the complete worklist); read with get_transcript. \
Every timestamp is a link to that moment. Pass source to read another corpus; every result names the corpus it read. \
The media behind a cited moment comes through fetch_clip, which asks the local editor: never run yt-dlp yourself.";

impl ServerHandler for Archilyzer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_completions()
                .build(),
        )
        .with_server_info(Implementation::new(
            "archilyzer-mcp",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = tools::registry::advertised()
            .map(|t| {
                let Ok(serde_json::Value::Object(schema)) = serde_json::to_value(&t.schema) else {
                    unreachable!("schemas are objects")
                };
                let Ok(serde_json::Value::Object(output)) = serde_json::to_value(&t.output) else {
                    unreachable!("output schemas are objects")
                };
                Tool::new(t.name, t.description, Arc::new(schema))
                    .with_title(t.title)
                    .with_annotations(t.effect.annotations(t.title))
                    .with_raw_output_schema(Arc::new(output))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let arguments = archilyzer_mcp::plans::PROMPT_ARGS
            .iter()
            .map(|(name, about)| PromptArgument::new(*name).with_description(*about))
            .collect();
        let sweep = Prompt::new(
            "sweep",
            Some("Plan a map-reduce sweep of the archive (for form-based clients; in Claude Code type /sweep, which keeps your words intact)."),
            Some(arguments),
        );
        Ok(ListPromptsResult::with_all_items(vec![sweep]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != "sweep" {
            return Err(McpError::invalid_params(
                format!(
                    "no prompt named {:?}; the one prompt is sweep",
                    request.name
                ),
                None,
            ));
        }
        let context = self.context.clone();
        let args = request.arguments.unwrap_or_default();
        let text = tokio::task::spawn_blocking(move || {
            archilyzer_mcp::plans::sweep_prompt(&context, &args).unwrap_or_else(|refusal| refusal)
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the prompt task failed: {e}"), None))?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let context = self.context.clone();
        let cursor = request.and_then(|r| r.cursor);
        let (page, next) =
            blocking(move || archilyzer_mcp::resources::page(&context, cursor.as_deref())).await?;
        let page: Vec<Resource> = page
            .into_iter()
            .map(|r| {
                Resource::new(r.uri, r.name)
                    .with_description(r.description)
                    .with_mime_type("text/markdown")
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(page);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let templates = archilyzer_mcp::resources::TEMPLATES
            .iter()
            .map(|t| {
                ResourceTemplate::new(t.uri_template, t.name)
                    .with_description(t.description)
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let context = self.context.clone();
        let uri = request.uri.clone();
        let (text, mime) = blocking(move || archilyzer_mcp::resources::read(&context, &uri))
            .await
            .map_err(|e| McpError::resource_not_found(e.message, None))?;
        let contents = ResourceContents::TextResourceContents {
            uri: request.uri,
            mime_type: Some(mime.to_string()),
            text,
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let context = self.context.clone();
        let known = request
            .context
            .and_then(|c| c.arguments)
            .unwrap_or_default();
        let (name, value) = (request.argument.name, request.argument.value);
        let (values, total) = blocking(move || {
            Ok(archilyzer_mcp::resources::complete(
                &context, &name, &value, &known,
            ))
        })
        .await?;
        let has_more = total > values.len();
        let info = CompletionInfo::with_pagination(values, Some(total as u32), has_more)
            .map_err(|e| McpError::internal_error(e, None))?;
        Ok(CompleteResult::new(info))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let tools_context = self.context.clone();
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Tick>();
        let forward = context.meta.get_progress_token().map(|token| {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                while let Some(tick) = rx.recv().await {
                    let mut param = ProgressNotificationParam::new(token.clone(), tick.done)
                        .with_message(tick.message);
                    if let Some(total) = tick.total {
                        param = param.with_total(total);
                    }
                    if peer.notify_progress(param).await.is_err() {
                        break;
                    }
                }
            })
        });
        let output = tokio::task::spawn_blocking(move || {
            tools::call(&tools_context, &name, &args, &mut |tick| {
                let _ = tx.send(tick);
            })
        })
        .await
        .map_err(|e| McpError::internal_error(format!("a tool task failed: {e}"), None))?;
        if let Some(task) = forward {
            let _ = task.await;
        }
        let mut result = CallToolResult::success(vec![ContentBlock::text(output.text)]);
        result.structured_content = Some(output.structured);
        result.is_error = Some(output.is_error);
        Ok(result.into())
    }
}

/// Runs `f` off the async runtime (it reads the archive), its error an
/// MCP error whose message is the text.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, McpError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| McpError::internal_error(format!("a task failed: {e}"), None))?
        .map_err(|e| McpError::invalid_params(e, None))
}

/// What every tool call is given: the sources, and the editor, umtool and
/// binaries from the environment.
fn context(sources: Sources) -> Context {
    Context {
        sources,
        editor: EditorSetup::from_env(),
        umtool: tools::notes::from_env(),
        binaries: archilyzer_mcp::transcript::discover::Locator::from_env(),
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
    archilyzer_core::memory::set_limit(cli.max_memory.max(1) << 20);
    if let Some(missing) = handle.missing_local() {
        // Not fatal: a call can still name another corpus with `source`.
        eprintln!("archilyzer-mcp: {missing}");
    }
    let mut sources = Sources::new(handle, cli.index.clone());
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
        let server = Archilyzer {
            context: Arc::new(context(sources)),
        };
        // Ready when the default archive opens (opened once, then kept).
        let context = server.context.clone();
        let ready: http::Readiness = Arc::new(move || {
            let sources = &context.sources;
            sources.archive(sources.default_handle()).is_ok()
        });
        return match http::serve(config, ready, move || server.clone()).await {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("archilyzer-mcp: cannot serve HTTP at {addr}: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    let server = Archilyzer {
        context: Arc::new(context(sources)),
    };
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("archilyzer-mcp: the client did not complete the opening exchange: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    if let Err(e) = running.waiting().await {
        eprintln!("archilyzer-mcp: {e}");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
