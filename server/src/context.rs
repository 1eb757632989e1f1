//! What a tool call is given: the archives ([`Sources`]), the local
//! services and binaries some tools ask, and the results kept for the
//! calls that page them ([`Kept`]), all in one [`Context`], built once
//! when the server starts ([`Context::from_env`]) and shared by every
//! call.
//!
//! It sits above the modules it gathers (sources, kept, editor, service,
//! transcript) and below the ones that take it (tools, plans, resources,
//! the handler); a tool that needs one part of it (the editor, say) is
//! handed that part, so `editor/` never imports it.

use crate::editor::EditorSetup;
use crate::kept::Kept;
use crate::passages::PassageSetup;
use crate::service::Service;
use crate::sources::Sources;
use crate::transcript::discover::Locator;

/// Everything a tool may use: the archives and the local editor.
pub struct Context {
    /// The corpora the tools read.
    pub sources: Sources,
    /// The Archilyzer editor, for the editor-backed tools.
    pub editor: EditorSetup,
    /// umtool, for `notes` (`UMTOOL_URL`).
    pub umtool: UmtoolSetup,
    /// Where `transcript` finds yt-dlp and whisper-ctranslate2.
    pub binaries: Locator,
    /// The sentence model and passage stores `find_passages` uses.
    pub passages: PassageSetup,
    /// The searches and worklists kept for the calls that page them.
    pub kept: Kept,
    /// What `/metrics` reports of the calls (shared with the HTTP door).
    pub metrics: std::sync::Arc<crate::metrics::Metrics>,
}

impl Context {
    /// The sources given, and the editor, umtool and binaries the
    /// environment names.
    pub fn from_env(sources: Sources) -> Context {
        Context {
            sources,
            editor: EditorSetup::from_env(),
            umtool: umtool_from_env(),
            binaries: Locator::from_env(),
            passages: PassageSetup::new(None),
            kept: Kept::default(),
            metrics: Default::default(),
        }
    }

    /// The same, with the sentence model in `model` (`--model`).
    pub fn with_model(mut self, model: Option<std::path::PathBuf>) -> Context {
        self.passages = PassageSetup::new(model);
        self
    }
}

/// umtool, if `UMTOOL_URL` names one; else why not.
pub type UmtoolSetup = Result<Service, String>;

/// From `UMTOOL_URL`.
pub fn umtool_from_env() -> UmtoolSetup {
    match std::env::var("UMTOOL_URL").ok().filter(|u| !u.trim().is_empty()) {
        Some(url) => Service::new("umtool", "UMTOOL_URL", url.trim(), None),
        None => Err("no umtool is configured, so nothing was read: set UMTOOL_URL (umtool's origin, for example http://localhost:4700) in this server's environment when you register it".into()),
    }
}
