//! The MCP handler: what the server answers, over stdio and Streamable
//! HTTP alike. Tools (the table in [`crate::tools::registry`]), the
//! `sweep` prompt ([`crate::plans`]), resources and completion
//! ([`crate::resources`]), each a thin translation between rmcp's types
//! and the library's; nothing here decides what an answer says.
//!
//! Tool bodies are blocking (they read archives) and run on tokio's
//! blocking pool; a tool's progress ticks become progress notifications
//! when the client asked for them.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionInfo, ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference,
    Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::context::Context;
use crate::resources::Completing;
use crate::sources::Sources;
use crate::tool::Tick;
use crate::tools;

/// The server: the sources, nothing else (no state between calls).
#[derive(Clone)]
pub struct Archilyzer {
    /// What every call is given.
    pub context: Arc<Context>,
}

const INSTRUCTIONS: &str = "Search and read a transcript archive. Start with list_channels; search with \
search_transcripts (a page of results) or enumerate_matches (the complete worklist); read with get_transcript. \
Every timestamp is a link to that moment. Pass source to read another corpus; every result names the corpus it read. \
The media behind a cited moment comes through fetch_clip, which asks the local editor: never run yt-dlp yourself. \
Every tool takes max_chars: the answer (text and structured content, as sent) fits it; lists are cut fairly and say \
what was left out and how to get it, and counts stay complete. The filters (channels, groups, tags, states, dates, \
durations, media_type, age, captions) mean the same in every tool that takes them; a singular channel or group adds \
to its list; a value that names nothing is refused with the nearest valid one. A string argument is at most \
1,000 characters and a list at most 100 items unless its schema says otherwise; a longer one is refused, naming the bound.";

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
                let Ok(serde_json::Value::Object(schema)) = serde_json::to_value(&t.listed) else {
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
        let arguments = crate::plans::PROMPT_ARGS
            .iter()
            .map(|(name, about)| PromptArgument::new(*name).with_description(*about))
            .collect();
        let sweep = Prompt::new(
            crate::plans::PROMPT,
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
        if request.name != crate::plans::PROMPT {
            return Err(McpError::invalid_params(
                format!(
                    "no prompt named {:?}; the one prompt is {}",
                    request.name,
                    crate::plans::PROMPT
                ),
                None,
            ));
        }
        let context = self.context.clone();
        let args = request.arguments.unwrap_or_default();
        let text = tokio::task::spawn_blocking(move || {
            crate::plans::sweep_prompt(&context, &args).unwrap_or_else(|refusal| refusal)
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
            blocking(move || crate::resources::page(&context, cursor.as_deref())).await?;
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
        let templates = crate::resources::TEMPLATES
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
        let (text, mime) = blocking(move || crate::resources::read(&context, &uri))
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
        let reference = request.r#ref;
        let (values, total) = blocking(move || {
            let what = match &reference {
                Reference::Prompt(p) => Completing::Prompt(&p.name),
                Reference::Resource(r) => Completing::Template(&r.uri),
                _ => return Err("a completion names a ref/prompt or a ref/resource".to_string()),
            };
            crate::resources::complete(&context, what, &name, &value, &known)
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
        result.structured_content = Some(output.structured).filter(|s| !s.is_null());
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

impl Archilyzer {
    /// A server of `sources`, with the editor, umtool and binaries the
    /// environment names.
    pub fn new(sources: Sources) -> Archilyzer {
        Archilyzer::with_model(sources, None)
    }

    /// The same, ranking passages with the sentence model in `model`.
    pub fn with_model(sources: Sources, model: Option<std::path::PathBuf>) -> Archilyzer {
        Archilyzer {
            context: Arc::new(Context::from_env(sources).with_model(model)),
        }
    }
}
