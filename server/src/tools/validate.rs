//! Checking a call's arguments against its tool's input schema: no
//! unknown names, every required one present, each within its bound
//! ([`super::bounds`]) and of the declared type and range; the message
//! says what to pass, quoting at most a short prefix of what was sent.

use serde_json::{Map, Value};

use super::bounds::{quote, quote_value};

/// Checks `args` against `schema`: no unknown names (with the nearest
/// known one as a hint), every required one present, each of the declared
/// type and range. Returns the arguments to run with: a whole number or a
/// number sent as a numeric string (`"5"`, as some clients send it) is
/// taken as that number.
pub fn validate(
    tool: &str,
    schema: &Value,
    args: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    object(tool, "", schema, args)
}

/// [`validate`] for one object: `args` against the object schema
/// `schema`, its names shown after `path` (`overrides.` for a nested one).
fn object(
    tool: &str,
    path: &str,
    schema: &Value,
    args: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    let props = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut checked = Map::new();
    for (name, value) in args.iter().filter(|(_, v)| !v.is_null()) {
        let singular;
        let spec = match props.get(name) {
            Some(spec) => Some(spec),
            None => {
                singular = singular_of(name, &props);
                singular.as_ref()
            }
        };
        let Some(spec) = spec else {
            let hint = crate::tool::nearest(name, props.keys().map(String::as_str))
                .map_or(String::new(), |k| format!(" (did you mean `{path}{k}`?)"));
            let known: Vec<String> = props.keys().map(|k| format!("{path}{k}")).collect();
            return Err(format!(
                "{tool} has no argument `{}`{hint}; it takes: {}",
                super::bounds::clip(&format!("{path}{name}")),
                known.join(", ")
            ));
        };
        let value = numeric_string(spec, value).unwrap_or_else(|| value.clone());
        let shown = format!("{path}{name}");
        within_bound(tool, &shown, spec, &value)?;
        check_value(tool, &shown, spec, &value)?;
        let value = match (&value, spec.get("properties")) {
            (Value::Object(inner), Some(_)) => {
                Value::Object(object(tool, &format!("{shown}."), spec, inner)?)
            }
            _ => value,
        };
        checked.insert(name.clone(), value);
    }
    for r in schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str())
    {
        if !args.contains_key(r) {
            return Err(format!(
                "{tool} needs `{path}{r}`: {}",
                props[r]["description"].as_str().unwrap_or("")
            ));
        }
    }
    Ok(checked)
}

/// The schema of `name` when it is the singular form of a listed filter
/// (`channel` for `channels`): one string, of the list's item bound.
fn singular_of(name: &str, props: &Map<String, Value>) -> Option<Value> {
    let filter = archilyzer_core::query::FILTERS
        .iter()
        .find(|f| f.singular == Some(name))?;
    let list = props.get(filter.name)?;
    let mut one = list["items"].clone();
    one["description"] = format!("One of {}.", filter.name).into();
    Some(one)
}

/// A numeric string where the schema wants a number: the number it
/// spells (`"5"` → 5), if it spells one of the wanted kind.
fn numeric_string(spec: &Value, value: &Value) -> Option<Value> {
    let text = value.as_str()?.trim();
    match spec["type"].as_str()? {
        "integer" => text.parse::<i64>().ok().map(Value::from),
        "number" => text
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(Value::from),
        _ => None,
    }
}

/// Refuses a string longer than its schema's `maxLength` or a list
/// longer than its `maxItems` (or holding a longer string), naming the
/// bound: checked before the type, so no work is done on such a value.
fn within_bound(tool: &str, name: &str, spec: &Value, value: &Value) -> Result<(), String> {
    use super::bounds::{chars_of, items_of};
    let chars = |v: &Value| v.as_str().map_or(0, |s| s.chars().count());
    if let Value::String(s) = value {
        let (n, max) = (s.chars().count(), chars_of(spec));
        if n > max {
            return Err(format!(
                "{tool}: `{name}` is {n} characters long; the bound is {max}. Sent: {}",
                quote(s)
            ));
        }
    }
    if let Value::Array(items) = value {
        let max = items_of(spec);
        if items.len() > max {
            return Err(format!(
                "{tool}: `{name}` holds {} items; the bound is {max}: split the call, or narrow the list",
                items.len()
            ));
        }
        let item_max = chars_of(&spec["items"]);
        if let Some(long) = items.iter().find(|v| chars(v) > item_max) {
            return Err(format!(
                "{tool}: an item of `{name}` is {} characters long; the bound is {item_max}. Sent: {}",
                chars(long),
                quote_value(long)
            ));
        }
    }
    Ok(())
}

fn check_value(tool: &str, name: &str, spec: &Value, value: &Value) -> Result<(), String> {
    let bad = |want: &str| {
        Err(format!(
            "{tool}: `{name}` must be {want}, got {}",
            quote_value(value)
        ))
    };
    if let Some(types) = spec["type"].as_array() {
        let fits = |t: &Value| match t.as_str() {
            Some("number") => value.is_number(),
            Some("string") => value.is_string(),
            _ => false,
        };
        let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
        return if types.iter().any(fits) {
            Ok(())
        } else {
            bad(&format!("a {}", names.join(" or a ")))
        };
    }
    match spec["type"].as_str() {
        Some("number") if !value.is_number() => bad("a number"),
        Some("object") if !value.is_object() => bad("an object"),
        Some("string") if !value.is_string() => bad("a string"),
        Some("string") => match allowed(spec) {
            Some(allowed) if !allowed.contains(value) => {
                Err(not_one_of(tool, name, &allowed, value))
            }
            _ => Ok(()),
        },
        Some("boolean") if !value.is_boolean() => bad("true or false"),
        Some("array")
            if !value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string)) =>
        {
            bad("a list of strings")
        }
        Some("integer") => {
            let Some(n) = value.as_i64() else {
                return bad("a whole number");
            };
            let min = spec["minimum"].as_i64().unwrap_or(i64::MIN);
            let max = spec["maximum"].as_i64().unwrap_or(i64::MAX);
            if n < min || n > max {
                return bad(&format!(
                    "a whole number from {min} to {}",
                    if max == i64::MAX {
                        "any".to_string()
                    } else {
                        max.to_string()
                    }
                ));
            }
            Ok(())
        }
        _ => match allowed(spec) {
            Some(allowed) if !allowed.contains(value) => {
                bad(&format!("one of {}", Value::Array(allowed)))
            }
            _ => Ok(()),
        },
    }
}

/// The refusal of `value`, which is none of the `allowed` values of
/// `name`: the values, and the nearest one (case-insensitive, within two
/// edits) when one is.
fn not_one_of(tool: &str, name: &str, allowed: &[Value], value: &Value) -> String {
    let names: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
    let hint = value
        .as_str()
        .and_then(|v| crate::tool::nearest(v, names.iter().copied()))
        .map_or(String::new(), |n| format!("; did you mean {n:?}?"));
    format!(
        "{tool}: `{name}` must be one of {}, got {}{hint}",
        names.join(", "),
        quote_value(value)
    )
}

/// The values a schema allows, when it lists them: an `enum`, or a
/// `oneOf` of `const`s (a Rust enum whose variants carry doc comments).
fn allowed(spec: &Value) -> Option<Vec<Value>> {
    if let Some(values) = spec["enum"].as_array() {
        return Some(values.clone());
    }
    let consts: Option<Vec<Value>> = spec["oneOf"]
        .as_array()?
        .iter()
        .map(|v| v.get("const").cloned())
        .collect();
    consts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::registry::find;
    use serde_json::json;

    #[test]
    fn bad_arguments_say_what_to_pass() {
        let s = find("search_transcripts").unwrap().schema.clone();
        let args = |v: Value| v.as_object().unwrap().clone();
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "limt": 3})),
        )
        .unwrap_err();
        assert!(
            e.starts_with(
                "search_transcripts has no argument `limt` (did you mean `limit`?); it takes: "
            ),
            "{e}"
        );
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "zzzzzz": 1})),
        )
        .unwrap_err();
        assert!(
            e.starts_with("search_transcripts has no argument `zzzzzz`; it takes: "),
            "no hint when nothing is close: {e}"
        );
        let ok = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "limit": " 5"})),
        )
        .unwrap();
        assert_eq!(ok["limit"], json!(5), "a numeric string is the number");
        assert_eq!(ok["query"], json!("x"), "a string argument stays a string");
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "limit": "five"})),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "search_transcripts: `limit` must be a whole number, got \"five\""
        );
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "limit": 0})),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "search_transcripts: `limit` must be a whole number from 1 to 200, got 0"
        );
        let e = validate("search_transcripts", &s, &args(json!({"regex": true}))).unwrap_err();
        assert!(e.starts_with("search_transcripts needs `query`"), "{e}");
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "states": "deleted"})),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "search_transcripts: `states` must be a list of strings, got \"deleted\""
        );
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "link_style": "fancy"})),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "search_transcripts: `link_style` must be one of inline, base, got \"fancy\""
        );
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "order": "Newest"})),
        )
        .unwrap_err();
        assert!(
            e.ends_with("got \"Newest\"; did you mean \"newest\"?"),
            "{e}"
        );
    }
}
