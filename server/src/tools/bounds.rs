//! The bound on every tool input that costs work, declared once.
//!
//! Every string argument has a length bound and every list an item bound
//! (its strings a length bound too): the bound of its name in [`BOUNDS`],
//! written into the tool's input schema (`maxLength`, `maxItems`) by
//! [`declare`], else the default of its kind ([`TEXT_CHARS`],
//! [`LIST_ITEMS`]), which the server's instructions state once.
//! [`super::validate`] refuses a call past a bound before anything is
//! read, naming the bound. So a 10,000-word `exclude` or a
//! 50,000-character id is refused at once, and an error that quotes an
//! argument quotes at most a bounded value ([`quote`] shortens it
//! further).
//!
//! The query text has the engine's own bound as well
//! (`archilyzer_core::query::MAX_QUERY_BYTES`), so the command line keeps
//! it too; a regex is also bounded in its compiled size there.

use serde_json::{Map, Value};

/// Characters of a string argument whose name [`BOUNDS`] does not list:
/// as long as the longest query the engine takes.
pub const TEXT_CHARS: usize = 1_000;

/// Items of a list argument whose name [`BOUNDS`] does not list.
pub const LIST_ITEMS: usize = 100;

/// The bound of one argument, by name, where the default of its kind
/// does not fit.
#[derive(Debug, Clone, Copy)]
pub enum Bound {
    /// At most this many characters.
    Chars(usize),
    /// At most this many items (each of at most [`TEXT_CHARS`]).
    Items(usize),
}

/// The arguments whose bound is not their kind's default, and why.
pub const BOUNDS: &[(&str, Bound)] = &[
    // Each excluded phrase is a query of its own, run over the scope.
    ("exclude", Bound::Items(32)),
    // A transcript URL with its query string.
    ("url", Bound::Chars(2_000)),
    // A share link carries a whole query tree.
    ("link", Bound::Chars(8_000)),
    // A plan's request is typed prose that may quote a link.
    ("request", Bound::Chars(10_000)),
    // A reply to a note is prose.
    ("text", Bound::Chars(10_000)),
];

/// Writes the bounds of [`BOUNDS`] into a generated input schema, at
/// every depth (`overrides.limit` too): a string's `maxLength`, a list's
/// `maxItems`. A bound the type declared itself is kept. The defaults
/// ([`TEXT_CHARS`], [`LIST_ITEMS`]) are said once, in the server's
/// instructions, not in every property: `tools/list` is paid for by
/// every agent ([`super::registry::TOOL_LIST_CHARS`]).
pub fn declare(schema: &mut Value) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for (name, spec) in properties.iter_mut() {
        if let Value::Object(one) = spec {
            let named = BOUNDS.iter().find(|(n, _)| n == name).map(|(_, b)| *b);
            match named {
                Some(Bound::Items(items)) if takes(one, "array") => {
                    one.entry("maxItems").or_insert(items.into());
                }
                Some(Bound::Chars(chars)) if takes(one, "string") => {
                    one.entry("maxLength").or_insert(chars.into());
                }
                _ => {}
            }
        }
        declare(spec); // a nested object's own properties
    }
}

/// The longest a string argument of schema `spec` may be: its
/// `maxLength`, else [`TEXT_CHARS`].
pub fn chars_of(spec: &Value) -> usize {
    spec["maxLength"]
        .as_u64()
        .map_or(TEXT_CHARS, |n| n as usize)
}

/// The most items a list argument of schema `spec` may hold: its
/// `maxItems`, else [`LIST_ITEMS`].
pub fn items_of(spec: &Value) -> usize {
    spec["maxItems"].as_u64().map_or(LIST_ITEMS, |n| n as usize)
}

/// Whether a schema's `type` is or includes `kind`.
fn takes(spec: &Map<String, Value>, kind: &str) -> bool {
    match spec.get("type") {
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(types)) => types.iter().any(|t| t == kind),
        _ => false,
    }
}

/// Characters of a sent value an error message quotes.
pub const QUOTED_CHARS: usize = 40;

/// `text` as an error quotes it: JSON-quoted, cut after
/// [`QUOTED_CHARS`] characters with the length named.
pub fn quote(text: &str) -> String {
    let (head, rest) = cut(text);
    format!("{head:?}{rest}")
}

/// `text` unquoted, cut as [`quote`] cuts it (a name shown in
/// backticks).
pub fn clip(text: &str) -> String {
    let (head, rest) = cut(text);
    format!("{head}{rest}")
}

/// The first [`QUOTED_CHARS`] characters of `text`, and what to say of
/// the rest (nothing when there is none).
fn cut(text: &str) -> (String, String) {
    let total = text.chars().count();
    match total <= QUOTED_CHARS {
        true => (text.to_string(), String::new()),
        false => (
            text.chars().take(QUOTED_CHARS).collect(),
            format!("… ({total} characters)"),
        ),
    }
}

/// A sent JSON value as an error quotes it: a string by [`quote`], a
/// list or object by its size, anything else whole.
pub fn quote_value(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s),
        Value::Array(items) => format!("a list of {} item(s)", items.len()),
        Value::Object(map) => format!("an object of {} key(s)", map.len()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_string_and_list_argument_of_every_tool_is_bounded() {
        use super::super::validate::validate;
        let args = |v: Value| v.as_object().unwrap().clone();
        let search = &super::super::registry::find("search_transcripts")
            .unwrap()
            .schema;
        assert_eq!(search["properties"]["exclude"]["maxItems"], 32);
        assert!(
            search["properties"]["query"].get("maxLength").is_none(),
            "a default bound is said once, in the instructions"
        );
        let long = "q".repeat(TEXT_CHARS + 1);
        let e = validate("search_transcripts", search, &args(json!({"query": long}))).unwrap_err();
        assert!(
            e.starts_with("search_transcripts: `query` is 1001 characters long; the bound is 1000. Sent: \"qqq"),
            "{e}"
        );
        let many: Vec<String> = (0..=LIST_ITEMS).map(|i| i.to_string()).collect();
        let e = validate(
            "search_transcripts",
            search,
            &args(json!({"query": "x", "channels": many})),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "search_transcripts: `channels` holds 101 items; the bound is 100: split the call, or narrow the list"
        );
        let one_long = vec!["c".repeat(TEXT_CHARS + 1)];
        let e = validate(
            "search_transcripts",
            search,
            &args(json!({"query": "x", "tags": one_long})),
        )
        .unwrap_err();
        assert!(
            e.contains("an item of `tags` is 1001 characters long; the bound is 1000"),
            "{e}"
        );
        // Every tool, every string and list argument: one past its bound
        // is refused before anything runs.
        for tool in super::super::registry::advertised() {
            let props = tool.schema["properties"].as_object().unwrap();
            for (name, spec) in props {
                let over = if takes(spec.as_object().unwrap(), "array") {
                    json!(vec!["x"; items_of(spec) + 1])
                } else if takes(spec.as_object().unwrap(), "string") && spec.get("enum").is_none() {
                    json!("y".repeat(chars_of(spec) + 1))
                } else {
                    continue;
                };
                let e = validate(tool.name, &tool.schema, &args(json!({name: over})))
                    .expect_err(&format!("{} {name}", tool.name));
                assert!(e.contains("the bound is"), "{} {name}: {e}", tool.name);
            }
        }
    }

    #[test]
    fn a_quote_is_a_short_prefix_naming_the_length() {
        assert_eq!(quote("abc"), "\"abc\"");
        let long = "x".repeat(50_000);
        assert_eq!(
            quote(&long),
            format!("{:?}… (50000 characters)", "x".repeat(40))
        );
        assert_eq!(quote_value(&json!([1, 2])), "a list of 2 item(s)");
        assert_eq!(quote_value(&json!(7)), "7");
    }
}
