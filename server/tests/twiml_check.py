"""The MCP server against the command line on the imported TWIML archive.

Usage: python3 twiml_check.py MCP_BINARY INDEX_BINARY ARCHIVE INDEX_DIR

1. A real client's enumerate_matches for `twimble` returns the same videos
   and hit counts as `archilyzer-index search --no-index --json twimble`.
2. Size budgets: `search_transcripts "the"`, the longest episode's
   `get_transcript` and a 20-id `get_transcripts` each fit the default
   budget (40,000 characters) and say what they left out; following
   `enumerate_matches "the"` cursor by cursor with a small budget lists
   every matching video exactly once, with the same totals on every page.
3. Undated videos: a date filter on this undated corpus says how many
   matching videos it left out for having no date.
4. Start-up: from spawning the server to the first list_channels answer
   (median of 5), printed as a benchmark figure.
Exits 1 on any parity difference.
"""

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def params(binary, archive, index):
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
    return StdioServerParameters(command=binary, args=["--local", archive, "--index", index], env=env)


async def startup_ms(binary, archive, index):
    started = time.perf_counter()
    async with Client(params(binary, archive, index)) as client:
        await client.call_tool("list_channels", {})
        return (time.perf_counter() - started) * 1000


def fail(what, detail=""):
    print("FAILED:", what, detail[:1500])
    sys.exit(1)


async def budgets(client):
    """The size budget and the worklist cursor on a real corpus."""
    budget = 40_000
    r = await client.call_tool("search_transcripts", {"query": "the"})
    text = r.content[0].text
    print(f'search_transcripts "the": {len(text)} characters, {r.structured_content["total"]} videos, '
          f'{r.structured_content["total_hits"]} hits, {r.structured_content["hits_shown_per_video"]} hit lines per video')
    if len(text) > budget or "more hit(s) in this video not shown (size budget)" not in text:
        fail("search_transcripts stays within its budget and says what it left out", text[-1500:])
    worklist = await client.call_tool("enumerate_matches", {"query": "the"})
    total = worklist.structured_content["total"]
    ids = [v["id"] for v in worklist.structured_content["videos"]]
    lengths = {}
    for vid in ids[:60]:
        meta = await client.call_tool("get_transcript", {"video_id": vid, "max_chars": 150000})
        lengths[vid] = len(meta.content[0].text)
    longest = max(lengths, key=lengths.get)
    r = await client.call_tool("get_transcript", {"video_id": longest})
    text = r.content[0].text
    nxt = r.structured_content["next_offset"]
    print(f"get_transcript of the longest of 60 episodes: {len(text)} characters (whole: about {lengths[longest]}), continues at offset {nxt}")
    if len(text) > budget or nxt is None or f"offset: {nxt}" not in text:
        fail("get_transcript stays within its budget and says where to continue", text[-800:])
    r2 = await client.call_tool("get_transcript", {"video_id": longest, "offset": nxt})
    if f"- caption lines {nxt + 1}–" not in r2.content[0].text:
        fail("get_transcript continues at the offset it gave", r2.content[0].text[:600])
    r = await client.call_tool("get_transcripts", {"video_ids": ids[:20]})
    text = r.content[0].text
    shown = text.count("# ")
    print(f"get_transcripts of 20 whole episodes: {len(text)} characters")
    if len(text) > budget or text.count("not shown (size budget): get_transcript with video_id") < 15:
        fail("get_transcripts shares its budget across the videos and says what each left out", text[-800:])
    seen, cursor, pages = [], None, 0
    while True:
        args = {"query": "the", "max_chars": 5000}
        if cursor:
            args["cursor"] = cursor
        page = await client.call_tool("enumerate_matches", args)
        if page.is_error:
            fail("every cursor a page gives is accepted", page.content[0].text)
        pages += 1
        sc = page.structured_content
        if sc["total"] != total or len(page.content[0].text) > 5000:
            fail("every page states the complete total and fits its budget", page.content[0].text[:600])
        seen += [v["id"] for v in sc["videos"]]
        cursor = sc["next_cursor"]
        if not cursor:
            break
    print(f"enumerate_matches \"the\" at max_chars 5000: {pages} pages, {len(seen)} rows, total {total}")
    if seen[:len(ids)] != ids or len(seen) != total or len(set(seen)) != total:
        fail("the pages list every row once, in order", f"{len(seen)} rows vs {total}")
    stale = await client.call_tool("enumerate_matches", {"query": "the", "channels": ["twiml"], "cursor": sc_cursor(worklist)})
    if not stale.is_error or "belongs to another worklist" not in stale.content[0].text:
        fail("a cursor given other arguments is refused", stale.content[0].text[:600])
    plain = await client.call_tool("enumerate_matches", {"query": "transformer*"})
    dated = await client.call_tool("enumerate_matches", {"query": "transformer*", "date_to": "20991231"})
    undated = dated.structured_content.get("undated_left_out")
    print(f"transformer*: {plain.structured_content['total']} videos; with date_to: {dated.structured_content['total']}, undated left out: {undated}")
    if undated != plain.structured_content["total"] or "had no upload date" not in dated.content[0].text:
        fail("a date filter says how many matching videos it left out for having no date", dated.content[0].text[:800])


def sc_cursor(result):
    return result.structured_content["next_cursor"] or "0-000000000000"


async def main():
    mcp_bin, index_bin, archive, index = sys.argv[1:5]
    cli = subprocess.run(
        [index_bin, "search", "--local", archive, "--no-index", "--json", "twimble"],
        check=True, capture_output=True, text=True,
    )
    expected = {(v["slug"], len(v["hits"])) for v in json.loads(cli.stdout)["videos"]}
    async with Client(params(mcp_bin, archive, index)) as client:
        got, cursor = set(), None
        while True:
            args = {"query": "twimble", **({"cursor": cursor} if cursor else {})}
            page = (await client.call_tool("enumerate_matches", args)).structured_content
            got |= {(v["id"], v["matches"]) for v in page["videos"]}
            cursor = page["next_cursor"]
            if not cursor:
                break
    print(f"twimble: command line {len(expected)} videos / {sum(n for _, n in expected)} hits; "
          f"MCP {len(got)} videos / {sum(n for _, n in got)} hits")
    if got != expected:
        print("DIFFERENCE:", sorted(expected ^ got)[:10])
        sys.exit(1)
    async with Client(params(mcp_bin, archive, index)) as client:
        await budgets(client)
    times = [await startup_ms(mcp_bin, archive, index) for _ in range(5)]
    print(f"start-up to first list_channels answer: median {statistics.median(times):.0f} ms "
          f"(runs: {', '.join(f'{t:.0f}' for t in times)})")


asyncio.run(main())
