"""Soak: one archilyzer-mcp process serves CALLS mixed tool calls from the
real Python MCP client, CONCURRENCY at a time, on ARCHIVE (TWIML in CI).

Usage: python3 soak.py BINARY ARCHIVE INDEX [CALLS] [CONCURRENCY]
Prints the figures as JSON: calls, errors, RSS after the first 1,000 calls
and at the end (from /proc), the drift, and p50/p99 latency per tool.
Exits 1 on any error or an RSS drift over 10%."""

import asyncio
import json
import os
import random
import sys
import time

from mcp import Client
from mcp.client.stdio import StdioServerParameters

WORDS = ["model", "data", "learning", "neural network", "reinforcement learning", "transformer",
         "gradient", "robot", "language model", "inference", "benchmark", "startup", "python",
         "attention", "dataset", "privacy", "graph", "vision", "speech", "optimization"]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def server_pid(binary):
    me = os.getpid()
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            exe = os.readlink(f"/proc/{p}/exe")
        except OSError:
            continue
        if ppid == me and os.path.samefile(exe, binary):
            return int(p)
    raise SystemExit("the server process was not found")


def mix(rng, ids):
    kind = rng.choices(
        ["search_transcripts", "enumerate_matches", "get_transcript", "get_transcripts",
         "get_video_metadata", "list_channels", "list_tags", "list_sources", "ask_plan"],
        weights=[30, 8, 20, 12, 10, 8, 4, 4, 4])[0]
    word = rng.choice(WORDS)
    if kind == "search_transcripts":
        return kind, {"query": word, "limit": rng.choice([5, 20]), "offset": rng.choice([0, 0, 10])}
    if kind == "enumerate_matches":
        return kind, {"query": rng.choice(["reinforcement learning", "privacy", "robot"])}
    if kind == "get_transcript":
        return kind, {"video_id": rng.choice(ids)}
    if kind == "get_transcripts":
        return kind, {"video_ids": rng.sample(ids, 5), "query": word, "before": 10, "after": 10}
    if kind == "get_video_metadata":
        return kind, {"video_id": rng.choice(ids)}
    if kind == "ask_plan":
        return kind, {"request": f"what did they say about {word}?"}
    return kind, {}


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def main():
    binary, archive, index = sys.argv[1:4]
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 10000
    concurrency = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    params = StdioServerParameters(command=binary, args=["--local", archive, "--index", index],
                                   env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), **({"MALLOC_ARENA_MAX": os.environ["MALLOC_ARENA_MAX"]} if "MALLOC_ARENA_MAX" in os.environ else {})})
    rng = random.Random(7)
    latencies, errors = {}, []
    async with Client(params) as client:
        pid = server_pid(binary)
        first = await client.call_tool("enumerate_matches", {"query": "learning"})
        ids = [v["id"] for v in first.structured_content["videos"]][:200]
        rss_1000 = None
        series = []
        done = 0
        started = time.perf_counter()

        async def one(kind, args):
            t0 = time.perf_counter()
            try:
                r = await client.call_tool(kind, args)
                if r.is_error:
                    errors.append((kind, args, "".join(b.text for b in r.content)[:300]))
            except Exception as e:  # a failed request counts as an error
                errors.append((kind, args, repr(e)))
            latencies.setdefault(kind, []).append((time.perf_counter() - t0) * 1000)

        while done < calls:
            batch = [mix(rng, ids) for _ in range(min(concurrency, calls - done))]
            await asyncio.gather(*(one(k, a) for k, a in batch))
            done += len(batch)
            if done // 1000 > len(series):
                series.append(round(rss_mb(pid), 1))
            if rss_1000 is None and done >= 1000:
                rss_1000 = rss_mb(pid)
        rss_end = rss_mb(pid)
        elapsed = time.perf_counter() - started
    drift = (rss_end - rss_1000) / rss_1000 * 100
    report = {
        "calls": done, "concurrency": concurrency, "errors": len(errors), "seconds": round(elapsed, 1),
        "rss_after_1000_mb": round(rss_1000, 1), "rss_end_mb": round(rss_end, 1), "rss_drift_pct": round(drift, 1),
        "rss_every_1000_mb": series,
        "latency_ms": {k: {"n": len(v), "p50": round(pct(v, 50), 1), "p99": round(pct(v, 99), 1)} for k, v in sorted(latencies.items())},
        "first_errors": errors[:5],
    }
    print(json.dumps(report, indent=1))
    if errors or drift > 10:
        sys.exit(1)


asyncio.run(main())
