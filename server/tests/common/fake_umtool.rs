//! A fake umtool: the notes API of docs/umtool-contract.md on 127.0.0.1,
//! for the tests of the `notes` tool. It serves notes the test adds and
//! records every request, so a test can assert that `reply` sent nothing.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use archilyzer_testkit::{respond, Listener, Request};

#[derive(Default)]
struct State {
    /// `(target, title, source file)`.
    targets: Vec<(String, String, String)>,
    /// `(target, note)`.
    notes: Vec<(String, Value)>,
    log: Vec<(String, String, String)>,
}

/// A running fake umtool; stops when dropped.
pub struct FakeUmtool {
    listener: Listener,
    state: Arc<Mutex<State>>,
}

impl FakeUmtool {
    pub fn start() -> FakeUmtool {
        let state = Arc::new(Mutex::new(State::default()));
        let st = state.clone();
        let listener = Listener::spawn(move |req, mut conn| {
            let (status, body) = route(&st, &req);
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            let _ = respond(
                &mut conn,
                status,
                &[("Content-Type", "application/json".into())],
                &bytes,
            );
        });
        FakeUmtool { listener, state }
    }

    /// The origin, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.listener.url("").trim_end_matches('/').to_string()
    }

    /// An article or report-video project notes can be left on.
    pub fn add_target(&self, target: &str, title: &str, source_file: &str) {
        let mut s = self.state.lock().unwrap();
        s.targets
            .push((target.into(), title.into(), source_file.into()));
    }

    /// A note on `target`: `{id, anchor, anchorText, text, author, createdAt, status, replies}`.
    pub fn add_note(&self, target: &str, note: Value) {
        self.state.lock().unwrap().notes.push((target.into(), note));
    }

    /// `(method, path, query)` of every request so far.
    pub fn requests(&self) -> Vec<(String, String, String)> {
        self.state.lock().unwrap().log.clone()
    }
}

fn route(state: &Mutex<State>, req: &Request) -> (u16, Value) {
    let mut s = state.lock().unwrap();
    let query: Vec<String> = req.query.iter().map(|(k, v)| format!("{k}={v}")).collect();
    s.log
        .push((req.method.clone(), req.path.clone(), query.join("&")));
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", "api/notes") => {
            let want = req.param("status").unwrap_or("open");
            let notes: Vec<Value> = s
                .notes
                .iter()
                .filter(|(_, n)| n["status"] == want)
                .map(|(t, n)| {
                    let title = s
                        .targets
                        .iter()
                        .find(|x| &x.0 == t)
                        .map_or("", |x| x.1.as_str());
                    let mut n = n.clone();
                    n["target"] = json!(t);
                    n["targetTitle"] = json!(title);
                    n
                })
                .collect();
            (200, json!({"notes": notes}))
        }
        ("GET", "api/notes/digest") => {
            let target = req.param("target").unwrap_or("");
            match s.targets.iter().find(|x| x.0 == target) {
                Some((t, title, file)) => {
                    let notes: Vec<&Value> = s
                        .notes
                        .iter()
                        .filter(|(nt, _)| nt == t)
                        .map(|(_, n)| n)
                        .collect();
                    (
                        200,
                        json!({"target": t, "title": title, "sourceFile": file, "notes": notes}),
                    )
                }
                None => (404, json!({"error": format!("no target {target}")})),
            }
        }
        _ => (404, json!({"error": "no such route"})),
    }
}
