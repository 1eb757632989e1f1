//! The tree's own rules, read from its source: a wire format is read
//! through a serde type, never by string key.

use std::path::{Path, PathBuf};

/// The crates that ship (the fuzzer, the test kit and the developer
/// tool do not).
const SHIPPED: &[&str] = &[
    "shared/src",
    "shared/embed/src",
    "indexer/src",
    "server/src",
];

/// Files whose work is JSON of any shape, where a key is a JSON Schema
/// keyword or a member a check is about: they may read by key.
const READS_ANY_JSON: &[(&str, &str)] = &[
    (
        "server/src/tools/validate.rs",
        "checks a call's arguments against the tool's JSON Schema",
    ),
    (
        "server/src/tools/bounds.rs",
        "reads the bounds a tool's input schema declares",
    ),
    (
        "server/src/tools/args.rs",
        "shapes the input schemas schemars generates",
    ),
    (
        "server/src/tools/registry.rs",
        "drops the hidden arguments from the advertised input schemas",
    ),
    (
        "server/src/output.rs",
        "shapes the output schemas schemars generates",
    ),
];

/// A line that may read a map by a literal key says why at its end.
const NOT_JSON: &str = "// not JSON:";

#[test]
fn no_shipped_code_reads_json_by_string_key() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for dir in SHIPPED {
        for file in rust_files(&root.join(dir)) {
            let name = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if READS_ANY_JSON.iter().any(|(f, _)| *f == name) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in shipped_lines(&text) {
                if reads_by_key(line) && !line.contains(NOT_JSON) {
                    found.push(format!("{name}:{n}: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "JSON read by string key (read it through a serde type, or end the line with \
         `{NOT_JSON} why` when the map is not JSON):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_key_read_check_sees_both_forms_and_not_writes() {
    assert!(reads_by_key(r#"let a = v["kind"].as_str();"#));
    assert!(reads_by_key(r#"let a = v.get("kind");"#));
    assert!(!reads_by_key(r#"body["ids"] = json!(ids);"#));
    assert!(!reads_by_key(r#"let a = v.get(k);"#));
    assert!(!reads_by_key(r#"format!("[\"{x}\"]")"#));
    let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    v[\"x\"];\n}\n";
    assert_eq!(shipped_lines(text).count(), 1);
}

/// Whether a line indexes by a string literal (`v["key"]`, not an
/// assignment to one) or calls `.get("key")`.
fn reads_by_key(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or(line);
    let indexed = code.match_indices("[\"").any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let literal_key = code[at + 2..].split_once("\"]").is_some_and(|(key, _)| {
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        });
        let assigned = code[at..]
            .split_once("\"]")
            .is_some_and(|(_, rest)| rest.trim_start().starts_with("= "));
        before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ']' || c == ')')
            && literal_key
            && !assigned
    });
    indexed || code.contains(".get(\"")
}

/// The lines before the file's test module, numbered from 1.
fn shipped_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "))
        .unwrap_or(lines.len());
    lines
        .into_iter()
        .take(end)
        .enumerate()
        .map(|(i, l)| (i + 1, l))
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}
