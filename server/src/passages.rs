//! What `find_passages` keeps between calls: the sentence model, loaded
//! on first use, and each index's passage store, opened once and opened
//! again when it is rewritten.
//!
//! Promise: a model that cannot be loaded is said on each call that
//! needs it (not remembered, so installing it while the server runs is
//! enough), and a store is never used after `build --embed` replaced it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use archilyzer_core::passages::{model_root, store, Store};
use archilyzer_embed::{locate, Embedder};

/// A store as opened, with the time its meta.json had then.
type Opened = (Option<SystemTime>, Arc<Store>);

/// The model and the stores of one server.
pub struct PassageSetup {
    /// `--model DIR`, else the usual places ([`locate`]).
    model: Option<PathBuf>,
    embedder: Mutex<Option<Arc<Embedder>>>,
    stores: Mutex<HashMap<PathBuf, Opened>>,
}

impl PassageSetup {
    /// Passages with the model in `model` (or found as `locate` finds one).
    pub fn new(model: Option<PathBuf>) -> Self {
        PassageSetup {
            model,
            embedder: Mutex::new(None),
            stores: Mutex::new(HashMap::new()),
        }
    }

    /// The model, loaded now if not yet.
    pub fn embedder(&self) -> Result<Arc<Embedder>, String> {
        let mut held = self.embedder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = held.as_ref() {
            return Ok(Arc::clone(e));
        }
        let root = model_root();
        let found =
            locate::locate(self.model.as_deref(), root.as_deref()).map_err(|e| e.to_string())?;
        let embedder = Arc::new(
            Embedder::load(&found.dir, &found.name)
                .map_err(|e| format!("cannot load the model in {}: {e}", found.dir.display()))?,
        );
        *held = Some(Arc::clone(&embedder));
        Ok(embedder)
    }

    /// The passage store of the index in `dir`, opened again when its
    /// meta.json changed.
    pub fn store(&self, dir: &Path) -> Result<Arc<Store>, String> {
        let stamp = std::fs::metadata(store::dir_of(dir).join(store::files::META))
            .and_then(|m| m.modified())
            .ok();
        let mut stores = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((when, s)) = stores.get(dir) {
            if *when == stamp && stamp.is_some() {
                return Ok(Arc::clone(s));
            }
        }
        let opened = Arc::new(Store::open(dir).map_err(|e| e.to_string())?);
        stores.insert(dir.to_path_buf(), (stamp, Arc::clone(&opened)));
        Ok(opened)
    }
}
