//! The pieces the tools' input schemas are built from (literal JSON
//! Schema): the filter properties search and enumerate share, the query
//! properties, and closed objects. The schemas themselves sit beside each
//! tool's handler in [`super::registry`].

use archilyzer_core::query::FILTERS;
use serde_json::{json, Map, Value};

/// The properties `search_transcripts` and `enumerate_matches` share, so
/// the two can never disagree about what can be filtered: every filter of
/// the one table ([`archilyzer_core::query::FILTERS`]), with the older
/// singular forms, and the search options beside them.
pub fn filter_properties() -> Map<String, Value> {
    let Value::Object(mut map) = json!({
        "exclude": {"type": "array", "items": {"type": "string"}, "description": "Drop videos that also match any of these (never alias-expanded)."},
        "scopes": {"type": "array", "items": {"type": "string"}, "description": "Fields to search: transcripts, chat, description, tags, metadata, posts. Default: captions and titles."},
        "max_pages": {"type": "integer", "minimum": 1, "description": "Scan cap (default 400); past it the result says PARTIAL and names the channels not reached."},
        "fuzzy": {"type": "integer", "minimum": 0, "maximum": 2, "description": "Also search the vocabulary's words within this many edits of each query word of 5+ letters (what speech recognition misheard), one word varied at a time; each expansion is named with its own hit count, and exact matches are always kept. Needs an index; not for regex (default 0)."},
        "use_aliases": {"type": "boolean", "description": "Expand a plain query through the curated aliases of the site each video belongs to (default true); the answer names the aliases that fired."},
        "collapse_duplicates": {"type": "boolean", "description": "Fold mirrors of one recording into one row, naming the copies (default true)."},
        "source": {"type": "string", "description": "Corpus handle (default: the startup source); see list_sources."}
    }) else {
        unreachable!("a literal object")
    };
    for f in FILTERS {
        map.insert(f.name.to_string(), f.schema());
        if let Some(one) = f.singular {
            let help = format!("Older singular form of {}.", f.name);
            map.insert(
                one.to_string(),
                json!({"type": "string", "description": help}),
            );
        }
    }
    map
}

pub fn object(properties: Map<String, Value>, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

pub fn with(mut base: Map<String, Value>, extra: Value) -> Map<String, Value> {
    if let Value::Object(e) = extra {
        base.extend(e);
    }
    base
}

/// The shared properties named, worded as search words them.
pub fn shared(names: &[&str]) -> Map<String, Value> {
    let all = filter_properties();
    names
        .iter()
        .filter_map(|n| all.get(*n).map(|v| (n.to_string(), v.clone())))
        .collect()
}

pub fn source_only() -> Map<String, Value> {
    shared(&["source"])
}

/// The properties of a query: the words, or a regex.
pub fn query_properties() -> Value {
    json!({
        "query": {"type": "string", "description": "Words to find (a phrase of whole words; a final * makes the last a prefix), or a regex with regex:true."},
        "regex": {"type": "boolean", "description": "Treat query as a regex over the raw caption text."}
    })
}
