"""The answer contract, checked with the real Python `mcp` client in both
protocol eras against any archive: every tool's answer (text plus
structured content as sent) fits `max_chars` at every budget, errors
included; a page lists something while more remain, and walking a
search by `offset` or a worklist by `cursor` at the smallest budget
reaches every video exactly once; every structured answer validates
against the tool's generated output schema and holds no key it does not
declare.

Usage: python3 contract.py BINARY ARCHIVE_DIR INDEX_DIR QUERY [QUERY ...]
           [--env NAME=VALUE ...] [--editor-channel SLUG] [--link URL]

The first QUERY is searched, paged and windowed; the others join it in
mention_trend and get_transcripts. `--env` passes settings to the server
(the fake editor's address, say); `--editor-channel` names a channel the
editor archives (fetch_clip, enqueue, get_job and channel_coverage then
answer), `--link` a share link of the archive for open_link. Prints one JSON object per check and
the figures; exits 1 on the first failure.
"""

import asyncio
import json
import os
import sys

import jsonschema
from mcp import Client
from mcp.client.stdio import StdioServerParameters

BUDGETS = [2000, 10_000, 40_000, 150_000]


def check(condition, what, detail=""):
    if not condition:
        print(json.dumps({"check": what, "ok": False, "detail": str(detail)[:3000]}))
        sys.exit(1)
    print(json.dumps({"check": what, "ok": True}))


def text_of(result):
    return "".join(b.text for b in result.content if getattr(b, "type", "") == "text")


def size(result):
    """What max_chars bounds: the text and the compact JSON as sent."""
    structured = result.structured_content
    sent = "" if structured is None else json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
    return len(text_of(result)) + len(sent)


def undeclared(value, schema, path="$"):
    """The keys of `value` that `schema` does not declare, at any depth."""
    if not isinstance(schema, dict):
        return []
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        # Declared when the schema's own properties or some branch's
        # declare it.
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}

        def merged(branch):
            props = {**rest.get("properties", {}), **branch.get("properties", {})}
            return {**rest, **branch, **({"properties": props} if props else {})}
        return min((undeclared(value, merged(b), path) for b in branches), key=len)
    found = []
    for part in schema.get("allOf", []):
        found += undeclared(value, part, path)
    if isinstance(value, dict) and ("properties" in schema or "additionalProperties" in schema):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in props:
                found += undeclared(item, props[key], f"{path}.{key}")
            elif isinstance(extra, dict):
                found += undeclared(item, extra, f"{path}.{key}")
            else:
                found.append(f"{path}.{key}")
    elif isinstance(value, dict) and not schema.get("allOf"):
        found += [f"{path}.{key}" for key in value]
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            found += undeclared(item, schema["items"], f"{path}[{i}]")
    return found


def resolve_refs(schema, root=None):
    """The schema with every local `$ref` replaced by what it points to."""
    root = root or schema
    if isinstance(schema, dict):
        if "$ref" in schema and schema["$ref"].startswith("#/"):
            target = root
            for part in schema["$ref"][2:].split("/"):
                target = target[part]
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return resolve_refs({**target, **rest}, root)
        return {k: resolve_refs(v, root) for k, v in schema.items()}
    if isinstance(schema, list):
        return [resolve_refs(v, root) for v in schema]
    return schema


async def sample(client, query):
    """Ids from the archive itself: videos, a channel, a report, a post."""
    found = (await client.call_tool("search_transcripts", {"query": query, "limit": 40, "max_chars": 150_000})).structured_content
    videos = [(v["channel"], v["slug"]) for v in found["videos"] if v.get("kind", "video") == "video"]
    reports = (await client.call_tool("list_reports", {})).structured_content or {}
    report_ids = [r["id"] for r in reports.get("reports", []) if "id" in r]
    posts = (await client.call_tool("search_transcripts", {"query": query, "scopes": ["posts"], "limit": 1})).structured_content
    post_ids = [v["slug"] for v in (posts or {}).get("videos", [])]
    return videos, report_ids, post_ids


def calls(archive, queries, videos, reports, posts, options):
    """One call of every tool, shaped to give a long answer."""
    q = queries[0]
    channel, video = videos[0]
    editor = options.get("editor_channel")
    clip_channel, clip_video = next(((c, v) for c, v in videos if c == editor), videos[0])
    ids = [slug for _, slug in videos[:20]]
    out = [
        ("list_channels", {}),
        ("list_tags", {}),
        ("list_reports", {}),
        ("search_transcripts", {"query": q, "limit": 200}),
        ("search_transcripts", {"query": q, "limit": 200, "fuzzy": 2}),
        ("enumerate_matches", {"query": q, "fuzzy": 2}),
        ("mention_trend", {"queries": queries, "by": "month"}),
        ("similar_terms", {"word": q}),
        ("significant_terms", {"query": q, "limit": 1000, "min_videos": 1}),
        ("find_passages", {"query": q, "limit": 50}),
        ("related_videos", {"video_id": video, "channel": channel, "terms": 100, "limit": 200}),
        ("get_transcript", {"video_id": video}),
        ("get_transcripts", {"video_ids": ids}),
        ("get_transcripts", {"video_ids": ids, "queries": queries}),
        ("get_video_metadata", {"video_id": video, "channel": channel}),
        ("fetch_clip", {"channel": clip_channel, "video": clip_video, "start": 1, "end": 5, "wait_seconds": 0, "reason": "the contract test"}),
        ("get_job", {"job": options.get("job", "no-such-job")}),
        ("channel_coverage", {"channel": editor or channel, "list": True}),
        ("notes", {}),
        ("list_sources", {}),
        ("resolve_source", {"source": f"local:{archive}"}),
        ("transcript", {"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "asr": False}),
        ("sweep_plan", {"request": f"what was said about {q}?"}),
        ("ask_plan", {"request": f"what was said about {q}?"}),
        ("open_link", {"link": options.get("link", "https://example.org/?qt=eyJxIjoieCJ9"), "dry_run": True}),
        ("open_link", {"link": options.get("link", "https://example.org/?qt=eyJxIjoieCJ9"), "limit": 200}),
    ]
    out += [("enqueue", {"channel": editor, "kind": "sync"})] if editor else []
    out += [("get_report", {"report": r}) for r in reports[:1]]
    out += [(tool, {"post_id": p}) for p in posts[:1] for tool in ("get_post", "get_thread")]
    return out


async def budgets(client, mode, schemas, archive, queries, sampled, options):
    """Every tool at every budget: within it, and true to its schema."""
    answers, worst, validated, errors = 0, 0.0, set(), {}
    for tool, args in calls(archive, queries, *sampled, options):
        for budget in BUDGETS:
            result = await client.call_tool(tool, {**args, "max_chars": budget})
            answers += 1
            n = size(result)
            worst = max(worst, n / budget)
            check(n <= budget, f"{mode}: {tool} {args} fits max_chars {budget}", f"{n} characters:\n{text_of(result)[-1500:]}")
            structured = result.structured_content
            if structured is None or result.is_error:
                errors.setdefault(tool, text_of(result)[:300])
                continue
            validated.add(tool)
            schema = resolve_refs(schemas[tool])
            try:
                jsonschema.validate(structured, schema)
            except jsonschema.ValidationError as e:
                check(False, f"{mode}: {tool} answers what its output schema says", f"{e.message} at {list(e.absolute_path)}")
            extra = undeclared(structured, schema)
            check(not extra, f"{mode}: {tool} at {budget} declares every key it returns", extra[:20])
    print(json.dumps({"errors_by_tool": errors}))
    return answers, worst, sorted(validated)


async def walk_offsets(client, mode, query):
    """A search followed by offset at the smallest budget."""
    seen, offset, pages, total = [], 0, 0, None
    while True:
        page = (await client.call_tool("search_transcripts", {"query": query, "offset": offset, "max_chars": 2000})).structured_content
        total = page["total"]
        listed = [(v["channel"], v["slug"]) for v in page["videos"]]
        pages += 1
        check(listed or not page["has_more"], f"{mode}: search page {pages} at 2,000 lists a video while more remain", page)
        seen += listed
        offset += len(listed)
        if not page["has_more"]:
            break
    check(len(seen) == total and len(set(seen)) == total, f"{mode}: {pages} search pages by offset reach all {total} videos once", (len(seen), len(set(seen)), total))
    return pages, total


async def walk_cursor(client, mode, query):
    """A worklist followed by cursor at the smallest budget."""
    seen, args, pages = [], {"query": query, "max_chars": 2000}, 0
    while True:
        page = (await client.call_tool("enumerate_matches", args)).structured_content
        pages += 1
        rows = page["videos"]
        check(rows or not page["next_cursor"], f"{mode}: worklist page {pages} lists a row while more remain", page)
        seen += [(r.get("channel", page.get("channel")), r["id"]) for r in rows]
        if pages == 1:
            total = page["total"]
        if not page["next_cursor"]:
            break
        args["cursor"] = page["next_cursor"]
    check(len(seen) == total and len(set(seen)) == total, f"{mode}: {pages} worklist pages by cursor reach all {total} rows once", (len(seen), total))
    return pages


async def run(mode, params, archive, queries, options):
    async with Client(params, mode=mode) as client:
        tools = (await client.list_tools()).tools
        schemas = {t.name: t.output_schema for t in tools}
        generated = [t.name for t in tools if t.output_schema and "$schema" in t.output_schema]
        check(len(generated) == len(tools), f"{mode}: every tool declares an output schema generated from its type", [t.name for t in tools if t.name not in generated])
        videos, reports, posts = await sample(client, queries[0])
        check(videos, f"{mode}: {queries[0]!r} finds videos to read", queries[0])
        if options.get("editor_channel"):
            queued = await client.call_tool("enqueue", {"channel": options["editor_channel"], "kind": "sync"})
            check(not queued.is_error, f"{mode}: enqueue on the editor's channel", text_of(queued))
            options["job"] = queued.structured_content["jobId"]
        answers, worst, validated = await budgets(client, mode, schemas, archive, queries, (videos, reports, posts), options)
        search_pages, total = await walk_offsets(client, mode, queries[0])
        worklist_pages = await walk_cursor(client, mode, queries[0])
        print(json.dumps({"figures": mode, "answers": answers, "budgets": BUDGETS, "largest_share_of_budget": round(worst, 3),
                          "search_pages_at_2000": search_pages, "worklist_pages_at_2000": worklist_pages, "videos": total,
                          "answers_validated_against_their_schema_by_tool": validated}))


def option(args, name):
    """The value of `--name VALUE` in `args` (removed from them), or None."""
    if name not in args:
        return None
    at = args.index(name)
    value = args[at + 1]
    del args[at:at + 2]
    return value


async def main():
    args = sys.argv[1:]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), "yt_dlp_path": "/no/such/yt-dlp"}
    while "--env" in args:
        name, value = option(args, "--env").split("=", 1)
        env[name] = value
    options = {k: v for k, v in (("editor_channel", option(args, "--editor-channel")), ("link", option(args, "--link"))) if v}
    binary, archive, index, *queries = args
    params = StdioServerParameters(command=binary, args=["--local", archive, "--index", index], env=env)
    for mode in ("auto", "legacy"):
        await run(mode, params, archive, queries, dict(options))


asyncio.run(main())
