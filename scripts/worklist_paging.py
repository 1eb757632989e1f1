#!/usr/bin/env python3
"""Measures what a worklist costs an agent that reads it page by page.

Usage: python3 scripts/worklist_paging.py MCP_BINARY ARCHIVE INDEX_DIR QUERY [MAX_CHARS]

Through the real Python `mcp` client over stdio: one default
`enumerate_matches QUERY` (median of 3), then the same worklist followed
cursor by cursor at `max_chars` (default 2000). Prints the rows, the
pages, the time of the whole walk and its ratio to one default call, the
largest page (text plus structured content), and whether every row came
exactly once in the order of the one-call list.
"""

import asyncio
import json
import os
import statistics
import sys
import time

from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main():
    binary, archive, index, query = sys.argv[1:5]
    room = int(sys.argv[5]) if len(sys.argv) > 5 else 2000
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
    server = StdioServerParameters(command=binary, args=["--local", archive, "--index", index], env=env)
    async with Client(server) as client:
        await client.call_tool("list_channels", {})
        # refresh: the archive is read anew, so no worklist is kept and
        # each timed call scans.
        times, whole = [], None
        for _ in range(3):
            await client.call_tool("list_channels", {"refresh": True})
            started = time.perf_counter()
            whole = await client.call_tool("enumerate_matches", {"query": query, "max_chars": 150000})
            times.append(time.perf_counter() - started)
        one = statistics.median(times)
        await client.call_tool("list_channels", {"refresh": True})
        expected = [v["id"] for v in whole.structured_content["videos"]]
        seen, cursor, pages, largest = [], None, 0, 0
        started = time.perf_counter()
        while True:
            args = {"query": query, "max_chars": room, **({"cursor": cursor} if cursor else {})}
            page = await client.call_tool("enumerate_matches", args)
            if page.is_error:
                sys.exit(f"page {pages + 1} refused: {page.content[0].text[:400]}")
            pages += 1
            size = len(page.content[0].text) + len(json.dumps(page.structured_content, ensure_ascii=False, separators=(",", ":")))
            largest = max(largest, size)
            seen += [v["id"] for v in page.structured_content["videos"]]
            cursor = page.structured_content["next_cursor"]
            if not cursor:
                break
        walk = time.perf_counter() - started
    print(json.dumps({
        "query": query,
        "rows": len(seen),
        "total": whole.structured_content["total"],
        "max_chars": room,
        "pages": pages,
        "largest_page_chars": largest,
        "one_default_call_s": round(one, 3),
        "whole_walk_s": round(walk, 3),
        "walk_over_one_call": round(walk / one, 2),
        "every_row_once_in_order": seen == expected,
    }, indent=1))


asyncio.run(main())
