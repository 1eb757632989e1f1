//! The flags that name an archive, declared once for both binaries (the
//! `cli` feature): `--local`, `--remote`, `--hub`, each with its
//! environment variable. Precedence: hub > remote > local
//! ([`SourceHandle::from_flags`]); without any, the environment, else
//! [`DEFAULT_LOCAL_DIR`].

use std::path::PathBuf;

use super::{HandleError, SourceHandle, DEFAULT_LOCAL_DIR};

/// Which archive to read. Precedence: hub > remote > local; without any,
/// the environment (TRANSCRIPT_HUB_URL, TRANSCRIPT_SITE_URL,
/// TRANSCRIPT_LOCAL_DIR), else ./export/public.
#[derive(clap::Args, Debug, Clone)]
pub struct SourceFlags {
    /// A composed public dir on disk (read when no --hub or --remote is given).
    #[arg(long, env = "TRANSCRIPT_LOCAL_DIR", default_value = DEFAULT_LOCAL_DIR)]
    pub local: PathBuf,
    /// A deployed site origin (https://...).
    #[arg(long, env = "TRANSCRIPT_SITE_URL")]
    pub remote: Option<String>,
    /// A hub origin; `URL#a,b` reads only members a and b. A directory
    /// holding a hub's corpus.json is read as that hub.
    #[arg(long, env = "TRANSCRIPT_HUB_URL")]
    pub hub: Option<String>,
}

impl SourceFlags {
    /// The handle the flags name.
    pub fn handle(&self) -> Result<SourceHandle, HandleError> {
        SourceHandle::from_flags(self.hub.as_deref(), self.remote.as_deref(), &self.local)
    }
}
