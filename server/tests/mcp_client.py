"""Drives the real archilyzer-mcp binary over stdio with the Python `mcp`
client, in both protocol eras, and checks what an agent relies on.

Usage: python3 mcp_client.py BINARY ARCHIVE_DIR INDEX_DIR EDITOR_URL WORKER_TOKEN MADE_JSON UMTOOL_URL
   or: python3 mcp_client.py --http URL BEARER ARCHIVE_DIR WORKER_TOKEN MADE_JSON TRAP_URL
(the second drives a server already serving --http at URL, started with
the same fakes, then sends it hostile requests; TRAP_URL is a loopback
listener that answers `COUNT` with the connections it has had)

MADE_JSON is what `archilyzer-index search --json --share-link --exclude
torlyan --state available --state deleted really` prints for the archive:
the videos and the share link the client opens.
(the editor is the fake one protocol.rs starts; it archives daily-dispatch)
Prints one JSON object per check on stdout; exits 1 on the first failure.
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

EXPECTED_TOOLS = [
    "list_channels",
    "list_tags",
    "list_reports",
    "get_report",
    "search_transcripts",
    "enumerate_matches",
    "mention_trend",
    "similar_terms",
    "significant_terms",
    "find_passages",
    "related_videos",
    "get_transcript",
    "get_transcripts",
    "get_post",
    "get_thread",
    "get_video_metadata",
    "fetch_clip",
    "get_job",
    "enqueue",
    "channel_coverage",
    "notes",
    "open_link",
    "list_sources",
    "resolve_source",
    "transcript",
    "sweep_plan",
    "ask_plan",
]


# Every text a tool answered in this run, so the token check sees them all.
SEEN = []


def text_of(result):
    text = "".join(block.text for block in result.content if getattr(block, "type", "") == "text")
    SEEN.append(text)
    return text


def declares(schema, name):
    """Whether an input schema declares argument `name`: in its properties,
    or named by a patternProperties entry (an argument described in full
    by an earlier tool)."""
    import re
    return name in schema.get("properties", {}) or any(
        re.fullmatch(p, name) for p in schema.get("patternProperties", {}))


def check(condition, what, detail=""):
    if not condition:
        print(json.dumps({"check": what, "ok": False, "detail": detail[:2000]}))
        sys.exit(1)
    print(json.dumps({"check": what, "ok": True}))


def stdio_server(binary, archive, index, editor, token, umtool):
    """The server launched over stdio, with the fakes' addresses."""
    return StdioServerParameters(
        command=binary,
        args=["--local", archive, "--index", index],
        env={
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/tmp"),
            "ARCHILYZER_EDITOR_URL": editor,
            "WORKER_TOKEN": token,
            "ARCHILYZER_LOG": "debug",
            "UMTOOL_URL": umtool,
            "ARCHILYZER_MODEL": os.environ.get("ARCHILYZER_MODEL", ""),
            "yt_dlp_path": "/no/such/yt-dlp",
        },
    )


def http_server(url, bearer):
    """A transport to a server already listening at `url`, sending the token."""
    return streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {bearer}"}))


async def resources(client, mode):
    """Resources and completion: listed, read as the tools answer, refused
    with the nearest name, completed by id prefix and by title words."""
    from mcp.types import PromptReference, ResourceTemplateReference
    listed = await client.list_resources()
    uris = [r.uri for r in listed.resources]
    check("archilyzer://alphalyzer/overview" in uris and "archilyzer://alphalyzer/channel/daily-dispatch" in uris
          and any("/report/" in u for u in uris), f"{mode}: resources/list offers the overview, every channel and the reports", str(uris))
    templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
    transcript_t = "archilyzer://{site}/transcript/{channel}/{video}"
    check(transcript_t in templates, f"{mode}: resources/templates/list offers the transcript template", str(templates))
    channel = (await client.read_resource("archilyzer://alphalyzer/channel/daily-dispatch")).contents[0]
    check(channel.mime_type == "text/markdown" and "archilyzer://alphalyzer/transcript/daily-dispatch/" in channel.text,
          f"{mode}: a channel resource lists its videos with their transcript URIs", channel.text[:400])
    import re as _re
    said = int(_re.search(r"(\d+) video\(s\), newest first", channel.text).group(1))
    listed_ids = [l.rsplit("/", 1)[1] for l in channel.text.splitlines() if l.startswith("- ")]
    check(len(listed_ids) == said and len(set(listed_ids)) == said,
          f"{mode}: a channel resource lists each of its {said} videos once", channel.text[-400:])
    for past in ("archilyzer://alphalyzer/channel/daily-dispatch?part=2", "archilyzer://alphalyzer/overview?part=5"):
        try:
            await client.read_resource(past)
            check(False, f"{mode}: {past} is refused")
        except Exception as e:
            check("this resource has 1 part(s)" in str(e), f"{mode}: {past}, past the last part, is refused naming how many there are", str(e))
    dates = [l.split(" ")[1] for l in channel.text.splitlines() if l.startswith("- ") and l.split(" ")[1][:2] in ("19", "20")]
    check(dates and dates == sorted(dates, reverse=True), f"{mode}: a channel lists its videos newest first", str(dates[:5]))
    uri = "archilyzer://alphalyzer/transcript/daily-dispatch/RTOHlVpUe9M"
    read = (await client.read_resource(uri)).contents[0].text
    tool = text_of(await client.call_tool("get_transcript", {"video_id": "RTOHlVpUe9M", "channel": "daily-dispatch"}))
    check(read.split("\n(corpus:")[0] == tool.split("\n(corpus:")[0], f"{mode}: a transcript resource is get_transcript's text", read[:300])
    for bad, says in [("archilyzer://alphalyzer/transcript/daily-dispatch/RTOHlVpUe9N", "did you mean archilyzer://alphalyzer/transcript/daily-dispatch/RTOHlVpUe9M?"),
                      ("archilyzer://alphalyser/overview", 'did you mean "alphalyzer"?'),
                      ("archilyzer://alphalyzer/channel/daily-dispach", 'did you mean "daily-dispatch"?'),
                      ("archilyzer://alphalyzer/nothing", "the layouts are")]:
        try:
            await client.read_resource(bad)
            check(False, f"{mode}: {bad} is refused")
        except Exception as e:
            check(says in str(e), f"{mode}: {bad} is refused, naming what is near", str(e))
    ref = ResourceTemplateReference(type="ref/resource", uri=transcript_t)
    c = (await client.complete(ref, {"name": "video", "value": "RTOH"})).completion
    check(c.values == ["RTOHlVpUe9M"] and c.total == 1, f"{mode}: completion finds a video by the start of its id", str(c))
    c = (await client.complete(ref, {"name": "video", "value": "dalnexlinve borquewen"}, {"channel": "daily-dispatch"})).completion
    check(c.values == ["RTOHlVpUe9M"], f"{mode}: completion finds a video by two words of its title, in the channel chosen", str(c))
    c = (await client.complete(ref, {"name": "channel", "value": "dai"})).completion
    check(c.values == ["daily-dispatch", "dispatch-rumble"], f"{mode}: completion gives channel slugs, those starting with the value first, then those whose name holds it", str(c))
    c = (await client.complete(PromptReference(type="ref/prompt", name="sweep"), {"name": "channel", "value": "late"})).completion
    check(c.values == ["late-night-live"], f"{mode}: the sweep prompt's channel argument completes", str(c))
    for ref, arg, says in [(PromptReference(type="ref/prompt", name="test_prompt"), "arg1", 'no prompt named "test_prompt" to complete; the one prompt is sweep'),
                           (ref, "report", f'the template {transcript_t} has no argument "report"; its arguments are site, channel, video')]:
        try:
            await client.complete(ref, {"name": arg, "value": "x"})
            check(False, f"{mode}: completing {arg} of {ref} is refused")
        except Exception as e:
            check(says in str(e), f"{mode}: completing what does not exist is refused, naming what does", str(e))


async def passages(client, mode):
    """find_passages: fused ranks, the query's words, texts that fit every
    budget, and a refusal for a ranking that does not exist."""
    result = await client.call_tool("find_passages", {"query": "k cups", "limit": 5})
    s = result.structured_content
    check(not result.is_error and s["by"] == "both" and 0 < len(s["passages"]) <= 5
          and all(set(p) >= {"channel", "video", "title", "start", "end", "text", "score", "rank_meaning", "rank_words", "words"}
                  for p in s["passages"])
          and "search_transcripts" in s["note"],
          f"{mode}: find_passages gives passages with their ranks and says it counts nothing", json.dumps(s)[:600])
    worded = [p for p in s["passages"] if p["words"]]
    check(worded and all(all(w in p["text"].lower() for w in p["words"]) for p in worded),
          f"{mode}: each passage names the query words its text holds", json.dumps(worded)[:600])
    for budget in (2000, 3000, 6000):
        r = await client.call_tool("find_passages", {"query": "k cups", "limit": 20, "max_chars": budget})
        size = len(text_of(r)) + len(json.dumps(r.structured_content, ensure_ascii=False, separators=(",", ":")))
        check(not r.is_error and size <= budget and r.structured_content["passages"],
              f"{mode}: find_passages fits max_chars {budget} ({size})")
    r = await client.call_tool("find_passages", {"query": "k cups", "by": "sideways"})
    check(r.is_error and r.structured_content is None and "sideways" in text_of(r),
          f"{mode}: a ranking that does not exist is refused, naming it", text_of(r)[:300])


async def run(mode, connect, archive, token, made, over_http=False):
    SEEN.clear()
    async with Client(connect(), mode=mode) as client:
        era = client.protocol_version
        expected = era == "2026-07-28" if mode == "auto" else era.startswith("2025-")
        check(expected, f"{mode}: negotiated {era}")
        tools = await client.list_tools()
        names = [t.name for t in tools.tools]
        check(names == EXPECTED_TOOLS, f"{mode}: tools/list is the exact ordered list", str(names))
        await resources(client, mode)
        for t in tools.tools:
            check(t.input_schema.get("additionalProperties") is False, f"{mode}: {t.name} schema is closed")
        for t in tools.tools:
            a = t.annotations
            check(bool(t.title) and a is not None and a.title == t.title and a.destructive_hint is False
                  and a.read_only_hint is not None and a.open_world_hint is not None and a.idempotent_hint is not None,
                  f"{mode}: {t.name} has a title and every annotation", str(a))
            check(isinstance(t.output_schema, dict) and t.output_schema.get("type") == "object"
                  and "corpus" in t.output_schema.get("required", []),
                  f"{mode}: {t.name} declares an output schema", str(t.output_schema)[:300])
        hints = {t.name: (t.annotations.read_only_hint, t.annotations.open_world_hint) for t in tools.tools}
        check(hints["search_transcripts"] == (True, False) and hints["get_transcripts"] == (True, False)
              and hints["fetch_clip"][0] is False and hints["enqueue"][0] is False
              and hints["transcript"] == (True, True),
              f"{mode}: read tools are read-only and closed-world; fetch_clip and enqueue are not read-only", str(hints))
        check("videos" in tools.tools[names.index("search_transcripts")].output_schema["required"]
              and "next_cursor" in tools.tools[names.index("enumerate_matches")].output_schema["required"],
              f"{mode}: the search tools declare their rows (the client validates every result against them)")
        described = {t.name: t.description for t in tools.tools}
        check("alias-aware" in described["get_transcripts"] and "size budget" in described["get_transcripts"]
              and "replaces the default" in described["search_transcripts"] and "size budget" in described["search_transcripts"]
              and "next_cursor" in described["enumerate_matches"] and "editor" in described["get_transcript"]
              and all(declares(t.input_schema, "max_chars") for t in tools.tools),
              f"{mode}: tool descriptions say what a model must know (aliases, scopes, budgets, cursor, editor fallback)", json.dumps(described)[:1500])

        await passages(client, mode)

        result = await client.call_tool("search_transcripts", {"query": "k cups", "limit": 3})
        text = text_of(result)
        check(not result.is_error, f"{mode}: search succeeds", text)
        check("⚠ INCOMPLETE PAGE" in text, f"{mode}: a partial page is flagged above the hits", text)
        check("](https://alphalyzer.example/?v=" in text, f"{mode}: hits link to the viewer moment", text)
        check("expanded via alias K-Cups" in text, f"{mode}: the footer names the alias that fired", text)
        check(text.rstrip().endswith(f"(corpus: local:{archive})"), f"{mode}: the result names its corpus", text[-300:])
        structured = result.structured_content
        check(structured["total"] > 3 and len(structured["videos"]) == 3 and structured["has_more"], f"{mode}: structured content carries the page", json.dumps(structured)[:500])
        plain = await client.call_tool("search_transcripts", {"query": "k cups", "limit": 1, "use_aliases": False})
        exact = plain.structured_content
        check(structured["exact"] == {"videos": exact["total"], "hits": exact["total_hits"]}
              and structured["total_hits"] > exact["total_hits"]
              and f'{exact["total"]} video(s), {exact["total_hits"]} hit(s) for "k cups" exactly as typed; with the aliases and fuzzy variants named below: {structured["total"]} video(s), {structured["total_hits"]} hit(s)' in text,
              f"{mode}: the headline gives the exact count first, then what the alias added", text[:600])

        # A filter that cannot be right is an error on every tool that
        # filters, naming the argument, the value and the nearest valid one.
        impossible = [
            ({"date_from": "2015-02-31"}, 'date_from "2015-02-31" is not a date: February 2015 has 28 days'),
            ({"date_from": "yesterday"}, 'date_from "yesterday" is not a date'),
            ({"date_from": "2024-01-01", "date_to": "2023-01-01"}, "the date range is inverted"),
            ({"channels": ["late-night-lve"]}, 'channel "late-night-lve" matches no channel of this archive; did you mean "late-night-live"?'),
            ({"groups": ["no-such-group"]}, 'group "no-such-group" matches no group'),
            ({"scopes": ["bogus"]}, 'scopes "bogus" is not a scope'),
            ({"states": ["availble"]}, 'states "availble" is not one of available'),
            ({"media_type": "podcast"}, '`media_type` must be one of video, livestream, got "podcast"'),
            ({"min_duration": "abc"}, 'min_duration "abc" is not a length'),
            ({"min_duration": -5}, 'min_duration "-5" is not a length'),
            ({"min_duration": 7200, "max_duration": 60}, "max_duration 1:00 is shorter than min_duration 2:00:00"),
            ({"tags": ["no-such-tag"]}, 'tag "no-such-tag" matches no tag'),
        ]
        for tool in ["search_transcripts", "enumerate_matches", "mention_trend"]:
            for bad, want in impossible:
                args = {"queries": ["k cups"]} if tool == "mention_trend" else {"query": "k cups"}
                result = await client.call_tool(tool, {**args, **bad})
                check(result.is_error and want in text_of(result), f"{mode}: {tool} refuses {bad}", text_of(result)[:400])
        for tool, args in [("search_transcripts", {"query": "", "regex": True}), ("search_transcripts", {"query": "  "}),
                           ("mention_trend", {"queries": ["k cups", ""]}), ("enumerate_matches", {"query": "a*", "regex": True})]:
            result = await client.call_tool(tool, args)
            check(result.is_error, f"{mode}: {tool} refuses an empty query in {args}", text_of(result)[:400])

        result = await client.call_tool("search_transcripts", {"query": "k cups", "limt": 3})
        text = text_of(result)
        check(result.is_error and "has no argument `limt`" in text, f"{mode}: a bad argument is an isError result", text)
        check(text.rstrip().endswith(f"(corpus: local:{archive})"), f"{mode}: errors name the corpus too", text)

        seen = []

        async def on_progress(progress, total, message):
            seen.append((progress, total, message))

        # A worklist is kept for its cursors; refresh drops it, so this call scans.
        await client.call_tool("list_channels", {"refresh": True})
        await client.call_tool("enumerate_matches", {"query": "the"}, progress_callback=on_progress)
        check(len(seen) > 1 and seen[-1][0] == seen[-1][1] and "page(s) read" in (seen[-1][2] or ""), f"{mode}: a long scan sends progress to a client that asked", str(seen[-3:]))
        first = await client.call_tool("enumerate_matches", {"query": "the", "max_chars": 2000})
        cursor = first.structured_content["next_cursor"]
        nxt = await client.call_tool("enumerate_matches", {"query": "the", "max_chars": 2000, "cursor": cursor})
        sc = nxt.structured_content
        check(sc["pages_read"] == 0 and "no page read (list kept)" in text_of(nxt)
              and "notes" not in sc and sc["total"] == first.structured_content["total"],
              f"{mode}: a cursor's page is cut from the kept worklist: no page read, the notes said once", text_of(nxt)[:600])
        # So is a search for the pages that follow it by offset; another
        # query (or another filter) is searched afresh.
        first = (await client.call_tool("search_transcripts", {"query": "the", "limit": 3})).structured_content
        nxt = await client.call_tool("search_transcripts", {"query": "the", "limit": 3, "offset": 3, "order": "newest"})
        sc = nxt.structured_content
        check(first["pages_read"] > 0 and sc["pages_read"] == 0 and sc["total"] == first["total"]
              and "no page read for this page: the result of the same search on the unchanged archive was kept" in text_of(nxt),
              f"{mode}: a search's next page by offset is cut from the kept result: no page read", text_of(nxt)[-600:])
        other = (await client.call_tool("search_transcripts", {"query": "the", "limit": 3, "offset": 3, "exclude": ["cups"]})).structured_content
        check(other["pages_read"] > 0, f"{mode}: a search with another filter is not the kept one", other)

        result = await client.call_tool("enumerate_matches", {"query": "k cups", "batch_size": 10})
        structured = result.structured_content
        check(len(structured["videos"]) == structured["total"] and structured["batches"] == -(-structured["total"] // 10), f"{mode}: enumerate lists every match with the batch count")

        trend = await client.call_tool("mention_trend", {"query": "k cups", "by": "quarter"})
        t = trend.structured_content
        rows = t["periods"] + [t["undated"]]
        cells = [r["by_query"]["k cups"] for r in rows if "k cups" in r["by_query"]]
        check(not trend.is_error and sum(c["videos"] for c in cells) == structured["total"]
              and sum(c["hits"] for c in cells) == structured["total_hits"] and t["totals"][0]["videos"] == structured["total"]
              and all(r["distinct_videos"] == r["by_query"].get("k cups", {"videos": 0})["videos"] for r in rows),
              f"{mode}: mention_trend counts what enumerate_matches lists, period by period", text_of(trend)[:800])

        first = structured["videos"][0]["id"]
        result = await client.call_tool("get_transcript", {"video_id": first})
        check(not result.is_error and f"?v={first}&t=" in text_of(result), f"{mode}: get_transcript links every line", text_of(result)[:300])

        ids = [v["id"] for v in structured["videos"][:3]]
        result = await client.call_tool("get_transcripts", {"video_ids": ids, "queries": ["k cups", "the"], "before": 5, "after": 5, "link_style": "base"})
        text = text_of(result)
        check(not result.is_error and text.count("matches per query:") == 3 and '"k cups":' in text, f"{mode}: get_transcripts windows a batch with per-query counts", text[:800])
        check("- moment_base: https://alphalyzer.example/?v=" in text and "|" in text, f"{mode}: base link style gives a moment_base line and compact stamps", text[:800])
        found = await client.call_tool("search_transcripts", {"query": "k cups", "limit": 20, "include_snippets": True})
        by_search = {v["slug"]: v["hits_total"] for v in found.structured_content["videos"]}
        result = await client.call_tool("get_transcripts", {"video_ids": list(by_search), "query": "k cups", "before": 0, "after": 0})
        by_read = {v["id"]: v["matches"]["k cups"] for v in result.structured_content["videos"]}
        check(by_read == by_search and any(n > 0 for n in by_read.values()) and "expanded via alias K-Cups" in text_of(result) and "only through an alias" in text_of(result),
              f"{mode}: get_transcripts counts every query hit for hit as search does, aliases included, and names the alias", f"{by_search} vs {by_read}\n{text_of(result)[:600]}")
        plain = await client.call_tool("search_transcripts", {"query": "k cups", "limit": 200, "use_aliases": False, "max_chars": 150000})
        by_search = {v["slug"]: v["hits_total"] for v in plain.structured_content["videos"]}
        result = await client.call_tool("get_transcripts", {"video_ids": list(by_read), "query": "k cups", "use_aliases": False})
        by_read = {v["id"]: v["matches"]["k cups"] for v in result.structured_content["videos"] if v["matches"]["k cups"] > 0}
        check(by_read == {k: n for k, n in by_search.items() if k in by_read} and "expanded via alias" not in text_of(result),
              f"{mode}: get_transcripts takes use_aliases:false as search does", f"{by_search} vs {by_read}")
        excluded = await client.call_tool("get_transcripts", {"video_ids": ids[:1], "query": "k cups", "exclude": ["k cups"]})
        check(f"# {ids[0]}\nnot shown: it matches the excluded phrase \"k cups\"" in text_of(excluded), f"{mode}: get_transcripts applies exclude as search does", text_of(excluded)[:400])
        hub = os.path.join(os.path.dirname(archive), "hub")
        beta = os.path.join(os.path.dirname(archive), "beta")
        counts = []
        for src in (hub, beta):
            r = await client.call_tool("enumerate_matches", {"query": "k cups", "channels": ["night-shift"], "source": src})
            counts.append((r.structured_content["total"], r.structured_content["total_hits"]))
        check(counts[0] == counts[1] and counts[0][0] > 0, f"{mode}: on a hub, one member's aliases never change another member's answer", str(counts))
        result = await client.call_tool("get_transcripts", {"video_ids": ids + ["no-such-id"] + [f"x{i}" for i in range(20)]})
        text = text_of(result)
        check("not found in this corpus" in text and "past the limit of 20 were not read" in text, f"{mode}: missing and extra ids are named", text[-600:])

        dups = json.load(open(os.path.join(archive, "duplicates.json")))
        cluster = next(c for c in dups["clusters"] if any(m.get("aligned") is None for m in c["members"]))
        canon = cluster["canonical"]
        result = await client.call_tool("get_video_metadata", {"video_id": canon["slug"], "channel": canon["channel"]})
        text = text_of(result)
        check("alignment never measured: do NOT map a timestamp across" in text and "- stats:" in text, f"{mode}: metadata gives copies with the not-measured verdict and stats", text)

        digests = json.load(open(os.path.join(archive, "digests", "daily-dispatch.json")))
        slug, digest = next(iter(digests.items()))
        result = await client.call_tool("get_video_metadata", {"video_id": slug, "channel": "daily-dispatch"})
        chapter = digest["chapters"][1]
        check(f"?v={slug}&t={int(chapter['start'])})" in text_of(result) and chapter["title"] in text_of(result),
              f"{mode}: AI-chapter stamps in get_video_metadata link to their second", text_of(result))

        states = {(v["channel"], v["slug"]): v["state"] for v in json.load(open(os.path.join(archive, "summaries/index.json")))["videos"]}
        cluster = next(c for c in dups["clusters"] if states[(c["canonical"]["channel"], c["canonical"]["slug"])] == "deleted")
        canon, mirror = cluster["canonical"], next(m for m in cluster["members"] if m["slug"] != cluster["canonical"]["slug"])
        page = json.load(open(os.path.join(archive, "transcripts", canon["channel"], "manifest.json")))["slugToPage"][canon["slug"]]
        record = next(v for v in json.load(open(os.path.join(archive, "transcripts", canon["channel"], f"page-{page:04d}.json")))["videos"] if v["slug"] == canon["slug"])
        phrase = " ".join(" ".join(c[2] for c in record["cues"][5:8]).split()[2:9])
        result = await client.call_tool("search_transcripts", {"query": phrase})
        text = text_of(result)
        check(f"⧉ same recording also archived as: {mirror['channel']}/{mirror['slug']}" in text and "mirror(s) collapsed across" in text, f"{mode}: mirrors fold into the canonical row and are named", text)
        result = await client.call_tool("search_transcripts", {"query": phrase, "collapse_duplicates": False})
        check(result.structured_content["total"] >= 2 and f"- id: {mirror['slug']}" in text_of(result) and f"- id: {canon['slug']}" in text_of(result), f"{mode}: collapse_duplicates:false gives one row per upload", text_of(result))
        result = await client.call_tool("search_transcripts", {"query": phrase, "states": ["available"]})
        text = text_of(result)
        check(f"- id: {mirror['slug']}" in text and f"- id: {canon['slug']}" not in text, f"{mode}: when the canonical copy is filtered out the surviving mirror is kept", text)

        result = await client.call_tool("list_reports", {})
        check("`fact-check-1`" in text_of(result) and "verdicts:" in text_of(result), f"{mode}: list_reports gives the verdict tally", text_of(result))
        report = json.load(open(os.path.join(archive, "reports/fact-check-1/page.json")))
        citation = report["sections"][0]["claims"][0]["citations"][0]
        result = await client.call_tool("get_report", {"report": "fact-check-1", "section": "s1"})
        text = text_of(result)
        check(f'"{citation["quote"]}"' in text and f"/m/{citation['channel']}/{citation['slug']}/" in text and citation["url"] in text, f"{mode}: get_report quotes each citation with its original and moment page", text[:1500])
        timeline = json.load(open(os.path.join(archive, "reports/timeline-1/page.json")))
        cites = [c for sec in timeline["sections"] for cl in sec["claims"] for c in cl["citations"]]
        result = await client.call_tool("get_report", {"report": "timeline-1"})
        text = text_of(result)
        timed = {"twitch.tv": lambda s: f"t={s // 3600}h{s // 60 % 60}m{s % 60}s", "odysee.com": lambda s: f"t={s}", "youtube.com": lambda s: f"t={s}s"}
        expected = [(c["url"], f(int(c["start"]))) for c in cites for host, f in timed.items() if host in c["url"] and "t=" not in c["url"]]
        check(len(expected) > 0 and all(f"original: {u}{'&' if '?' in u else '?'}{t}" in text for u, t in expected),
              f"{mode}: get_report's original links open at the cited second where the platform takes a time", text[:1500])
        result = await client.call_tool("get_report", {"report": "nope"})
        check(result.is_error and "its reports are: fact-check-1, timeline-1" in text_of(result), f"{mode}: an unknown report lists the ones there are", text_of(result))
        posts = json.load(open(os.path.join(archive, "posts/daily-dispatch/page-0001.json")))["posts"]
        reply = next(p for p in posts if p.get("replyTo"))
        result = await client.call_tool("get_thread", {"post_id": reply["id"]})
        text = text_of(result)
        check(f"[post by {reply['author']}, {reply['date']}]" in text and "without an @ time" in text and text.count("post by") >= 2, f"{mode}: get_thread gives the whole thread, cited without a time", text[:800])
        cited = os.path.join(os.path.dirname(archive), "cited")
        result = await client.call_tool("list_channels", {"source": cited})
        check("cited-only site: 1 report(s)" in text_of(result), f"{mode}: a cited-only site says so", text_of(result))
        for tool in ("search_transcripts", "enumerate_matches"):
            result = await client.call_tool(tool, {"query": "the", "source": cited})
            text = text_of(result)
            check(text.startswith("⚠ NOTHING TO SEARCH: this corpus publishes reports only") and "read its reports with list_reports and get_report" in text,
                  f"{mode}: {tool} on a cited-only site says there is nothing to search, first", text[:800])

        result = await client.call_tool("list_tags", {})
        check("`economy` Economy" in text_of(result), f"{mode}: list_tags lists the curated tags", text_of(result))

        ticks = []

        async def on_poll(progress, total, message):
            ticks.append(message or "")

        start = 10 if mode == "auto" else 100
        clip = {"channel": "daily-dispatch", "video": first, "start": start, "end": f"0:{start // 60:02d}:{start % 60 + 20:02d}" if start < 40 else start + 20, "reason": "protocol check"}
        result = await client.call_tool("fetch_clip", clip, progress_callback=on_poll)
        text = text_of(result)
        check(not result.is_error and f"Fetched {start - 3}–{start + 23} of daily-dispatch/{first} (job " in text and f"/clips/{start - 3}.00-{start + 23}.00.mp4" in text, f"{mode}: fetch_clip asks the editor and answers the file", text)
        check(len(ticks) == 1 and "done" in ticks[0], f"{mode}: fetch_clip sends a progress notification per poll", str(ticks))
        check(result.structured_content["outcome"] == "fetched", f"{mode}: fetch_clip's facts are structured", json.dumps(result.structured_content))
        result = await client.call_tool("fetch_clip", clip)
        check(text_of(result).startswith("Already on disk: the exact window asked for."), f"{mode}: the same request then finds it cached", text_of(result))
        result = await client.call_tool("fetch_clip", {"channel": "daily-dispatch", "video": first, "start": 1, "end": 2})
        check(result.is_error and "reason is required" in text_of(result), f"{mode}: fetch_clip refuses a call without a reason", text_of(result))
        result = await client.call_tool("get_job", {"job": "job-1", "tail": 2})
        check("# Job job-1: fetch-window on daily-dispatch, done" in text_of(result) and "last 2 of 60 log line(s)" in text_of(result), f"{mode}: get_job shows the job and its log tail", text_of(result))
        result = await client.call_tool("enqueue", {"channel": "daily-dispatch", "kind": "sync", "older": True})
        check(result.is_error and "`older` does not apply to kind sync" in text_of(result), f"{mode}: enqueue refuses an argument its kind does not take", text_of(result))
        result = await client.call_tool("channel_coverage", {"channel": "daily-dispatch", "gap_days": 10})
        check("# What daily-dispatch holds on the editor's disk" in text_of(result) and "- gaps longer than 10 day(s): 1" in text_of(result), f"{mode}: channel_coverage reports gaps", text_of(result))

        made = json.load(open(made))
        link = made["share_link"]
        result = await client.call_tool("open_link", {"link": link, "limit": 200, "collapse_duplicates": False})
        opened = [v["slug"] for v in result.structured_content["videos"]]
        check(not result.is_error and opened == [v["slug"] for v in made["videos"]] and len(opened) > 0, f"{mode}: a link made by search --share-link opens as the same search", text_of(result)[:1500])
        check(text_of(result).startswith("# Share link plan") and text_of(result).rstrip().endswith(f"(corpus: local:{archive})"), f"{mode}: open_link gives the plan and names the corpus", text_of(result)[:600])
        result = await client.call_tool("open_link", {"link": link.replace("qt=", "qt=%%"), "dry_run": True})
        check(result.is_error and "qt is not base64url" in text_of(result), f"{mode}: a damaged link is refused naming qt", text_of(result))

        result = await client.call_tool("sweep_plan", {"request": f"{link} Why were these taken down? batch_size=7 chanels=x"})
        text = text_of(result)
        check(not result.is_error and text.startswith("# Sweep plan") and "`enumerate_matches` with" in text and "ceil(N / 7)" in text and "did you mean channels=?" in text, f"{mode}: sweep_plan resolves a pasted link into the plan", text[:1500])
        check(f'source: \"local:{archive}\"' in text or f'source: "local:{archive}"' in text, f"{mode}: the plan passes the corpus handle explicitly", text[:600])
        result = await client.call_tool("sweep_plan", {"request": "what about money? channels=no-such-channel"})
        check(result.is_error and "HALT: channel \"no-such-channel\" matches no channel" in text_of(result), f"{mode}: an unresolvable channel halts the plan", text_of(result)[:600])
        result = await client.call_tool("ask_plan", {"request": "what did they say about k cups? channels=daily-dispatch"})
        check(not result.is_error and text_of(result).startswith("# Ask plan") and "`search_transcripts`" in text_of(result), f"{mode}: ask_plan gives the short plan", text_of(result)[:800])
        linked_channels = sorted({v["channel"] for v in made["videos"]})
        result = await client.call_tool("ask_plan", {"request": f"{link} what was said? channels={linked_channels[0]}"})
        check(not result.is_error and f'"channels":["{linked_channels[0]}"]' in text_of(result).replace(" ", ""),
              f"{mode}: ask_plan with a link and channels= keeps the channel scope in the worklist", text_of(result)[:1500])
        prompts = await client.list_prompts()
        check([p.name for p in prompts.prompts] == ["sweep"] and len(prompts.prompts[0].arguments) == 9, f"{mode}: the sweep prompt is listed with its nine arguments", str(prompts))
        shredded = await client.get_prompt("sweep", {"link": "This", "channel": "search", "group": "finds", "directive": "deleted", "batch_size": "Why"})
        text = shredded.messages[0].content.text
        check("refuses to plan" in text and 'link = "This"' in text and 'batch_size = "Why"' in text and "/sweep This search finds deleted Why" in text, f"{mode}: the prompt refuses tokenizer-shredded arguments", text)
        good = await client.get_prompt("sweep", {"link": link, "directive": "list the reasons", "batch_size": "5"})
        check(good.messages[0].content.text.startswith("# Sweep plan") and "ceil(N / 5)" in good.messages[0].content.text, f"{mode}: the prompt plans from well-formed arguments", good.messages[0].content.text[:600])

        result = await client.call_tool("notes", {})
        check("1 open note(s) on 1 target(s)" in text_of(result) and "(target: article/k-cups)" in text_of(result), f"{mode}: notes lists the open notes by target", text_of(result))
        result = await client.call_tool("notes", {"action": "reply", "target": "article/k-cups", "note": "n1", "text": "done"})
        check("umtool notes reply --text 'done' -- 'article/k-cups' 'n1'" in text_of(result), f"{mode}: notes reply answers the command instead of posting", text_of(result))

        result = await client.call_tool("search_transcripts", {"query": "really", "groups": ["main"], "limit": 1})
        check("scope: group " in text_of(result) and " channels)" in text_of(result), f"{mode}: the scope note names the group it came from", text_of(result)[-800:])
        for tool in ("search_transcripts", "enumerate_matches"):
            result = await client.call_tool(tool, {"query": "the", "max_pages": 2})
            text = text_of(result)
            check(text.startswith("⚠ coverage: PARTIAL — fully scanned: ") and "every page in scope was read" not in text,
                  f"{mode}: {tool} says a partial answer is partial in its first line, and nothing contradicts it", text[:600])
        result = await client.call_tool("search_transcripts", {"query": "really", "limit": "2"})
        check(not result.is_error and len(result.structured_content["videos"]) == 2, f"{mode}: a numeric string is taken as the number (limit: \"2\")", text_of(result)[:600])
        result = await client.call_tool("search_transcripts", {"query": "really", "limt": 2})
        check(result.is_error and "has no argument `limt` (did you mean `limit`?)" in text_of(result), f"{mode}: an unknown argument gets the nearest name", text_of(result)[:600])
        result = await client.call_tool("search_transcripts", {"query": "torlyan", "scopes": ["chat"], "limit": 3})
        chat_lines = [l for l in text_of(result).splitlines() if l.startswith("- [") and "](" in l]
        authors = [h["author"] for v in result.structured_content["videos"] for h in v["hits"]]
        check(len(chat_lines) > 0 and all(") [chat] " in l and ": " in l.split("[chat] ", 1)[1] for l in chat_lines)
              and all(a and f"[chat] {a}: " in text_of(result) for a in authors),
              f"{mode}: a live-chat hit is labelled as chat with its author, never shown as speech", text_of(result)[:1200])
        result = await client.call_tool("search_transcripts", {"query": "people", "scopes": ["posts"], "limit": 2})
        post_hit = result.structured_content["videos"][0]
        check(post_hit["kind"] == "post" and "@" not in text_of(result).split("## 1.")[1].split("\n")[2], f"{mode}: scopes:[posts] reaches posts, cited without a time", text_of(result)[:800])
        result = await client.call_tool("get_post", {"post_id": post_hit["slug"]})
        check(not result.is_error and "post by " in text_of(result), f"{mode}: get_post reads a post", text_of(result)[:400])
        result = await client.call_tool("get_transcripts", {"video_ids": [post_hit["slug"], first], "content_types": ["post"]})
        check("post by " in text_of(result) and f"# {first}\nnot shown: it is a video, and content_types leaves videos out" in text_of(result) and "not found" not in text_of(result),
              f"{mode}: get_transcripts with content_types reads posts only, and says a video was left out rather than missing", text_of(result)[:800])
        result = await client.call_tool("get_transcripts", {"video_ids": [first, "no-such-id"], "content_types": ["vidoe"]})
        text = text_of(result)
        check(result.is_error and 'content_types "vidoe" is not one of video, post; did you mean "video"?' in text,
              f"{mode}: an unknown content type is refused, with the nearest kind", text[:800])
        result = await client.call_tool("get_transcripts", {"video_ids": [first, "no-such-id"], "content_types": ["post"]})
        text = text_of(result)
        check(f"# {first}\nnot shown: it is a video" in text and "# no-such-id\nnot found in this corpus" in text,
              f"{mode}: left-out is told from missing", text[:800])
        def whole(result):
            return len(text_of(result)) + len(json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False))
        for tool, args, budget in (("search_transcripts", {"query": "the"}, 40000),
                                   ("search_transcripts", {"query": "the", "limit": 200, "max_chars": 150000}, 150000),
                                   ("enumerate_matches", {"query": "the"}, 40000),
                                   ("enumerate_matches", {"query": "the", "max_chars": 2000}, 2000),
                                   ("mention_trend", {"queries": ["the", "k cups"], "by": "month"}, 40000)):
            result = await client.call_tool(tool, args)
            check(not result.is_error and whole(result) <= budget,
                  f"{mode}: {tool} {args}: text and structured content together fit the budget ({whole(result)} of {budget})")
        result = await client.call_tool("search_transcripts", {"query": "the", "limit": 10, "max_chars": 3000})
        text = text_of(result)
        check(len(text) <= 3000 and "more hit(s) in this video not shown (size budget): get_transcripts with video_ids" in text
              and result.structured_content["total_hits"] > sum(len(v["hits"]) for v in result.structured_content["videos"]),
              f"{mode}: search_transcripts fits max_chars, says what each video left out, and keeps the counts complete", text[-1200:])
        seen, cursor, totals = [], None, set()
        while True:
            page = await client.call_tool("enumerate_matches", {"query": "the", "max_chars": 2000, **({"cursor": cursor} if cursor else {})})
            check(not page.is_error and len(text_of(page)) <= 2000, f"{mode}: each worklist page fits its budget", text_of(page)[:600])
            totals.add(page.structured_content["total"])
            seen += [v["id"] for v in page.structured_content["videos"]]
            cursor = page.structured_content["next_cursor"]
            if not cursor:
                break
        check(len(totals) == 1 and len(seen) == totals.pop() and len(set(seen)) == len(seen) and len(seen) > 20,
              f"{mode}: the worklist's cursor pages every match exactly once, with the same total on every page", str(len(seen)))
        result = await client.call_tool("enumerate_matches", {"query": "the", "cursor": "12-ffffffffffff"})
        check(result.is_error and "belongs to another worklist" in text_of(result), f"{mode}: a foreign cursor is refused, never answered with a shifted page", text_of(result))
        result = await client.call_tool("get_transcript", {"video_id": first, "max_chars": 2000})
        nxt = result.structured_content["next_offset"]
        check(len(text_of(result)) <= 2000 and nxt and f"offset: {nxt} for the rest" in text_of(result), f"{mode}: get_transcript fits its budget and says where to continue", text_of(result)[-500:])
        result = await client.call_tool("get_transcript", {"video_id": first, "offset": nxt, "max_chars": 2000})
        check(f"- caption lines {nxt + 1}–" in text_of(result), f"{mode}: get_transcript continues at the offset it named", text_of(result)[:400])
        result = await client.call_tool("get_transcripts", {"video_ids": ids, "max_chars": 4000})
        text = text_of(result)
        check(len(text) <= 4000 and text.count("not shown (size budget): get_transcript with video_id") == len(ids),
              f"{mode}: get_transcripts shares its budget across every video and says what each left out", text[-800:])
        result = await client.call_tool("similar_terms", {"word": "cups"})
        terms = {t["word"]: t for t in result.structured_content["terms"]}
        cup = await client.call_tool("enumerate_matches", {"query": "cup", "use_aliases": False, "collapse_duplicates": False})
        check(not result.is_error and terms["cups"]["asked"] and "cup" in terms
              and (terms["cup"]["videos"], terms["cup"]["hits"]) == (cup.structured_content["total"], cup.structured_content["total_hits"])
              and "- **cup**: " in text_of(result) and "](https://alphalyzer.example/?v=" in text_of(result),
              f"{mode}: similar_terms lists the vocabulary's neighbours with confirmed counts and a linked example", text_of(result)[:1200])
        result = await client.call_tool("search_transcripts", {"query": "k cups", "limit": 5, "offset": 10000})
        check(f"offset 10000 is past the end: there are {structured['total']} video(s) in all, so the last page of 5 starts at offset {(structured['total'] - 1) // 5 * 5}" in text_of(result),
              f"{mode}: an offset past the end names the last page's offset", text_of(result)[:400])
        result = await client.call_tool("similar_terms", {"word": "really cups"})
        asked = [t["word"] for t in result.structured_content["terms"] if t["asked"]]
        check(not result.is_error and asked == ["really", "cups"] and "2 words looked up, each with its own neighbours" in text_of(result),
              f"{mode}: similar_terms of a phrase looks up each of its words", text_of(result)[:800])
        result = await client.call_tool("search_transcripts", {"query": "really cups", "limit": 1})
        check('near "cups"' not in text_of(result), f"{mode}: a word under 5 letters gets no suggestions", text_of(result)[-600:])
        result = await client.call_tool("search_transcripts", {"query": "torlyans", "limit": 1})
        check('also in the vocabulary near "torlyans": torlyan (' in text_of(result) and result.structured_content["also_heard"][0]["variants"][0]["word"] == "torlyan",
              f"{mode}: a query word's neighbours in the vocabulary are named in the footer and the structured result", text_of(result)[-800:])
        result = await client.call_tool("search_transcripts", {"query": "torlyans", "fuzzy": 1, "limit": 2})
        expansions = result.structured_content["fuzzy"]
        check(not result.is_error and any(e["query"] == "torlyan" and e["hits"] > 0 for e in expansions)
              and 'fuzzy: also searched "torlyan": ' in text_of(result),
              f"{mode}: fuzzy names each expansion with its own hit count", text_of(result)[-800:])
        first_fuzzy = result.structured_content["videos"][0]["slug"]
        result = await client.call_tool("get_transcripts", {"video_ids": [first_fuzzy], "query": "torlyans", "fuzzy": 1, "before": 0, "after": 0})
        check('; fuzzy "torlyan": ' in text_of(result), f"{mode}: get_transcripts counts fuzzy expansions as search does", text_of(result)[:600])
        ordered = {}
        for order in ("relevance", "archive", "newest"):
            r = await client.call_tool("search_transcripts", {"query": "people", "limit": 200, "include_snippets": False, "order": order, "max_chars": 150000})
            ordered[order] = [v["slug"] for v in r.structured_content["videos"]]
            check(f"order: {order}" in text_of(r) or (order == "newest" and "order: newest first" in text_of(r)), f"{mode}: the footer says the order in force ({order})", text_of(r)[-400:])
        check(sorted(ordered["relevance"]) == sorted(ordered["archive"]) and ordered["relevance"] != ordered["archive"],
              f"{mode}: relevance reorders the same match set", "")
        page2 = await client.call_tool("search_transcripts", {"query": "people", "limit": 5, "offset": 5, "include_snippets": False})
        check([v["slug"] for v in page2.structured_content["videos"]] == ordered["relevance"][5:10], f"{mode}: every page of offset paging agrees with the one order", "")
        result = await client.call_tool("resolve_source", {"source": cited})
        check("cited-only" in text_of(result), f"{mode}: resolve_source says a cited-only site is one", text_of(result))

        result = await client.call_tool("transcript", {"url": "https://www.youtube.com/watch?v=-abc123XYZ_"})
        if over_http:
            check(result.is_error and "transcript: not offered over HTTP" in text_of(result), f"{mode}: transcript is refused over HTTP, saying why", text_of(result))
        else:
            check(result.is_error and "yt_dlp_path is set to /no/such/yt-dlp, which is not an executable file" in text_of(result), f"{mode}: transcript names a configured path that points at nothing", text_of(result))
        result = await client.call_tool("transcript", {"url": "--exec=id"})
        check(result.is_error and ('transcript: url "--exec=id" is not a URL' in text_of(result) or over_http), f"{mode}: transcript refuses an option dressed as a URL", text_of(result))

        result = await client.call_tool("resolve_source", {"source": archive})
        check(text_of(result).startswith(f"local:{archive}"), f"{mode}: a bare path resolves to its canonical handle", text_of(result))
    sent = [t for t in SEEN if "Fetched " in t or "# Job " in t]
    check(len(sent) > 0 and all(token not in t for t in SEEN), f"{mode}: the token is in none of the {len(SEEN)} results, those of calls that reached the editor included")
    return era


async def local_hub(mode, binary, archive):
    """A hub given as a folder is a hub: its handle says so, and its
    members can be named by siteId or `site:`."""
    hub = os.path.join(os.path.dirname(archive), "hub")
    params = StdioServerParameters(command=binary, args=["--hub", hub],
                                   env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")})
    async with Client(params, mode=mode) as client:
        result = await client.call_tool("list_channels", {})
        check(text_of(result).rstrip().endswith("(corpus: hub:file://" + hub + ")"), f"{mode}: a hub folder is named as a hub, not as local:", text_of(result)[-200:])
        result = await client.call_tool("resolve_source", {"source": "alphalyzer"})
        check(not result.is_error and ("local:" + os.path.join(os.path.dirname(archive), "alpha")) in text_of(result), f"{mode}: a member of a hub folder resolves by siteId", text_of(result))
        result = await client.call_tool("enumerate_matches", {"query": "k cups", "source": "site:betalyzer"})
        check(not result.is_error and text_of(result).rstrip().endswith("(corpus: hub:file://" + hub + "#betalyzer)") and result.structured_content["total"] > 0,
              f"{mode}: site: names a subset of a hub folder", text_of(result)[-300:])


async def main():
    if sys.argv[1] == "--http":
        return await main_http(*sys.argv[2:])
    binary, archive, index, editor, token, made, umtool = sys.argv[1:8]
    connect = lambda: stdio_server(binary, archive, index, editor, token, umtool)
    eras = [await run(mode, connect, archive, token, made) for mode in ("auto", "legacy")]
    check(eras[0] != eras[1], "the two eras differ", str(eras))
    for mode in ("auto", "legacy"):
        await local_hub(mode, binary, archive)


async def main_http(url, bearer, archive, token, made, trap):
    """The same checks over Streamable HTTP, then the hostile requests."""
    connect = lambda: http_server(url, bearer)
    eras = [await run(mode, connect, archive, token, made, over_http=True) for mode in ("auto", "legacy")]
    check(eras[0] != eras[1], "http: the two eras differ", str(eras))
    await hostile(url, bearer, trap)


async def hostile(url, bearer, trap):
    """What a hostile caller gets: refusals with the status and reason, and
    no request from the server to an address it names (`trap` is a loopback
    listener that counts connections)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    good = {"Authorization": f"Bearer {bearer}", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(timeout=30) as http:
        async def post(headers, payload=None, content=None):
            return await http.post(url, headers=headers, json=payload if content is None else None, content=content)
        r = await post({k: v for k, v in good.items() if k != "Authorization"}, body)
        check(r.status_code == 401 and "bearer token is required" in r.text and r.headers.get("www-authenticate") == "Bearer", "http: no token is 401", f"{r.status_code} {r.text}")
        r = await post({**good, "Authorization": "Bearer wrong-" + bearer}, body)
        check(r.status_code == 401 and "is not this server's" in r.text, "http: a wrong token is 401, saying it is wrong (not missing)", f"{r.status_code} {r.text}")
        r = await post({**good, "Origin": "https://evil.example"}, body)
        check(r.status_code == 403 and "Origin" in r.text and "--allow-origin https://evil.example" in r.text,
              "http: a foreign Origin is 403, naming the flag that lets it in", f"{r.status_code} {r.text}")
        r = await post({**good, "Origin": "http://localhost:5173"}, body)
        check(r.status_code == 200, "http: a loopback Origin on any port is let in", f"{r.status_code} {r.text[:200]}")
        for frame, code, status in ((b'{"jsonrpc":"2.0","id":1,"meth', -32700, 400),
                                    (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"\\ud800"}}', -32700, 400),
                                    (b"[" * 5000 + b"]" * 5000, -32700, 400),
                                    (b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_channels","arguments":[1]}}', -32602, 200),
                                    (b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_channels","arguments":"x"}}', -32602, 200)):
            r = await post(good, content=frame)
            answer = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
            check(r.status_code == status and answer.get("error", {}).get("code") == code,
                  f"http: a malformed frame {frame[:40]!r} gets {code}", f"{r.status_code} {r.text[:300]}")
        r = await post({**good, "Host": "evil.example"}, body)
        check(r.status_code == 403 and "Host" in r.text, "http: a spoofed Host is 403 (DNS rebinding)", f"{r.status_code} {r.text}")
        root = url.rsplit("/mcp", 1)[0]
        for path, headers in (("/health", {}), ("/metrics", {"Authorization": f"Bearer {bearer}"})):
            r = await http.get(f"{root}{path}", headers={**headers, "Host": "evil.example"})
            check(r.status_code == 403 and "DNS-rebinding" in r.text, f"http: a spoofed Host is 403 on {path} too", f"{r.status_code} {r.text}")
        r = await http.get(f"{root}/health")
        check(r.status_code == 200 and r.text == "ready\n", "http: /health says ready without a token, and nothing else", f"{r.status_code} {r.text!r}")
        r = await http.get(f"{root}/metrics")
        check(r.status_code == 401, "http: /metrics needs the token", f"{r.status_code} {r.text}")
        r = await http.get(f"{root}/metrics", headers={"Authorization": f"Bearer {bearer}"})
        text = r.text
        check(r.status_code == 200 and r.headers.get("content-type", "").startswith("application/openmetrics-text")
              and 'archilyzer_tool_calls_total{tool="search_transcripts",outcome="ok"}' in text
              and 'archilyzer_http_refusals_total{kind="unauthorized"}' in text
              and all(f'archilyzer_http_refusals_total{{kind="{k}"}}' in text for k in ("wrong_token", "origin", "host", "bad_frame"))
              and "archilyzer_tool_call_seconds_bucket" in text and "archilyzer_pages_read_total" in text
              and "archilyzer_downloaded_bytes_total" in text and 'archilyzer_index_lookups_total{result="hit"}' in text
              and text.endswith("# EOF\n"),
              "http: /metrics gives calls by tool, refusals by kind, latency, pages read, bytes downloaded, index hits", text[:1500])
        r = await post(good, content=b"{" + b" " * (2 << 20) + b"}")
        check(r.status_code == 413 and "larger than this server accepts" in r.text, "http: an oversized body is 413", f"{r.status_code} {r.text[:200]}")

        async def chunks():
            for _ in range(32):
                yield b" " * (64 << 10)
        r = await post(good, content=chunks())
        check(r.status_code == 413 and "larger than this server accepts" in r.text and "content-length" not in r.request.headers,
              "http: an oversized body sent without a length is 413 too", f"{r.status_code} {r.text[:200]}")
        r = await post(good, body)
        check(r.status_code == 200 and "search_transcripts" in r.text, "http: the connection still answers after the refusals", f"{r.status_code} {r.text[:200]}")
    async with Client(http_server(url, bearer)) as client:
        for source in ("local:/etc", "/etc", "hub:file:///etc", "http://169.254.169.254/latest/", trap, "remote:" + trap):
            result = await client.call_tool("list_channels", {"source": source})
            check(result.is_error and "is refused: over HTTP this server reads only its own corpus" in text_of(result),
                  f"http: source {source} is refused, saying why", text_of(result))
        result = await client.call_tool("resolve_source", {"source": trap})
        check(result.is_error, "http: resolve_source does not probe a URL it was not allowed", text_of(result))
    host, port = trap.split("//")[1].rstrip("/").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"COUNT\n")
    await writer.drain()
    count = int((await reader.readline()).decode().strip())
    writer.close()
    check(count == 1, "http: the server made no request to an address a caller named", f"{count - 1} connection(s) besides ours")


asyncio.run(main())
