"""Soak: one archilyzer-mcp process serves CALLS mixed tool calls from the
real Python MCP client, CONCURRENCY at a time, on ARCHIVE (TWIML in CI).

Usage: python3 soak.py BINARY ARCHIVE INDEX [CALLS] [CONCURRENCY]
Prints the figures as JSON: calls, errors, RSS at rest (one second after
the last answer, from /proc) after every twelfth of the calls, its drift,
and p50/p99 latency per tool. At rest is where a leak shows and answers in
flight do not. Which pages the cache holds and how the allocator's free
lists lie still move a resting server's size by several percent either
way, so the drift compares medians: that of the last third of the samples
against that of the first third. A leak grows with the calls and shows in
it; the wander does not.
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


# How many times RSS is read at rest during the run.
SAMPLES = 12


def median(xs):
    return sorted(xs)[len(xs) // 2]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def main():
    binary, archive, index = sys.argv[1:4]
    calls = int(sys.argv[4]) if len(sys.argv) > 4 else 10000
    concurrency = int(sys.argv[5]) if len(sys.argv) > 5 else 4
    params = StdioServerParameters(command=binary, args=["--local", archive, "--index", index],
                                   env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")})
    rng = random.Random(7)
    latencies, errors = {}, []
    async with Client(params) as client:
        pid = server_pid(binary)
        first = await client.call_tool("enumerate_matches", {"query": "learning"})
        ids = [v["id"] for v in first.structured_content["videos"]][:200]
        # Warm up as a long-running server is: every page read once (the page
        # cache full), so the drift measures the run, not the cache filling.
        await client.call_tool("enumerate_matches", {"query": "the", "max_chars": 2000})
        for k in range(0, len(ids), 5):
            await client.call_tool("get_transcripts", {"video_ids": ids[k:k + 5], "query": "the"})
        for video in ids:
            await client.call_tool("get_transcript", {"video_id": video})
        # And at the run's concurrency, so the allocator's per-thread caches
        # have grown to what the run keeps (its own draws: the measured
        # sequence is unchanged).
        warm_rng = random.Random(11)
        for _ in range(max(1, calls // 4) // concurrency):
            await asyncio.gather(*(client.call_tool(k, a) for k, a in (mix(warm_rng, ids) for _ in range(concurrency))))
        series = []
        done = 0
        resting = 0.0

        async def at_rest():
            nonlocal resting
            await asyncio.sleep(1)
            resting += 1
            return rss_mb(pid)

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
            if done * SAMPLES // calls > len(series):
                series.append(await at_rest())
        elapsed = time.perf_counter() - started - resting
    third = SAMPLES // 3
    early, late = median(series[:third]), median(series[-third:])
    drift = (late - early) / early * 100
    report = {
        "calls": done, "concurrency": concurrency, "errors": len(errors), "seconds": round(elapsed, 1),
        "rss_at_rest_mb": [round(mb, 1) for mb in series],
        "rss_at_rest_first_third_median_mb": round(early, 1), "rss_at_rest_last_third_median_mb": round(late, 1),
        "rss_drift_pct": round(drift, 1),
        "latency_ms": {k: {"n": len(v), "p50": round(pct(v, 50), 1), "p99": round(pct(v, 99), 1)} for k, v in sorted(latencies.items())},
        "first_errors": errors[:5],
    }
    print(json.dumps(report, indent=1))
    if errors or drift > 10:
        sys.exit(1)


asyncio.run(main())
