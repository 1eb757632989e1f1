//! yt-dlp's `<id>.live_chat.json`: a live stream's chat replay, imported
//! into the archive's chat layer.
//!
//! The file is JSON Lines. Each line is one replay action,
//! `{"replayChatItemAction": {"actions": [...], "videoOffsetTimeMsec":
//! "12345"}}`, whose actions add chat items: a text message
//! (`liveChatTextMessageRenderer`) or a paid one
//! (`liveChatPaidMessageRenderer`), each with `authorName.simpleText` and
//! `message.runs` (text runs, and emoji runs given by their shortcut).
//!
//! Promises: every message with a time and some text is imported once, in
//! time order, with its author; a message sent before the stream began
//! (a negative offset) has no place on the video's timeline and is counted,
//! not stamped at 0:00; a line that is not JSON is counted with its line
//! number; anything that is not a message (membership notices, banners) is
//! left out by design.

use std::path::Path;

use anyhow::{Context, Result};
use archilyzer_core::format::ChatMessage;
use serde_json::Value;

/// What a live chat file gave.
#[derive(Debug, Default)]
pub struct LiveChat {
    /// The messages, in time order.
    pub messages: Vec<ChatMessage>,
    /// Messages sent before the stream started.
    pub before_start: usize,
    /// Lines that are not JSON, by number.
    pub bad_lines: Vec<usize>,
}

/// Reads a `.live_chat.json` file.
pub fn read(path: &Path) -> Result<LiveChat> {
    let text = std::fs::read_to_string(path).context("cannot read")?;
    let mut chat = LiveChat::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            chat.bad_lines.push(i + 1);
            continue;
        };
        let replay = &value["replayChatItemAction"];
        let Some(offset) = offset_ms(&replay["videoOffsetTimeMsec"]) else {
            continue;
        };
        for action in replay["actions"].as_array().into_iter().flatten() {
            let Some((author, text)) = message(&action["addChatItemAction"]["item"]) else {
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

/// `videoOffsetTimeMsec`, written as a string of digits (or a number).
fn offset_ms(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) => s.trim().parse().ok(),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
    .filter(|t: &f64| t.is_finite())
}

/// The author and text of a chat item that is a message.
fn message(item: &Value) -> Option<(String, String)> {
    let renderer = ["liveChatTextMessageRenderer", "liveChatPaidMessageRenderer"]
        .iter()
        .map(|k| &item[*k])
        .find(|r| r.is_object())?;
    let text: String = renderer["message"]["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|run| match run["text"].as_str() {
            Some(t) => t.to_string(),
            None => run["emoji"]["shortcuts"][0]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        })
        .collect();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return None;
    }
    let author = renderer["authorName"]["simpleText"]
        .as_str()
        .unwrap_or("unknown viewer")
        .to_string();
    Some((author, text))
}
