//! The tools' input schemas, as literal JSON Schema, and the validation of
//! arguments against them (unknown names and wrong types are refused with a
//! message saying what to pass).

use serde_json::{json, Map, Value};

/// The filter properties `search_transcripts` and `enumerate_matches` share,
/// so the two can never disagree about what can be filtered.
pub fn filter_properties() -> Map<String, Value> {
    let Value::Object(map) = json!({
        "states": {"type": "array", "items": {"type": "string"}, "description": "Keep only videos in these states: available, maybe_missing, deleted, private, members_only, unlisted."},
        "date_from": {"type": "string", "description": "Uploaded on or after, YYYYMMDD."},
        "date_to": {"type": "string", "description": "Uploaded on or before, YYYYMMDD."},
        "media_type": {"type": "string", "description": "video or livestream."},
        "age": {"type": "string", "description": "all_ages or restricted."},
        "channels": {"type": "array", "items": {"type": "string"}, "description": "Channel slugs or names (additive with groups)."},
        "groups": {"type": "array", "items": {"type": "string"}, "description": "Channel groups by id or name."},
        "channel": {"type": "string", "description": "Old singular form of channels."},
        "group": {"type": "string", "description": "Old singular form of groups."},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "Curated tags (ids or labels, see list_tags)."},
        "exclude": {"type": "array", "items": {"type": "string"}, "description": "Drop videos that also match any of these (never alias-expanded)."},
        "scopes": {"type": "array", "items": {"type": "string"}, "description": "Fields to search: transcripts, chat, description, tags, metadata, posts. Default: captions and titles."},
        "max_pages": {"type": "integer", "minimum": 1, "description": "Scan cap (default 400); past it the result says PARTIAL and names the channels not reached."},
        "use_aliases": {"type": "boolean", "description": "Expand a plain query through the archive's curated aliases (default true)."},
        "collapse_duplicates": {"type": "boolean", "description": "Fold mirrors of one recording into one row, naming the copies (default true)."},
        "source": {"type": "string", "description": "Corpus handle (default: the startup source); see list_sources."}
    }) else {
        unreachable!("a literal object")
    };
    map
}

fn object(properties: Map<String, Value>, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn with(mut base: Map<String, Value>, extra: Value) -> Map<String, Value> {
    if let Value::Object(e) = extra {
        base.extend(e);
    }
    base
}

fn source_only() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("source".into(), filter_properties()["source"].clone());
    m
}

/// (name, description, input schema) of every advertised tool, in order.
pub fn tools() -> Vec<(&'static str, &'static str, Value)> {
    let query = json!({
        "query": {"type": "string", "description": "Words to find (a phrase of whole words; a final * makes the last a prefix), or a regex with regex:true."},
        "regex": {"type": "boolean", "description": "Treat query as a regex over the raw caption text."}
    });
    vec![
        (
            "list_channels",
            "List the archive's channels under their groups, with video counts and a group cheat-sheet for scoping.",
            object(with(source_only(), json!({"refresh": {"type": "boolean", "description": "Drop every cache of this source first."}})), &[]),
        ),
        (
            "list_tags",
            "The curated tags the archive publishes (what the tags filter takes): id, label, group, and how many videos carry each, per channel.",
            object(source_only(), &[]),
        ),
        (
            "list_reports",
            "The cited reports a site publishes: title, kind, claim and citation counts, a fact-check's verdict tally. A hub has none of its own: pass a member as source.",
            object(source_only(), &[]),
        ),
        (
            "get_report",
            "One report: its verdict tally, each claim with its verdict and findings, and every citation's verbatim quote, original link and the site's moment page.",
            object(
                with(source_only(), json!({
                    "report": {"type": "string", "description": "The report id, as list_reports shows it."},
                    "section": {"type": "string", "description": "Only this section (id or title)."}
                })),
                &["report"],
            ),
        ),
        (
            "search_transcripts",
            "Search captions (and optionally other fields) for a phrase or regex; returns matching videos with timestamped, linked snippets. Pageable and filterable. Use enumerate_matches to count or cover everything.",
            object(
                with(
                    with(filter_properties(), query.clone()),
                    json!({
                        "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Videos per page (default 20)."},
                        "offset": {"type": "integer", "minimum": 0, "description": "Skip this many matching videos."},
                        "include_snippets": {"type": "boolean", "description": "false: a cheap worklist without cue text."},
                        "link_style": {"type": "string", "enum": ["inline", "base"], "description": "inline links per line, or one moment_base line per video with [mm:ss|seconds] stamps."}
                    }),
                ),
                &["query"],
            ),
        ),
        (
            "enumerate_matches",
            "A query's complete match set as a worklist (id, title, channel, date, match count) in one scan, with the batch count. Same filters as search_transcripts.",
            object(
                with(with(filter_properties(), query), json!({"batch_size": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Videos per batch for the batch count (default 12)."}})),
                &["query"],
            ),
        ),
        (
            "get_transcript",
            "One video's full transcript as markdown: metadata and linked, timestamped captions.",
            object(
                with(source_only(), json!({
                    "video_id": {"type": "string", "description": "The video's id (slug) as results show it."},
                    "channel": {"type": "string", "description": "The owning channel, to speed the lookup."}
                })),
                &["video_id"],
            ),
        ),
        (
            "get_transcripts",
            "Read up to 20 videos (or posts) in one call: whole transcripts, or with query/queries (up to 8) bounded windows of linked lines around the matches, with per-query counts.",
            object(
                with(source_only(), json!({
                    "video_ids": {"type": "array", "items": {"type": "string"}, "description": "Up to 20 ids; more are dropped and named."},
                    "query": {"type": "string", "description": "Window the transcripts around this phrase (or regex)."},
                    "queries": {"type": "array", "items": {"type": "string"}, "description": "Several queries at once (with query, at most 8); counts are reported per query."},
                    "regex": {"type": "boolean", "description": "The queries are regexes."},
                    "before": {"type": "integer", "minimum": 0, "maximum": 600, "description": "Seconds before each match (default 30)."},
                    "after": {"type": "integer", "minimum": 0, "maximum": 600, "description": "Seconds after each match (default 30)."},
                    "max_lines": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Lines per video with a query (default 200; the earliest are kept)."},
                    "content_types": {"type": "array", "items": {"type": "string"}, "description": "video and/or post (default both)."},
                    "link_style": {"type": "string", "enum": ["inline", "base"], "description": "inline links, or a moment_base line and [mm:ss|seconds] stamps."},
                    "channel": {"type": "string", "description": "Owning channel hint."},
                    "channels": {"type": "array", "items": {"type": "string"}, "description": "Owning channel hints."}
                })),
                &["video_ids"],
            ),
        ),
        (
            "get_post",
            "One archived social post. Posts have no timeline: cite them with no time.",
            object(with(source_only(), json!({"post_id": {"type": "string", "description": "The post's id."}})), &["post_id"]),
        ),
        (
            "get_thread",
            "A post's whole thread, in order.",
            object(with(source_only(), json!({"post_id": {"type": "string", "description": "The id of any post of the thread."}})), &["post_id"]),
        ),
        (
            "get_video_metadata",
            "Everything known about one video without its transcript: metadata, view/like counts, cue count and coverage, other archived copies with their timing-alignment verdict, and AI chapters.",
            object(
                with(source_only(), json!({
                    "video_id": {"type": "string", "description": "The video's id (slug)."},
                    "channel": {"type": "string", "description": "The owning channel, to speed the lookup."}
                })),
                &["video_id"],
            ),
        ),
        (
            "fetch_clip",
            "The media behind a cited moment, fetched by the local Archilyzer editor through its paced, cookie-aware, provenanced job: never run yt-dlp yourself. A window is the cited span plus pad (default 3 s) on each side, at most 15 min; full: true fetches the whole recording into the editor's saved-video store (a video the editor already knows). Waits up to wait_seconds (default 90, max 300), then answers a job id to resume with job; under a client with a 60 s request timeout pass wait_seconds of 50 or less. Pass the citing corpus as source so a Rumble id maps to the editor's. The file is a read-only corpus artifact. Needs ARCHILYZER_EDITOR_URL and WORKER_TOKEN.",
            object(
                with(source_only(), json!({
                    "channel": {"type": "string", "description": "The channel slug, as cited."},
                    "video": {"type": "string", "description": "The archive's video id, as cited."},
                    "start": {"type": ["number", "string"], "description": "Start of the cited span: seconds, mm:ss or h:mm:ss."},
                    "end": {"type": ["number", "string"], "description": "End of the cited span: seconds, mm:ss or h:mm:ss."},
                    "pad": {"type": "number", "description": "Seconds added before and after (default 3)."},
                    "reason": {"type": "string", "description": "One line on why these seconds are needed (stored beside the file; at most 400 characters are kept)."},
                    "report": {"type": "string", "description": "The report this clip is for, if any."},
                    "full": {"type": "boolean", "description": "The whole recording instead of a window; start, end and pad are then ignored."},
                    "maxHeight": {"type": "integer", "minimum": 144, "maximum": 2160, "description": "Cap on the source height (a window defaults to 720)."},
                    "wait_seconds": {"type": "number", "description": "How long to wait for the editor's job (default 90, 0 to 300)."},
                    "job": {"type": "string", "description": "Resume waiting for this job (the other arguments are then ignored)."}
                })),
                &[],
            ),
        ),
        (
            "get_job",
            "One editor job: kind, channel, status, times, exit code, its place in its queue, and the last tail log lines. For a job id enqueue or fetch_clip answered. Needs the editor.",
            object(
                json!({
                    "job": {"type": "string", "description": "The job id."},
                    "tail": {"type": "integer", "minimum": 0, "maximum": 2000, "description": "Log lines to show (default 40)."}
                }).as_object().cloned().unwrap_or_default(),
                &["job"],
            ),
        ),
        (
            "enqueue",
            "Queue archival work on a channel the editor archives, as its channel page's buttons do: sync (full), download-missing, retry-bucket (bucket, ids: the way to download chosen videos), transcribe-bucket (ids), fetch-posts (full, older), import-video (url). Answers the job id; the editor runs it at each platform's pace. Only when the operator asks. Needs the editor.",
            object(
                json!({
                    "channel": {"type": "string", "description": "The channel slug on the editor."},
                    "kind": {"type": "string", "enum": ["sync", "download-missing", "retry-bucket", "transcribe-bucket", "fetch-posts", "import-video"], "description": "The operation."},
                    "full": {"type": "boolean", "description": "sync, fetch-posts: everything, not only what is new."},
                    "older": {"type": "boolean", "description": "fetch-posts: go further back than the oldest post held."},
                    "bucket": {"type": "string", "description": "retry-bucket: which bucket of videos to retry."},
                    "ids": {"type": "array", "items": {"type": "string"}, "description": "retry-bucket, transcribe-bucket: the video ids."},
                    "url": {"type": "string", "description": "import-video: the video's http(s) URL."}
                }).as_object().cloned().unwrap_or_default(),
                &["channel", "kind"],
            ),
        ),
        (
            "channel_coverage",
            "What a channel holds on the editor's disk, by date: count, first and last day, per year, and every gap longer than gap_days; date_from/date_to narrow it, list lists the videos. Videos are dated by their recorded date when the channel has a title rule, else their upload date. Needs the editor.",
            object(
                json!({
                    "channel": {"type": "string", "description": "The channel slug on the editor."},
                    "gap_days": {"type": "integer", "minimum": 1, "description": "Report stretches longer than this many days with no video (default 30)."},
                    "date_from": {"type": "string", "description": "From this day, YYYYMMDD."},
                    "date_to": {"type": "string", "description": "To this day, YYYYMMDD."},
                    "list": {"type": "boolean", "description": "List every video with its date."}
                }).as_object().cloned().unwrap_or_default(),
                &["channel"],
            ),
        ),
        (
            "notes",
            "The operator's notes in umtool on articles and report-video projects: list (every open note, by target), read (one target's digest, anchors resolved, and the source file to edit), reply (answers the umtool command to run; nothing is posted). Needs UMTOOL_URL.",
            object(
                json!({
                    "action": {"type": "string", "enum": ["list", "read", "reply"], "description": "list (default), read or reply."},
                    "target": {"type": "string", "description": "read, reply: the target as list names it."},
                    "note": {"type": "string", "description": "reply: the note's id."},
                    "text": {"type": "string", "description": "reply: what to answer."}
                }).as_object().cloned().unwrap_or_default(),
                &[],
            ),
        ),
        (
            "open_link",
            "Re-run a viewer share link here at full fidelity (its query tree of AND/OR/NOT over any scopes, and every filter) in one call: the plan, the first page of linked results, and the corpus handle to pass as source from then on. dry_run for the plan alone; overrides to adjust it.",
            object(
                json!({
                    "link": {"type": "string", "description": "The share link, as pasted."},
                    "dry_run": {"type": "boolean", "description": "Return the plan without searching."},
                    "overrides": {"type": "object", "description": "Adjustments: clear_availability, clear_type, clear_age, clear_dates, clear_filters, clear_channels (true), channels [..], date_from, date_to (YYYYMMDD), query, regex, query_scope (transcripts, chat, metadata, description, tags, posts)."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Videos per page (default 20)."},
                    "offset": {"type": "integer", "minimum": 0, "description": "Skip this many matching videos."},
                    "collapse_duplicates": {"type": "boolean", "description": "Fold mirrors of one recording into one row, naming the copies (default true)."}
                }).as_object().cloned().unwrap_or_default(),
                &["link"],
            ),
        ),
        (
            "list_sources",
            "Show the default corpus and, for a hub, its member sites as ready-to-paste source handles.",
            object(Map::new(), &[]),
        ),
        (
            "resolve_source",
            "Turn a URL, member name or handle into the canonical source handle and check that it can be read.",
            object(source_only(), &["source"]),
        ),
        (
            "transcript",
            "The spoken words of any video URL (YouTube, TikTok and whatever else yt-dlp fetches), even one not in the archive: its captions when it has any, else speech-to-text on this machine. Answers url, platform, title, channel, duration_s, upload_date, caption_source (manual, auto or asr), lang, n_segments, chars, segments [{t, text}] and text with [h:mm:ss] markers; a speech-to-text result adds asr {model, language, mean_logprob, confident}: branch on confident, a false one is not evidence.",
            object(
                json!({
                    "url": {"type": "string", "description": "The video's http(s) URL."},
                    "lang": {"type": "string", "description": "Caption language to prefer (default en); the original audio's captions are used over a machine translation."},
                    "asr": {"type": "boolean", "description": "Transcribe the audio when there are no captions (default true)."},
                    "asr_model": {"type": "string", "description": "Whisper model (default small)."}
                }).as_object().cloned().unwrap_or_default(),
                &["url"],
            ),
        ),
        (
            "sweep_plan",
            "Turn a /sweep request (plain English, a share link anywhere in it, key=value settings: channels, groups, batch_size, parse_model, report, directive, source, content_types, regex) into a resolved, step-by-step map-reduce plan over the complete worklist. Pass the request exactly as typed.",
            object(with(source_only(), json!({"request": {"type": "string", "description": "The whole request, as typed."}})), &["request"]),
        ),
        (
            "ask_plan",
            "Turn an /ask question (plain English, a share link anywhere in it, key=value settings) into a resolved, step-by-step plan: scope, find, read, answer with linked citations.",
            object(with(source_only(), json!({"request": {"type": "string", "description": "The whole question, as typed."}})), &["request"]),
        ),
    ]
}

/// The schema of a tool, advertised or not (`use_source` is an alias).
pub fn schema_of(name: &str) -> Option<Value> {
    if name == "use_source" {
        return Some(object(source_only(), &["source"]));
    }
    tools().into_iter().find(|t| t.0 == name).map(|t| t.2)
}

/// Checks `args` against `schema`: no unknown names, every required one
/// present, each of the declared type and range.
pub fn validate(tool: &str, schema: &Value, args: &Map<String, Value>) -> Result<(), String> {
    let props = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (name, value) in args {
        let Some(spec) = props.get(name) else {
            let known: Vec<&String> = props.keys().collect();
            return Err(format!(
                "{tool} has no argument `{name}`; it takes: {}",
                known
                    .iter()
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        check_value(tool, name, spec, value)?;
    }
    for r in schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_str())
    {
        if !args.contains_key(r) {
            return Err(format!(
                "{tool} needs `{r}`: {}",
                props[r]["description"].as_str().unwrap_or("")
            ));
        }
    }
    Ok(())
}

fn check_value(tool: &str, name: &str, spec: &Value, value: &Value) -> Result<(), String> {
    let bad = |want: &str| Err(format!("{tool}: `{name}` must be {want}, got {value}"));
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
        _ => match spec["enum"].as_array() {
            Some(allowed) if !allowed.contains(value) => {
                bad(&format!("one of {}", Value::Array(allowed.clone())))
            }
            _ => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_closed_and_search_and_enumerate_share_the_filters() {
        for (name, _, schema) in tools() {
            assert_eq!(schema["additionalProperties"], false, "{name}");
        }
        let s = schema_of("search_transcripts").unwrap();
        let e = schema_of("enumerate_matches").unwrap();
        for key in filter_properties().keys() {
            assert!(
                s["properties"].get(key).is_some() && e["properties"].get(key).is_some(),
                "{key}"
            );
        }
    }

    #[test]
    fn bad_arguments_say_what_to_pass() {
        let s = schema_of("search_transcripts").unwrap();
        let args = |v: Value| v.as_object().unwrap().clone();
        let e = validate(
            "search_transcripts",
            &s,
            &args(json!({"query": "x", "limt": 3})),
        )
        .unwrap_err();
        assert!(
            e.starts_with("search_transcripts has no argument `limt`; it takes: "),
            "{e}"
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
        assert!(e.contains("must be one of [\"inline\",\"base\"]"), "{e}");
    }
}
