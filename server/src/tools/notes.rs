//! `notes`: the operator's notes in umtool on articles and report-video
//! projects (`UMTOOL_URL`; contract in docs/umtool-contract.md).
//!
//! `list` and `read` only read. `reply` sends nothing: umtool records a
//! reply that arrives over HTTP as the operator's own, so the tool checks
//! that the note exists and answers the `umtool notes reply` command to run,
//! with the text shell-quoted and the ids after `--` (an id that begins
//! with `-` is never an option).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::UmtoolSetup;
use crate::service::Service;
use crate::tool::ToolResult;

/// `s` quoted for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A note, as umtool answers it (list and digest alike; a digest's
/// notes carry their replies, a list's their target).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    /// Its id.
    pub id: String,
    /// What it is on (`article/k-cups`), in a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// That target's title, in a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_title: Option<String>,
    /// Where in the target it is anchored.
    #[serde(default)]
    pub anchor: String,
    /// The anchored passage, where umtool resolved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_text: Option<String>,
    /// What it says.
    #[serde(default)]
    pub text: String,
    /// Who wrote it.
    #[serde(default)]
    pub author: String,
    /// When.
    #[serde(default)]
    pub created_at: String,
    /// `open` or another state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Its replies, in a digest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<NoteReply>,
}

/// A reply to a note.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteReply {
    /// Who wrote it.
    #[serde(default)]
    pub author: String,
    /// What it says.
    #[serde(default)]
    pub text: String,
    /// When.
    #[serde(default)]
    pub created_at: String,
}

/// One target's notes, as umtool's digest answers it.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Digest {
    /// The target.
    #[serde(default)]
    pub target: String,
    /// Its title.
    #[serde(default)]
    pub title: String,
    /// The file to edit to act on the notes.
    #[serde(default)]
    pub source_file: String,
    /// Its notes, with their replies.
    #[serde(default)]
    pub notes: Vec<Note>,
}

/// `notes`' structured content: one shape per action.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum NotesAnswer {
    /// `list`: every open note.
    List {
        /// The notes, as umtool lists them.
        notes: Vec<Note>,
    },
    /// `read`: one target's digest.
    Read(Digest),
    /// `reply`: the command to run (nothing is sent).
    Reply {
        /// The `umtool notes reply` command.
        command: String,
        /// Always false: this tool never posts a reply.
        sent: bool,
    },
}

impl Note {
    /// The passage it is anchored at, resolved where umtool resolved it.
    fn place(&self) -> &str {
        self.anchor_text.as_deref().unwrap_or(&self.anchor)
    }
}

fn refused(reply: &crate::service::Reply) -> String {
    format!("umtool refused (HTTP {}): {}", reply.status, reply.error())
}

/// `notes`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NotesArgs {
    /// What to do (default list).
    #[serde(default)]
    pub action: Action,
    /// read, reply: the target as list names it.
    #[serde(default)]
    pub target: Option<String>,
    /// reply: the note's id.
    #[serde(default)]
    pub note: Option<String>,
    /// reply: what to answer.
    #[serde(default)]
    pub text: Option<String>,
}

/// What `notes` does.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Every open note, by target.
    #[default]
    List,
    /// One target's digest, anchors resolved, and the source file to edit.
    Read,
    /// The umtool command that answers a note (nothing is posted).
    Reply,
}

/// The `notes` tool.
pub fn notes(setup: &UmtoolSetup, args: &NotesArgs) -> ToolResult {
    let umtool = setup.as_ref().map_err(|e| format!("notes: {e}"))?;
    match args.action {
        Action::List => list(umtool),
        Action::Read => read(umtool, required(&args.target, "target", "read")?),
        Action::Reply => reply(umtool, args),
    }
}

fn required<'a>(given: &'a Option<String>, name: &str, action: &str) -> Result<&'a str, String> {
    given
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| format!("notes: action {action} needs `{name}` (as action list names it)"))
}

/// umtool's list of open notes.
#[derive(Deserialize)]
struct Listed {
    #[serde(default)]
    notes: Vec<Note>,
}

fn list(umtool: &Service) -> ToolResult {
    let reply = umtool.get(&["api", "notes"], &[("status", "open".into())])?;
    if !reply.ok() {
        return Err(refused(&reply).into());
    }
    let notes = reply.parse::<Listed>("notes", "umtool-contract.md")?.notes;
    let mut by_target: BTreeMap<(&str, &str), Vec<&Note>> = BTreeMap::new();
    for n in &notes {
        let key = (
            n.target.as_deref().unwrap_or("?"),
            n.target_title.as_deref().unwrap_or(""),
        );
        by_target.entry(key).or_default().push(n);
    }
    let mut out = format!(
        "{} open note(s) on {} target(s)\n",
        notes.len(),
        by_target.len()
    );
    for ((target, title), list) in &by_target {
        out.push_str(&format!("\n## {title} (target: {target})\n"));
        for n in list {
            out.push_str(&format!(
                "- note {} at {:?}: {} ({}, {})\n",
                n.id,
                n.place(),
                n.text,
                n.author,
                n.created_at
            ));
        }
    }
    if notes.is_empty() {
        out.push_str("Nothing is waiting.\n");
    }
    let answer = NotesAnswer::List { notes };
    Ok((out, crate::output::content(&answer)))
}

fn digest(umtool: &Service, target: &str) -> Result<Digest, String> {
    let reply = umtool.get(
        &["api", "notes", "digest"],
        &[("target", target.to_string())],
    )?;
    match reply.status {
        404 => Err(format!(
            "notes: umtool has no target {target:?}; action list names the targets with open notes"
        )),
        _ if reply.ok() => reply.parse("notes", "umtool-contract.md"),
        _ => Err(refused(&reply)),
    }
}

fn read(umtool: &Service, target: &str) -> ToolResult {
    let d = digest(umtool, target)?;
    let mut out = format!(
        "# {}\n- target: {target} · the source file to edit: {}\n",
        d.title, d.source_file
    );
    for n in &d.notes {
        out.push_str(&format!(
            "\n## note {} ({}) at {:?}\n> {}\n({}, {})\n",
            n.id,
            n.status.as_deref().unwrap_or("open"),
            n.place(),
            n.text,
            n.author,
            n.created_at
        ));
        for r in &n.replies {
            out.push_str(&format!(
                "- reply by {} ({}): {}\n",
                r.author, r.created_at, r.text
            ));
        }
    }
    Ok((out, crate::output::content(&NotesAnswer::Read(d))))
}

fn reply(umtool: &Service, args: &NotesArgs) -> ToolResult {
    let target = required(&args.target, "target", "reply")?;
    let note = required(&args.note, "note", "reply")?;
    let text = required(&args.text, "text", "reply")?;
    let d = digest(umtool, target)?;
    if !d.notes.iter().any(|n| n.id == note) {
        return Err(format!(
            "notes: target {target:?} has no note {note:?}; action read lists its notes"
        )
        .into());
    }
    let command = format!(
        "umtool notes reply --text {} -- {} {}",
        shell_quote(text),
        shell_quote(target),
        shell_quote(note)
    );
    let out = format!(
        "Not sent: umtool records a reply that arrives over HTTP as the operator's own words, so this tool never posts one. Run this in the umtool checkout to reply as yourself:\n\n{command}\n"
    );
    let answer = NotesAnswer::Reply {
        command,
        sent: false,
    };
    Ok((out, crate::output::content(&answer)))
}

#[cfg(test)]
mod tests {
    use super::shell_quote;

    #[test]
    fn shell_quoting_survives_quotes_and_dashes() {
        assert_eq!(shell_quote("it's -x $HOME"), r"'it'\''s -x $HOME'");
    }
}
