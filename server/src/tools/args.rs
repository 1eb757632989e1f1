//! The tools' arguments as types. Each tool's arguments are one Rust
//! type (serde + schemars) beside its handler; [`schema_of`] generates the
//! tool's `inputSchema` from that type and [`parse`] reads a call into it,
//! so what a tool declares and what it reads cannot differ. The pieces
//! several tools share are here: the corpus ([`Source`]), the size budget
//! ([`Budget`]), and what a query is found with ([`FindOptions`], around
//! the core's one declaration of it, [`Find`]).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use archilyzer_core::query::{Find, PageCap};

/// The input schema of a tool whose arguments are an `A`: a closed object
/// (an unknown name is refused by [`super::validate`]), each optional
/// argument of its one JSON type (a Rust `Option` is not offered as
/// `null`), without Rust's number formats, with every subschema inline.
pub fn schema_of<A: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema =
        serde_json::to_value(generator.into_root_schema_for::<A>()).unwrap_or_default();
    crate::output::without_number_formats(&mut schema);
    crate::output::plain_descriptions(&mut schema);
    crate::output::choices_as_enums(&mut schema);
    without_null(&mut schema);
    default_said_once(&mut schema);
    super::bounds::declare(&mut schema);
    if let Value::Object(map) = &mut schema {
        map.remove("title");
        map.remove("description");
        map.insert("additionalProperties".into(), false.into());
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    schema
}

/// `["integer", "null"]` → `"integer"`, and no default that is the
/// empty value (`null`, `false`, `0`, `[]`, `""`): an argument left out
/// is the absent value, which needs no saying; a `null` sent for one is
/// taken as left out.
fn without_null(v: &mut Value) {
    let empty = |d: &Value| match d {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    };
    crate::output::each_object(v, &mut |map| {
        if map.get("default").is_some_and(empty) {
            map.remove("default");
        }
        if let Some(inner) = crate::output::option_of(map).cloned() {
            map.remove("anyOf");
            for (k, v) in inner {
                map.entry(k).or_insert(v);
            }
        }
        if let Some(Value::Array(types)) = map.get_mut("type") {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let one = types.remove(0);
                map.insert("type".into(), one);
            }
        }
    });
}

/// A description that repeats the default its schema states (`(default
/// 30)` beside `"default": 30`) loses the repetition: said once, by the
/// schema's own keyword.
fn default_said_once(v: &mut Value) {
    crate::output::each_object(v, &mut |map| {
        if !map.contains_key("default") {
            return;
        }
        let Some(Value::String(d)) = map.get_mut("description") else {
            return;
        };
        let Some(at) = d.find("(default ") else {
            return;
        };
        // Only a bare `(default X)`: one that says more keeps its words.
        let Some(end) = d[at..]
            .find(')')
            .filter(|&e| !d[at..at + e].contains([';', ',']))
        else {
            return;
        };
        *d = format!("{}{}", d[..at].trim_end(), &d[at + end + 1..]);
    });
}

/// A call's arguments, already checked against the schema of `A`, read
/// into an `A`. A value the schema let through but the type refuses is
/// named with the tool.
pub fn parse<A: DeserializeOwned>(tool: &str, args: &Map<String, Value>) -> Result<A, String> {
    serde_json::from_value(Value::Object(args.clone())).map_err(|e| format!("{tool}: {e}"))
}

pub use crate::sources::Source;

/// The size budget every tool takes (the dispatcher reads it; a handler
/// gets the number in [`super::registry::Call::budget`]).
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
pub struct Budget {
    /// Answer budget in characters (see the instructions).
    #[schemars(range(min = crate::budget::FLOOR_CHARS, max = crate::budget::CEILING_CHARS))]
    #[schemars(extend("default" = crate::budget::DEFAULT_CHARS))]
    #[serde(default)]
    pub max_chars: Option<usize>,
}

impl Budget {
    /// The budget in characters ([`crate::budget::DEFAULT_CHARS`] when
    /// none was given).
    pub fn chars(self) -> usize {
        crate::budget::of(self.max_chars)
    }
}

/// What the tools that list videos for a query (`search_transcripts`,
/// `enumerate_matches`, `mention_trend`) take besides the query: how it
/// is found (the core's [`Find`], which `significant_terms` takes too, so
/// no two can disagree about what can be filtered), whether mirrors fold,
/// and the corpus.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct FindOptions {
    /// How the query is found.
    #[serde(flatten)]
    pub find: Find,
    /// How much may be read.
    #[serde(flatten)]
    pub cap: PageCap,
    /// Fold mirrors of one recording into one row (default true).
    #[serde(default = "yes")]
    pub collapse_duplicates: bool,
    /// The corpus.
    #[serde(flatten)]
    pub source: Source,
}

pub use archilyzer_core::query::find::yes;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, JsonSchema)]
    struct Example {
        /// A word.
        word: String,
        /// A count.
        #[schemars(range(min = 1, max = 9))]
        #[serde(default)]
        count: Option<u32>,
        #[serde(flatten)]
        find: FindOptions,
    }

    #[test]
    fn a_generated_schema_is_closed_and_plain() {
        let s = schema_of::<Example>();
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], serde_json::json!(["word"]));
        let count = &s["properties"]["count"];
        assert_eq!(count["type"], "integer", "{count}");
        assert_eq!(
            (count["minimum"].clone(), count["maximum"].clone()),
            (1.into(), 9.into())
        );
        assert!(count.get("format").is_none(), "{count}");
        assert_eq!(s["properties"]["word"]["description"], "A word.");
        for flattened in ["channels", "date_from", "source", "fuzzy", "use_aliases"] {
            assert!(s["properties"].get(flattened).is_some(), "{flattened}: {s}");
        }
        let call = serde_json::json!({"word": "w", "channel": "a", "channels": ["b"], "fuzzy": 1, "count": null});
        let e: Example = parse("t", call.as_object().unwrap()).unwrap();
        assert_eq!(e.word, "w");
        assert_eq!(e.find.find.filters.0.channels, ["b", "a"]);
        assert_eq!(e.find.find.fuzzy, 1);
        assert!(e.find.find.use_aliases, "defaults apply");
        assert!(e.find.collapse_duplicates, "defaults apply");
        assert_eq!(e.count, None, "a null is the argument left out");
    }
}
