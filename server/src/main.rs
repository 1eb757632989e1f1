//! `archilyzer-mcp`: the stdio MCP server. This first cut only resolves and
//! opens its startup source, so a mis-registered server fails loudly; the
//! tools arrive with the query engine. Logs go to stderr; stdout is
//! reserved for the protocol.

use std::path::PathBuf;
use std::process::ExitCode;

use archilyzer_core::archive::{Archive, OpenOptions};
use archilyzer_core::source::SourceHandle;
use clap::Parser;

/// Which archive to serve. Precedence: hub > remote > local.
#[derive(Parser)]
#[command(
    name = "archilyzer-mcp",
    version,
    about = "Stdio MCP server for a transcript archive"
)]
struct Cli {
    #[arg(long, env = "TRANSCRIPT_LOCAL_DIR", default_value = "./export/public")]
    local: PathBuf,
    #[arg(long, env = "TRANSCRIPT_SITE_URL")]
    remote: Option<String>,
    #[arg(long, env = "TRANSCRIPT_HUB_URL")]
    hub: Option<String>,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let handle = match (&cli.hub, &cli.remote) {
        (Some(hub), _) => SourceHandle::parse(&format!("hub:{hub}")),
        (None, Some(remote)) => SourceHandle::parse(&format!("remote:{remote}")),
        (None, None) => Ok(SourceHandle::local(&cli.local)),
    };
    let opened = handle.map_err(|e| e.to_string()).and_then(|h| {
        Archive::open(&h, &OpenOptions::default())
            .map(|a| (h, a))
            .map_err(|e| e.to_string())
    });
    match opened {
        Ok((h, a)) => {
            tracing::info!("opened {h}: {} site(s)", a.sites().len());
            eprintln!(
                "archilyzer-mcp: the MCP tools are not implemented in this build yet (corpus: {h})"
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("archilyzer-mcp: {e}");
            ExitCode::FAILURE
        }
    }
}
