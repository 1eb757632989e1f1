//! The tools' output schemas: what a tool's `structuredContent` holds,
//! declared in `tools/list` so a client can validate it. Every result is
//! an [`Answer`]: the tool's own fields beside the corpus that answered.
//! A tool's fields are a Rust type it serialises its structured content
//! from, and [`of`] generates the schema from that same type (schemars),
//! so the two cannot drift.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

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
    serde_json::to_value(generator.into_root_schema_for::<Answer<T>>()).unwrap_or_default()
}

/// A tool's structured content, from the value of its answer type.
pub fn content<T: Serialize>(body: &T) -> Value {
    serde_json::to_value(body).unwrap_or_default()
}

/// The schema of a tool's structured result; `fields` adds properties and
/// required keys to what every result has.
pub fn schema(fields: Option<Value>) -> Value {
    let mut s = json!({
        "type": "object",
        "properties": {"corpus": {"type": "string", "description": "The corpus that answered."}},
        "required": ["corpus"],
    });
    if let Some(extra) = fields {
        if let (Some(props), Some(more)) = (
            s["properties"].as_object_mut(),
            extra["properties"].as_object(),
        ) {
            props.extend(more.clone());
        }
        if let (Some(req), Some(more)) =
            (s["required"].as_array_mut(), extra["required"].as_array())
        {
            req.extend(more.iter().cloned());
        }
    }
    s
}

/// What both search tools report about what was read.
fn totals() -> Value {
    json!({
        "total": {"type": "integer", "minimum": 0, "description": "Videos (posts) that match, after folding mirrors."},
        "total_hits": {"type": "integer", "minimum": 0, "description": "Confirmed hits in all of them, aliases and fuzzy variants included."},
        "exact": {
            "type": "object",
            "description": "Videos and hits of the query exactly as typed, without aliases and fuzzy variants: the number to quote.",
            "properties": {"videos": {"type": "integer", "minimum": 0}, "hits": {"type": "integer", "minimum": 0}},
            "required": ["videos", "hits"]
        },
        "undated_left_out": {"type": "integer", "minimum": 0},
        "pages_read": {"type": "integer", "minimum": 0},
        "index": {"type": "string"},
        "notes": {"type": "array", "items": {"type": "string"}, "description": "What the answer's notes say that no other field carries (the also-heard lines are in also_heard)."},
        "coverage": {"type": "object", "properties": {"partial": {"type": "boolean"}}, "required": ["partial"]},
        "unreadable": {"type": "array", "items": {"type": "string"}}
    })
}

fn with_totals(mut props: Value, required: &[&str]) -> Value {
    if let (Some(p), Some(t)) = (props.as_object_mut(), totals().as_object()) {
        p.extend(t.clone());
    }
    let mut req: Vec<&str> = vec!["total", "total_hits", "exact", "pages_read", "index"];
    req.extend(required);
    json!({"properties": props, "required": req})
}

/// `enumerate_matches`: one page of the worklist.
pub fn enumerate() -> Value {
    let row = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "channel": {"type": "string", "description": "Absent when every row is in the page's `channel`."},
            "date": {"type": ["string", "null"]}, "matches": {"type": "integer", "minimum": 0}
        },
        "required": ["id", "matches"]
    });
    let mut s = schema(Some(with_totals(
        json!({
            "first_row": {"type": "integer", "minimum": 1},
            "channel": {"type": "string", "description": "The channel of every row, when they share one (the rows then leave it out)."},
            "batch_size": {"type": "integer"},
            "batches": {"type": "integer"},
            "videos": {"type": "array", "items": row},
            "next_cursor": {"type": ["string", "null"], "description": "Pass it back to get the next page; null on the last."}
        }),
        &["videos", "next_cursor"],
    )));
    // What the list's scan said is said once, on its first page; the
    // pages a cursor gives carry the rows and the counts.
    for key in [
        "undated_left_out",
        "notes",
        "coverage",
        "unreadable",
        "batch_size",
        "batches",
    ] {
        if let Some(p) = s["properties"][key].as_object_mut() {
            p.insert(
                "description".into(),
                json!("On the first page only (the call without cursor)."),
            );
        }
    }
    s
}

/// `mention_trend`: counts per period and query, with the speech in scope.
pub fn trend() -> Value {
    let count = json!({"type": "integer", "minimum": 0});
    let top = json!({
        "type": "object",
        "properties": {
            "channel": {"type": "string"}, "id": {"type": "string"}, "title": {"type": "string"},
            "date": {"type": ["string", "null"]}, "hits": count,
            "start": {"type": ["number", "null"], "description": "Seconds to its first timed hit."},
            "link": {"type": ["string", "null"], "description": "The moment's link, else the video's."}
        },
        "required": ["channel", "id", "title", "hits"]
    });
    let cell = json!({
        "type": "object",
        "properties": {
            "videos": count, "hits": count, "exact_hits": count,
            "per_hour": {"type": ["number", "null"]}, "top": top
        },
        "required": ["videos", "hits", "exact_hits"]
    });
    let row = json!({
        "type": "object",
        "properties": {
            "period": {"type": "string", "description": "2014, 2014-Q2, 2014-05, or undated."},
            "videos": count, "hits": count,
            "hours": {"type": "number", "minimum": 0, "description": "Hours of speech in scope in the period."},
            "per_hour": {"type": ["number", "null"], "description": "hits / hours; null with no hours."},
            "by_query": {"type": "object", "additionalProperties": cell}
        },
        "required": ["period", "videos", "hits", "hours", "by_query"]
    });
    let totals = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string"}, "videos": count, "hits": count,
            "exact_videos": count, "exact_hits": count
        },
        "required": ["query", "videos", "hits", "exact_videos", "exact_hits"]
    });
    schema(Some(json!({
        "properties": {
            "by": {"type": "string", "enum": ["month", "quarter", "year"]},
            "queries": {"type": "array", "items": {"type": "string"}},
            "periods": {"type": "array", "items": row},
            "undated": row,
            "totals": {"type": "array", "items": totals, "description": "Per query, what enumerate_matches heads its answer with."},
            "hours": {"type": "object", "properties": {
                "unknown_length": count,
                "sites_without_summaries": {"type": "array", "items": {"type": "string"}}
            }},
            "tops_included": {"type": "boolean"},
            "coverage_partial": {"type": "boolean"}
        },
        "required": ["by", "queries", "periods", "undated", "totals", "tops_included", "coverage_partial"]
    })))
}
