//! The tools' output schemas: what a tool's `structuredContent` holds,
//! declared in `tools/list` so a client can validate it. Every result is
//! an [`Answer`]: the tool's own fields beside the corpus that answered.
//! A tool's fields are a Rust type it serialises its structured content
//! from, and [`of`] generates the schema from that same type (schemars),
//! so the two cannot drift.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// What every structured answer holds: the tool's own fields, the corpus
/// that answered ([`crate::tool::finish`] adds it), and what the size
/// budget cut ([`crate::budget::fit_answer`] adds it).
#[derive(Serialize, JsonSchema)]
pub struct Answer<T> {
    /// The tool's own fields.
    #[serde(flatten)]
    pub body: T,
    /// The corpus that answered.
    pub corpus: String,
    /// Lists of this content the size budget cut, by their dotted path,
    /// with the number of items left out (absent when nothing was cut).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<BTreeMap<String, u64>>,
}

/// The output schema of a tool whose structured content is a `T`, as
/// serialised (a field left out when empty is optional).
pub fn of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut schema =
        serde_json::to_value(generator.into_root_schema_for::<Answer<T>>()).unwrap_or_default();
    without_number_formats(&mut schema);
    plain_descriptions(&mut schema);
    if let Value::Object(map) = &mut schema {
        // The envelope's own doc comment says nothing a client needs.
        map.remove("title");
        map.remove("description");
    }
    schema
}

/// Each `description` (a doc comment, wrapped at 80 columns) as one line
/// of prose: a line break inside a paragraph becomes a space, and a
/// rustdoc link (`` [`name`] ``) plain code (`` `name` ``).
pub(crate) fn plain_descriptions(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(d)) = map.get_mut("description") {
                let paragraphs: Vec<String> = d
                    .split("\n\n")
                    .map(|p| p.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
                    .collect();
                *d = paragraphs
                    .join("\n\n")
                    .replace("[`", "`")
                    .replace("`]", "`");
            }
            map.values_mut().for_each(plain_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(plain_descriptions),
        _ => {}
    }
}

/// Removes the `format` schemars gives Rust's number types (`uint64`,
/// `double`…): no JSON Schema vocabulary defines them, and validators
/// (the TypeScript SDK's Ajv) warn about each; `type` and `minimum` say
/// what a client needs.
pub(crate) fn without_number_formats(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let numeric = map.get("format").and_then(Value::as_str).is_some_and(|f| {
                f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float"
            });
            if numeric {
                map.remove("format");
            }
            map.values_mut().for_each(without_number_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(without_number_formats),
        _ => {}
    }
}

/// A tool's structured content, from the value of its answer type.
pub fn content<T: Serialize>(body: &T) -> Value {
    serde_json::to_value(body).unwrap_or_default()
}
