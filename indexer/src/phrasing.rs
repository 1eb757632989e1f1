//! The command line's words for what the engine's messages and the
//! filter table's help call by the MCP tools' names: an argument
//! (`date_from`) becomes its flag (`--date-from`), a tool the shell has no
//! equivalent of becomes what to run instead. Every message the command
//! line prints on stderr ([`crate::cli::finish`]) and every filter flag's
//! help (`crate::cli::parse`) passes through [`phrase`], so a shell
//! user is never told of an argument or a tool they do not have.
//!
//! The flags of the filters come from the one filter table (those whose
//! name is an identifier, `date_from`; a plain word such as `channels` is
//! prose as often as a name); the rest are listed in [`WORDS`].

use archilyzer_core::query::FILTERS;

/// The tools' names for what the command line calls otherwise: an
/// argument and its flag, or a tool and what to do in the shell.
pub const WORDS: &[(&str, &str)] = &[
    ("scopes", "--scope"),
    ("max_pages", "--max-pages"),
    ("use_aliases", "--no-aliases"),
    ("min_videos", "--min-videos"),
    ("video_id", "--video"),
    ("list_tags", "the archive's tags.json"),
    ("list_channels", "`archilyzer-index stats` (its channels)"),
    ("search_transcripts", "`archilyzer-index search`"),
    ("enumerate_matches", "`archilyzer-index search --json`"),
    ("similar_terms", "`archilyzer-index terms`"),
];

/// `text` with every tool-side name in it replaced by the command line's
/// (a whole word only: `date_from` in `date_from:` is, `date_fromage` is
/// not).
pub fn phrase(text: &str) -> String {
    // A filter named by a plain word (`channels`, `tags`) is left alone:
    // the word is prose as often as a name.
    let filters = FILTERS
        .iter()
        .filter(|f| f.name.contains('_'))
        .map(|f| (f.name, format!("--{}", f.flag)));
    let words = WORDS.iter().map(|(from, to)| (*from, to.to_string()));
    let mut out = text.to_string();
    for (from, to) in filters.chain(words) {
        out = replace_word(&out, from, &to);
    }
    out
}

/// `text` with each whole-word `word` (not inside a longer identifier,
/// not already a flag) replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(ident) || after.is_some_and(ident) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_names_flags_and_commands_not_tool_arguments() {
        assert_eq!(
            phrase("date_to is before date_from; see list_tags"),
            "--date-to is before --date-from; see the archive's tags.json"
        );
        assert_eq!(
            phrase("scopes \"x\" is not a scope"),
            "--scope \"x\" is not a scope"
        );
        assert_eq!(
            phrase("as list_channels, search_transcripts or enumerate_matches give it"),
            "as `archilyzer-index stats` (its channels), `archilyzer-index search` or `archilyzer-index search --json` give it"
        );
        assert_eq!(
            phrase("--date-from and date_fromage"),
            "--date-from and date_fromage"
        );
    }
}
