//! The tools' output schemas: what a tool's `structuredContent` holds,
//! declared in `tools/list` so a client can validate it. Every result is
//! an [`Answer`]: the tool's own fields beside the corpus that answered.
//! A tool's fields are a Rust type it serialises its structured content
//! from, and [`of`] generates the schema from that same type (schemars),
//! so the two cannot drift.
//!
//! Clients validate every answer against its schema (the Python SDK does,
//! on every call), so the schema is shaped to be cheap to check without
//! saying less: every subschema inline (no `$ref` to resolve), a choice of
//! strings an `enum` (not a `oneOf` of `const`s, each tried in turn), and
//! an optional value one schema whose `type` admits `null` (not an `anyOf`).
//! The Python SDK's check of a search page of 20 videos takes less than
//! half the time it took with schemars' own shapes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

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
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema =
        serde_json::to_value(generator.into_root_schema_for::<Answer<T>>()).unwrap_or_default();
    without_number_formats(&mut schema);
    plain_descriptions(&mut schema);
    choices_as_enums(&mut schema);
    nullable_as_type(&mut schema);
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
    each_object(v, &mut |map| {
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
    });
}

/// Calls `f` on every object of a schema, at any depth, each before the
/// objects inside it (so what `f` moves into an object is visited too).
pub(crate) fn each_object(v: &mut Value, f: &mut impl FnMut(&mut Map<String, Value>)) {
    match v {
        Value::Object(map) => {
            f(map);
            map.values_mut().for_each(|v| each_object(v, f));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| each_object(v, f)),
        _ => {}
    }
}

/// A `oneOf` whose every branch is one documented string (`const`), as
/// schemars writes a Rust enum of documented unit variants, becomes an
/// `enum` of those strings, each variant's doc appended to the
/// description: one lookup for a validator instead of a trial per branch.
pub(crate) fn choices_as_enums(v: &mut Value) {
    each_object(v, &mut |map| {
        let choices = map
            .get("oneOf")
            .and_then(Value::as_array)
            .and_then(|branches| {
                branches
                    .iter()
                    .map(string_choice)
                    .collect::<Option<Vec<_>>>()
            });
        let Some(choices) = choices else {
            return;
        };
        let listed: Vec<String> = choices
            .iter()
            .map(|(value, doc)| match doc {
                Some(doc) => format!("`{value}`: {doc}"),
                None => format!("`{value}`"),
            })
            .collect();
        let values: Vec<Value> = choices.iter().map(|(v, _)| (*v).into()).collect();
        let description = match map.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d} One of: {}", listed.join("; ")),
            None => format!("One of: {}", listed.join("; ")),
        };
        map.remove("oneOf");
        map.insert("type".into(), "string".into());
        map.insert("enum".into(), values.into());
        map.insert("description".into(), description.into());
    });
}

/// One branch of a choice of strings: `{"const": "x"}`, with at most a
/// `type` of `string` and a `description` beside it.
fn string_choice(branch: &Value) -> Option<(&str, Option<&str>)> {
    let b = branch.as_object()?;
    let only_choice_keys = b
        .iter()
        .all(|(k, v)| k == "const" || k == "description" || (k == "type" && v == "string"));
    only_choice_keys.then_some(())?;
    let doc = b.get("description").and_then(Value::as_str);
    Some((b.get("const")?.as_str()?, doc))
}

/// `anyOf: [S, {"type": "null"}]` (a Rust `Option<T>`) becomes S with
/// `null` among its types (and its `enum`), when S is a plain schema
/// (a `type`, no composition): the keywords S keeps (`properties`,
/// `minimum`, `items`) apply only to values of their own type, so a
/// `null` passes them as it passed the `anyOf`.
pub(crate) fn nullable_as_type(v: &mut Value) {
    each_object(v, &mut |map| {
        let Some(mut inner) = option_of(map).filter(|s| plain(s)).cloned() else {
            return;
        };
        map.remove("anyOf");
        add_null(&mut inner);
        for (k, v) in inner {
            map.entry(k).or_insert(v);
        }
    });
}

/// The schema of `T` in schemars' schema of an `Option<T>`:
/// `anyOf: [T, {"type": "null"}]`.
pub(crate) fn option_of(schema: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let null = serde_json::json!({"type": "null"});
    schema
        .get("anyOf")
        .and_then(Value::as_array)
        .filter(|any| any.len() == 2 && any.contains(&null))
        .and_then(|any| any.iter().find(|s| **s != null))
        .and_then(Value::as_object)
}

/// A schema that states a `type` and composes nothing.
fn plain(schema: &Map<String, Value>) -> bool {
    schema.contains_key("type")
        && !["anyOf", "oneOf", "allOf", "not", "$ref", "const", "if"]
            .iter()
            .any(|k| schema.contains_key(*k))
}

/// `null` added to a plain schema's `type` (and `enum`, which would
/// otherwise refuse it).
fn add_null(schema: &mut Map<String, Value>) {
    let types = match schema.remove("type") {
        Some(Value::Array(mut types)) => {
            types.push("null".into());
            types
        }
        Some(t) => vec![t, "null".into()],
        None => vec!["null".into()],
    };
    schema.insert("type".into(), types.into());
    if let Some(Value::Array(values)) = schema.get_mut("enum") {
        values.push(Value::Null);
    }
}

/// Removes the `format` schemars gives Rust's number types (`uint64`,
/// `double`…): no JSON Schema vocabulary defines them, and validators
/// (the TypeScript SDK's Ajv) warn about each; `type` and `minimum` say
/// what a client needs.
pub(crate) fn without_number_formats(v: &mut Value) {
    each_object(v, &mut |map| {
        let numeric = map.get("format").and_then(Value::as_str).is_some_and(|f| {
            f.starts_with("uint") || f.starts_with("int") || f == "double" || f == "float"
        });
        if numeric {
            map.remove("format");
        }
    });
}

/// A tool's structured content, from the value of its answer type.
pub fn content<T: Serialize>(body: &T) -> Value {
    serde_json::to_value(body).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_choice_of_documented_strings_becomes_an_enum_keeping_each_doc() {
        let mut s = json!({"description": "A field.", "oneOf": [
            {"const": "a", "type": "string", "description": "The first."},
            {"const": "b", "type": "string"}]});
        choices_as_enums(&mut s);
        assert_eq!(
            s,
            json!({"type": "string", "enum": ["a", "b"],
                   "description": "A field. One of: `a`: The first.; `b`"})
        );
        // A branch that says more than a string is not a plain choice.
        let mut mixed = json!({"oneOf": [{"const": "a"}, {"const": 1, "type": "integer"}]});
        let before = mixed.clone();
        choices_as_enums(&mut mixed);
        assert_eq!(mixed, before);
    }

    #[test]
    fn an_optional_plain_schema_admits_null_by_type_and_enum() {
        let mut s = json!({"description": "Maybe.", "anyOf": [
            {"type": "string", "enum": ["x", "y"]}, {"type": "null"}]});
        nullable_as_type(&mut s);
        assert_eq!(
            s,
            json!({"description": "Maybe.", "type": ["string", "null"], "enum": ["x", "y", null]})
        );
        let mut object = json!({"anyOf": [
            {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            {"type": "null"}]});
        nullable_as_type(&mut object);
        assert_eq!(object["type"], json!(["object", "null"]));
        assert_eq!(object["required"], json!(["n"]));
        // A composed schema keeps its anyOf.
        let mut composed = json!({"anyOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]});
        let before = composed.clone();
        nullable_as_type(&mut composed);
        assert_eq!(composed, before);
    }
}
