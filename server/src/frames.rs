//! The JSON-RPC frames a client sends, checked before rmcp reads them, so
//! a malformed one gets the answer the JSON-RPC 2.0 specification gives
//! it instead of silence (rmcp drops a frame it cannot decode, and the
//! client waits for its own timeout):
//!
//! - not JSON (cut short, a lone UTF-16 surrogate, nested deeper than
//!   [`MAX_DEPTH`], not UTF-8): `-32700` parse error, `id: null`;
//! - JSON that is no JSON-RPC message (not an object, no `jsonrpc: "2.0"`,
//!   a `method` that is not a string): `-32600` invalid request;
//! - a request whose `params` is not an object, or a `tools/call` whose
//!   `arguments` is not an object: `-32602` invalid params, with the
//!   request's id.
//!
//! Everything else passes untouched. [`check`] decides; the stdio
//! ([`serve_stdio`]) and HTTP (`crate::http`) doors both call it.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// How deep a frame's arrays and objects may nest (serde_json's own
/// limit: a deeper frame is not parsed, so it is refused as unreadable).
pub const MAX_DEPTH: usize = 128;

/// The JSON-RPC error codes this module answers with.
pub mod code {
    /// Not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but no JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// A request whose parameters have the wrong shape.
    pub const INVALID_PARAMS: i64 = -32602;
}

/// What [`check`] answers a frame that must not reach rmcp: one error
/// answer, or a list of them for a batch.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Refusal {
    /// The answer to one message.
    One(ErrorAnswer),
    /// The answers to a batch's refused messages, in order.
    Batch(Vec<ErrorAnswer>),
}

impl Refusal {
    /// The error code of its (first) answer.
    pub fn code(&self) -> i64 {
        match self {
            Refusal::One(a) => a.error.code,
            Refusal::Batch(list) => list.first().map_or(code::INVALID_REQUEST, |a| a.error.code),
        }
    }

    /// As sent: one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an error answer serialises")
    }
}

/// A JSON-RPC error answer.
#[derive(Debug, Serialize)]
pub struct ErrorAnswer {
    jsonrpc: &'static str,
    id: Value,
    error: ErrorBody,
}

#[derive(Debug, Serialize)]
struct ErrorBody {
    code: i64,
    message: String,
}

/// The members of a JSON-RPC message the check reads, each as sent:
/// their types are what it checks. `Some(Value::Null)` is a member sent
/// as `null`; `None`, one not sent.
#[derive(Deserialize)]
struct Frame {
    #[serde(default, deserialize_with = "sent")]
    jsonrpc: Option<Value>,
    #[serde(default)]
    id: Value,
    #[serde(default, deserialize_with = "sent")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "sent")]
    params: Option<Value>,
}

/// The `params` member the check reads.
#[derive(Deserialize)]
struct Params {
    #[serde(default, deserialize_with = "sent")]
    arguments: Option<Value>,
}

/// A member that was sent, `null` included.
fn sent<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The error answer to a frame that must not reach rmcp, or `None` when
/// it may. A batch (a JSON array) is checked item by item the same way.
pub fn check(frame: &[u8]) -> Option<Refusal> {
    let value: Value = match serde_json::from_slice(frame) {
        Ok(v) => v,
        Err(e) => {
            return Some(Refusal::One(error(
                Value::Null,
                code::PARSE_ERROR,
                &format!("the frame is not JSON ({e}); send one JSON-RPC message per line, as UTF-8 JSON nested at most {MAX_DEPTH} deep"),
            )))
        }
    };
    match &value {
        Value::Array(items) if !items.is_empty() => {
            let answers: Vec<ErrorAnswer> = items.iter().filter_map(check_message).collect();
            (!answers.is_empty()).then_some(Refusal::Batch(answers))
        }
        _ => check_message(&value).map(Refusal::One),
    }
}

/// [`check`] for one parsed message.
fn check_message(message: &Value) -> Option<ErrorAnswer> {
    let frame = match message {
        Value::Object(_) => Frame::deserialize(message).ok(),
        _ => None,
    };
    let Some(frame) = frame else {
        return Some(error(
            Value::Null,
            code::INVALID_REQUEST,
            "a JSON-RPC message is an object with \"jsonrpc\": \"2.0\"",
        ));
    };
    let id = frame.id;
    if frame.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
        return Some(error(
            id,
            code::INVALID_REQUEST,
            "a JSON-RPC message carries \"jsonrpc\": \"2.0\"",
        ));
    }
    let Some(method) = frame.method else {
        return None; // a response to the server's own request
    };
    let Some(method) = method.as_str() else {
        return Some(error(
            id,
            code::INVALID_REQUEST,
            "\"method\" must be a string",
        ));
    };
    let arguments = match &frame.params {
        None => None,
        Some(params @ Value::Object(_)) => {
            Params::deserialize(params).ok().and_then(|p| p.arguments)
        }
        Some(_) => {
            return Some(error(
                id,
                code::INVALID_PARAMS,
                &format!(
                    "the params of {} must be an object",
                    crate::tools::bounds::quote(method)
                ),
            ))
        }
    };
    if method == "tools/call" && arguments.is_some_and(|a| !a.is_object() && !a.is_null()) {
        return Some(error(
            id,
            code::INVALID_PARAMS,
            "the arguments of tools/call must be an object of argument names and values",
        ));
    }
    None
}

/// A JSON-RPC error answer.
fn error(id: Value, code: i64, message: &str) -> ErrorAnswer {
    ErrorAnswer {
        jsonrpc: "2.0",
        id,
        error: ErrorBody {
            code,
            message: message.to_string(),
        },
    }
}

/// Serves `server` over stdin and stdout, one JSON-RPC message per line,
/// every line [`check`]ed first: a refused one is answered here, the rest
/// go to rmcp. rmcp's answers and these share stdout a whole line at a
/// time.
pub async fn serve_stdio<S: rmcp::ServerHandler>(server: S) -> Result<(), String> {
    use rmcp::ServiceExt;
    let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 16);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 16);
    let (lines, mut outgoing) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = outgoing.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(relay_answers(from_rmcp, lines.clone()));
    tokio::spawn(relay_frames(tokio::io::stdin(), to_rmcp, lines));
    let running = server
        .serve((rmcp_in, rmcp_out))
        .await
        .map_err(|e| format!("the client did not complete the opening exchange: {e}"))?;
    let ended = running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| e.to_string());
    writer.abort();
    ended
}

/// rmcp's answers, line by line, onto stdout's queue.
async fn relay_answers(
    from: impl tokio::io::AsyncRead + Unpin,
    lines: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    while from.read_until(b'\n', &mut line).await.is_ok_and(|n| n > 0) {
        if lines.send(std::mem::take(&mut line)).is_err() {
            break;
        }
    }
}

/// The client's frames, line by line: each checked, answered here or
/// passed to rmcp. At the end of input rmcp's input ends too.
async fn relay_frames(
    from: impl tokio::io::AsyncRead + Unpin,
    mut to_rmcp: impl tokio::io::AsyncWrite + Unpin,
    lines: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    while from.read_until(b'\n', &mut line).await.is_ok_and(|n| n > 0) {
        let frame = line.trim_ascii();
        if !frame.is_empty() {
            match check(frame) {
                Some(refusal) => {
                    let mut out = refusal.to_json().into_bytes();
                    out.push(b'\n');
                    let _ = lines.send(out);
                }
                None => {
                    let mut out = frame.to_vec();
                    out.push(b'\n');
                    if to_rmcp.write_all(&out).await.is_err() {
                        break;
                    }
                }
            }
        }
        line.clear();
    }
    let _ = to_rmcp.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(frame: &str) -> Option<i64> {
        // A batch's answer is a list: the first item's code.
        check(frame.as_bytes()).map(|r| r.code())
    }

    #[test]
    fn a_malformed_frame_gets_the_specifications_error() {
        assert_eq!(code_of(r#"{"jsonrpc":"2.0","id":1,"meth"#), Some(-32700));
        assert_eq!(
            code_of(r#"{"jsonrpc":"2.0","id":1,"method":"x\ud800"}"#),
            Some(-32700),
            "a lone surrogate"
        );
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert_eq!(code_of(&deep), Some(-32700));
        assert_eq!(code_of("[1]"), Some(-32600));
        assert_eq!(code_of(r#"{"id":1,"method":"ping"}"#), Some(-32600));
        let array_args = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#;
        let answer = check(array_args.as_bytes()).unwrap().to_json();
        assert!(
            answer.starts_with(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"#),
            "{answer}"
        );
        let string_args = r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x","arguments":"a"}}"#;
        assert_eq!(code_of(string_args), Some(-32602));
        assert_eq!(
            code_of(r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":[]}"#),
            Some(-32602)
        );
        assert_eq!(
            code_of(r#"{"jsonrpc":"2.0","id":10,"method":"tools/list","params":null}"#),
            Some(-32602),
            "params sent as null"
        );
        assert_eq!(
            code_of(r#"{"jsonrpc":"2.0","id":11,"method":null}"#),
            Some(-32600)
        );
        let batch = check(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"id":2}]"#).unwrap();
        assert_eq!(
            batch.to_json(),
            r#"[{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"a JSON-RPC message carries \"jsonrpc\": \"2.0\""}}]"#
        );
    }

    #[test]
    fn a_well_formed_frame_passes_untouched() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        ] {
            assert!(check(ok.as_bytes()).is_none(), "{ok}");
        }
    }
}
