"""docs/related-cost.md, generated: what significant_terms and
related_videos cost through a running server.

  .venv/bin/python scripts/related_cost.py ARCHIVE INDEX [--query Q ...] [--runs N] [--videos K] [--print]

With --print the page is printed and docs/related-cost.md left alone.

ARCHIVE is a composed public dir with a fresh INDEX (`archilyzer-index
build`); the server is target/release/archilyzer-mcp, driven by the Python
`mcp` client (the test venv, .venv). For each query (default: the three
questions of scripts/fts5_compare.py), `enumerate_matches` and
`significant_terms` are called in turn N times (default 7), each call with
an exclude no video holds that changes each run, so no worklist is kept
from an earlier call; the medians and the median of the paired ratios are
printed. Then `related_videos` is asked of K videos (default 15) taken at
random (seed 1) from the index's rows, of a server started for them: the
median, and the first call, the server's first question.
"""

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, os.path.dirname(__file__))
from fts5_compare import QUESTIONS, written_by  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(REPO, "target", "release", "archilyzer-mcp")
OUT = os.path.join(REPO, "docs", "related-cost.md")


async def timed(session, tool, args):
    """Milliseconds of one call; an error answer stops the run."""
    start = time.perf_counter()
    res = await session.call_tool(tool, args)
    took = (time.perf_counter() - start) * 1000
    if res.is_error:
        sys.exit(f"{tool} {args}: {res.content[0].text}")
    return took


async def pair(session, query, runs):
    """enumerate_matches and significant_terms of `query`, in turn."""
    times = {"enumerate_matches": [], "significant_terms": []}
    for i in range(runs):
        for tool, ts in times.items():
            args = {"query": query, "exclude": [f"zzqv{i}x"], "max_chars": 4000}
            ts.append(await timed(session, tool, args))
    e, s = times["enumerate_matches"], times["significant_terms"]
    ratio = statistics.median(b / a for a, b in zip(e, s))
    return f"| `{query}` | {statistics.median(e):.1f} | {statistics.median(s):.1f} | {ratio:.2f}× |"


async def related(params, index, k):
    """related_videos of `k` videos taken at random from the index's rows,
    asked of a server just started: its first call is its first question."""
    # The index's rows: a JSON array, compressed (the `zstd` command line).
    rows = json.loads(subprocess.run(["zstd", "-dc", os.path.join(index, "videos.json.zst")],
                                     check=True, capture_output=True).stdout)
    random.seed(1)
    ts = []
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()
            for row in random.sample(rows, k):
                args = {"video_id": row["slug"], "channel": row["channel"], "max_chars": 4000}
                ts.append(await timed(session, "related_videos", args))
    return (f"`related_videos` of {k} videos taken at random, asked of a server just started: "
            f"median {statistics.median(ts):.1f} ms, slowest {max(ts):.1f} ms; the first, the server's "
            f"first question (asked as soon as it answered `initialize`), {ts[0]:.1f} ms.")


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("archive")
    ap.add_argument("index")
    ap.add_argument("--query", action="append")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--videos", type=int, default=15)
    ap.add_argument("--print", action="store_true")
    a = ap.parse_args()
    queries = a.query or [q for _, q in QUESTIONS]
    params = StdioServerParameters(command=SERVER, args=["--local", a.archive, "--index", a.index])
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()
            await session.call_tool("list_channels", {})
            rows = [await pair(session, q, a.runs) for q in queries]
    alike = await related(params, a.index, a.videos)
    lines = [
        "# What related words and videos cost",
        "",
        written_by("related_cost.py"),
        "",
        f"Archive: `{a.archive}`. Through a running `archilyzer-mcp` and the Python client, each question "
        f"asked {a.runs} times of both tools in turn, with an exclude no video holds that changes each "
        "call (so nothing is kept from an earlier one); medians, and the median of the paired ratios.",
        "",
        "| query | `enumerate_matches` ms | `significant_terms` ms | ratio |",
        "|---|---|---|---|",
        *rows,
        "",
        alike,
        "",
    ]
    text = "\n".join(lines)
    if a.print:
        print(text)
    else:
        with open(OUT, "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    asyncio.run(main())
