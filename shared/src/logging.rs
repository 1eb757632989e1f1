//! Logs for both binaries: to stderr, filtered by `ARCHILYZER_LOG`
//! (default `warn`), in colour only on a terminal and never when
//! `NO_COLOR` is set (<https://no-color.org>). An MCP client stores the
//! server's stderr in its own log files, where colour codes are noise.

use std::io::IsTerminal;

/// Whether log lines carry ANSI colour codes.
pub fn colour(stderr_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    stderr_is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// Installs the stderr logger; call once, first thing in `main`.
pub fn init() {
    let no_color = std::env::var_os("NO_COLOR");
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(colour(std::io::stderr().is_terminal(), no_color.as_deref()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ARCHILYZER_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
}

#[cfg(test)]
mod tests {
    use super::colour;
    use std::ffi::OsStr;

    #[test]
    fn colour_only_on_a_terminal_and_never_with_no_color() {
        assert!(colour(true, None));
        assert!(!colour(false, None), "a file or a pipe");
        assert!(!colour(true, Some(OsStr::new("1"))));
        assert!(
            colour(true, Some(OsStr::new(""))),
            "an empty NO_COLOR is unset"
        );
    }
}
