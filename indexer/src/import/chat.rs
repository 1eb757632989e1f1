//! yt-dlp's `<id>.live_chat.json`: a live stream's chat replay, imported
//! into the archive's chat layer.
//!
//! The file is JSON Lines. Each line is one replay action,
//! `{"replayChatItemAction": {"actions": [...], "videoOffsetTimeMsec":
//! "12345"}}`, whose actions add chat items: a text message
//! (`liveChatTextMessageRenderer`) or a paid one
//! (`liveChatPaidMessageRenderer`), each with `authorName.simpleText` and
//! `message.runs` (text runs, and emoji runs given by their shortcut).
//! The types below are that shape, every part optional, so a line of
//! another kind (a banner, a poll) reads as one with no message.
//!
//! Promises: every message with a time and some text is imported once, in
//! time order, with its author; a message sent before the stream began
//! (a negative offset) has no place on the video's timeline and is counted,
//! not stamped at 0:00; a line that is not JSON, or JSON of another shape,
//! is counted with its line number and why; anything that is not a
//! message (membership notices, banners) is left out by design.

use std::path::Path;

use anyhow::{Context, Result};
use archilyzer_core::format::ChatMessage;
use serde::Deserialize;

/// What a live chat file gave.
#[derive(Debug, Default)]
pub struct LiveChat {
    /// The messages, in time order.
    pub messages: Vec<ChatMessage>,
    /// Messages sent before the stream started.
    pub before_start: usize,
    /// Lines that could not be read, by number, each with why.
    pub bad_lines: Vec<(usize, String)>,
}

/// One line of the file.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Line {
    replay_chat_item_action: Option<Replay>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Replay {
    video_offset_time_msec: Option<Offset>,
    #[serde(default)]
    actions: Vec<Action>,
}

/// `videoOffsetTimeMsec`, written as a string of digits (or a number).
#[derive(Deserialize)]
#[serde(untagged)]
enum Offset {
    Digits(String),
    Number(f64),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Action {
    add_chat_item_action: Option<AddItem>,
}

#[derive(Deserialize)]
struct AddItem {
    item: Option<Item>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Item {
    live_chat_text_message_renderer: Option<Renderer>,
    live_chat_paid_message_renderer: Option<Renderer>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Renderer {
    message: Option<Runs>,
    author_name: Option<SimpleText>,
}

#[derive(Deserialize)]
struct Runs {
    #[serde(default)]
    runs: Vec<Run>,
}

/// A run of text, or an emoji given by its shortcuts.
#[derive(Deserialize)]
struct Run {
    text: Option<String>,
    emoji: Option<Emoji>,
}

#[derive(Deserialize)]
struct Emoji {
    #[serde(default)]
    shortcuts: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SimpleText {
    simple_text: Option<String>,
}

/// Reads a `.live_chat.json` file.
pub fn read(path: &Path) -> Result<LiveChat> {
    let text = std::fs::read_to_string(path).context("cannot read")?;
    let mut chat = LiveChat::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line: Line = match serde_json::from_str(line) {
            Ok(line) => line,
            Err(e) => {
                chat.bad_lines.push((i + 1, why_unread(&e)));
                continue;
            }
        };
        let Some(replay) = line.replay_chat_item_action else {
            continue;
        };
        let Some(offset) = replay.video_offset_time_msec.and_then(Offset::ms) else {
            continue;
        };
        for action in replay.actions {
            let Some((author, text)) = action.message() else {
                continue;
            };
            if offset < 0.0 {
                chat.before_start += 1;
                continue;
            }
            chat.messages.push(ChatMessage {
                t: offset.round() / 1000.0,
                author,
                text,
            });
        }
    }
    chat.messages.sort_by(|a, b| a.t.total_cmp(&b.t));
    Ok(chat)
}

/// Why a line was not read, as the import report says it.
fn why_unread(e: &serde_json::Error) -> String {
    match e.classify() {
        serde_json::error::Category::Data => {
            format!("not a chat replay line as yt-dlp writes it ({e})")
        }
        _ => "not a JSON line".to_string(),
    }
}

impl Offset {
    /// Milliseconds from the stream's start, when a finite number.
    fn ms(self) -> Option<f64> {
        match self {
            Offset::Digits(s) => s.trim().parse().ok(),
            Offset::Number(n) => Some(n),
        }
        .filter(|t: &f64| t.is_finite())
    }
}

impl Action {
    /// The author and text of the chat item it adds, when that is a
    /// message with some text.
    fn message(self) -> Option<(String, String)> {
        let item = self.add_chat_item_action?.item?;
        let renderer = item
            .live_chat_text_message_renderer
            .or(item.live_chat_paid_message_renderer)?;
        let text: String = renderer
            .message
            .map(|m| m.runs)
            .unwrap_or_default()
            .into_iter()
            .map(|run| match (run.text, run.emoji) {
                (Some(t), _) => t,
                (None, Some(emoji)) => emoji.shortcuts.into_iter().next().unwrap_or_default(),
                (None, None) => String::new(),
            })
            .collect();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return None;
        }
        let author = renderer
            .author_name
            .and_then(|a| a.simple_text)
            .unwrap_or_else(|| "unknown viewer".to_string());
        Some((author, text))
    }
}
