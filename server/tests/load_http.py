"""Load: one `archilyzer-mcp --http` process on loopback serves CLIENTS
concurrent clients, each making CALLS mixed tool calls (searches, batch
reads, metadata) as MCP JSON-RPC over Streamable HTTP with a bearer token.
Each client connects from its own loopback address (127.0.0.N), so the
per-client limit applies to it alone; a 429 or 503 is the designed answer
to too many calls at once, and the client waits its Retry-After and asks
again. Meanwhile two slow clients misbehave: one trickles its headers, one
sends headers and never its body; both must be dropped by the server's
timeouts while the others are served. Meanwhile /health (no token) and
/metrics (with the token; refused without) are scraped every second; at
the end the scraped tool calls must equal the calls answered, and the
refusals by kind the designed 429s and 503s the clients saw.

Usage: python3 load_http.py BINARY ARCHIVE INDEX [CLIENTS] [CALLS] [--max-peak-mb MB] [--model DIR]
With --model DIR (and passages embedded beside INDEX), a fifth of the
calls are find_passages, the sentence model loaded by the server.
Prints the figures as JSON: calls, errors, designed 429/503s, p50/p99 per
tool, the median RSS of each tenth of the run, peak RSS, its drift, and how
the slow clients were dropped. The drift is measured at rest, where a leak
shows and answers in flight do not: the run is cut into nine phases (after
a warm-up that reads every page once); after each, every client has its
answers and RSS is read one second later. Which pages the cache holds and
how the allocator's free lists lie still move a resting server's size by
several percent either way, so the drift compares medians: the last three
phases against the first three. A leak grows with the calls and shows in
it; the wander does not. Exits 1 on any error, a drift over 10%, a peak
RSS over --max-peak-mb, or a slow client that held on."""

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time

import httpx2

WORDS = ["model", "data", "learning", "neural network", "reinforcement learning", "transformer",
         "gradient", "robot", "language model", "inference", "benchmark", "privacy", "speech"]
TOKEN = "load-test-token-5d1e"


def rss_kb(pid, field="VmRSS:"):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# With --model, find_passages joins the mix (the index must hold passages).
PASSAGES = {"on": False}


def mix(rng, ids):
    kinds = ["search_transcripts", "get_transcripts", "get_video_metadata", "get_transcript", "list_channels"]
    weights = [40, 20, 20, 10, 10]
    if PASSAGES["on"]:
        kinds, weights = kinds + ["find_passages"], weights + [20]
    kind = rng.choices(kinds, weights=weights)[0]
    word = rng.choice(WORDS)
    if kind == "find_passages":
        return kind, {"query": f"what they said about {word}", "limit": 10}
    if kind == "search_transcripts":
        return kind, {"query": word, "limit": rng.choice([5, 20])}
    if kind == "get_transcripts":
        return kind, {"video_ids": rng.sample(ids, 5), "query": word, "before": 10, "after": 10}
    if kind in ("get_video_metadata", "get_transcript"):
        return kind, {"video_id": rng.choice(ids), **({"max_chars": 8000} if kind == "get_transcript" else {})}
    return kind, {}


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else 0


async def call(http, url, n, kind, args):
    body = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": kind, "arguments": args}}
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    return await http.post(url, json=body, headers=headers)


# How many phases the run is cut into, with RSS read at rest after each.
PHASES = 9


def median(xs):
    return sorted(xs)[len(xs) // 2]


def parse_metrics(text):
    """{(name, labels): value} of a Prometheus text answer."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, value = line.rsplit(" ", 1)
        name, _, labels = name_labels.partition("{")
        out[(name, labels.rstrip("}"))] = float(value)
    return out


def metric_sum(metrics, name, having=""):
    return sum(v for (n, labels), v in metrics.items() if n == name and having in labels)


async def scrape(port, stats):
    """Scrapes /health and /metrics every second until the run ends."""
    base = f"http://127.0.0.1:{port}"
    async with httpx2.AsyncClient(timeout=30) as http:
        while not stats.get("finished"):
            health = await http.get(f"{base}/health")
            refused = await http.get(f"{base}/metrics")
            metrics = await http.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
            ok = (health.status_code, health.text.strip(), refused.status_code, metrics.status_code) == (200, "ready", 401, 200)
            stats["scrapes"] = stats.get("scrapes", 0) + 1
            if not ok:
                stats["errors"].append(("scrape", health.status_code, health.text[:100], refused.status_code, metrics.status_code))
            await asyncio.sleep(1)


async def client(i, url, calls, ids, stats):
    """Client `i` makes the calls numbered in `calls` (a range), each drawn
    from its own seeded mix, so the two phases together make one sequence."""
    rng = random.Random(i)
    drawn = [mix(rng, ids) for _ in range(calls.stop)]
    transport = httpx2.AsyncHTTPTransport(local_address=f"127.0.0.{2 + i}")
    async with httpx2.AsyncClient(transport=transport, timeout=120) as http:
        for n in calls:
            kind, args = drawn[n]
            t0 = time.perf_counter()
            while True:
                try:
                    r = await call(http, url, n, kind, args)
                except Exception as e:
                    stats["errors"].append((kind, repr(e)))
                    break
                if r.status_code in (429, 503):
                    stats["busy"][r.status_code] = stats["busy"].get(r.status_code, 0) + 1
                    await asyncio.sleep(float(r.headers.get("retry-after", "1")) * rng.random())
                    continue
                result = r.json().get("result") if r.status_code == 200 else None
                if result is None or result.get("isError"):
                    stats["errors"].append((kind, args, r.status_code, r.text[:300]))
                break
            stats["latency"].setdefault(kind, []).append((time.perf_counter() - t0) * 1000)
            stats["done"] += 1


async def slow_client(port, body):
    """Trickles a request; returns how long the server kept the connection
    before closing it (or None if it was still open after 40 s)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n"
    started = time.perf_counter()
    try:
        if body:
            writer.write((head + "\r\n{").encode())
            await writer.drain()
        else:
            for ch in head:
                writer.write(ch.encode())
                await writer.drain()
                await asyncio.sleep(1)
                if reader.at_eof():
                    break
        answer = await asyncio.wait_for(reader.read(), timeout=40)
        return round(time.perf_counter() - started, 1), answer.split(b"\r\n", 1)[0].decode(errors="replace")
    except (ConnectionError, asyncio.TimeoutError, OSError) as e:
        return round(time.perf_counter() - started, 1), repr(e)
    finally:
        writer.close()


async def main():
    args = sys.argv[1:]
    max_peak_mb = None
    if "--max-peak-mb" in args:
        at = args.index("--max-peak-mb")
        max_peak_mb = float(args[at + 1])
        del args[at:at + 2]
    model = []
    if "--model" in args:
        at = args.index("--model")
        model = ["--model", args[at + 1]]
        PASSAGES["on"] = True
        del args[at:at + 2]
    binary, archive, index = args[0:3]
    clients = int(args[3]) if len(args) > 3 else 50
    calls = int(args[4]) if len(args) > 4 else 200
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    server = subprocess.Popen([binary, "--local", archive, "--index", index, "--http", f"127.0.0.1:{port}",
                               "--max-in-flight-per-client", "4", "--max-in-flight", "16", "--call-timeout-secs", "20",
                               *model],
                              env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"),
                                   "ARCHILYZER_HTTP_TOKEN": TOKEN}, stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        async with httpx2.AsyncClient(timeout=120) as http:
            r = await call(http, url, 0, "enumerate_matches", {"query": "learning", "max_chars": 150000})
            ids = [v["id"] for v in r.json()["result"]["structuredContent"]["videos"]][:200]
            # Warm up as a long-running server is: every page read once (the
            # page cache full), so the drift below measures the run, not the
            # cache filling.
            await call(http, url, 0, "enumerate_matches", {"query": "the", "max_chars": 2000})
            await call(http, url, 0, "get_transcripts", {"video_ids": ids[:20], "query": "the"})
            if PASSAGES["on"]:  # the model loaded and the store opened before the drift counts
                await call(http, url, 0, "find_passages", {"query": "warm up", "limit": 10})
        stats = {"errors": [], "busy": {}, "latency": {}, "done": 0}
        total = clients * calls
        # RSS under load, sampled with the number of calls done (a figure;
        # the drift is measured at rest, below).
        samples = []

        async def watch():
            while stats["done"] < total:
                samples.append((stats["done"], rss_kb(server.pid)))
                await asyncio.sleep(0.2)

        async def at_rest():
            await asyncio.sleep(1)
            return rss_kb(server.pid)

        started = time.perf_counter()
        slow = asyncio.gather(slow_client(port, body=False), slow_client(port, body=True))
        watching = asyncio.ensure_future(watch())
        scraping = asyncio.ensure_future(scrape(port, stats))
        resting = []
        for k in range(PHASES):
            phase = range(k * calls // PHASES, (k + 1) * calls // PHASES)
            await asyncio.gather(*(client(i, url, phase, ids, stats) for i in range(clients)))
            resting.append(await at_rest())
        elapsed = time.perf_counter() - started - PHASES  # less the rests between phases
        await watching
        peak = rss_kb(server.pid, "VmHWM:")
        trickled, unfinished = await slow
        stats["finished"] = True
        await scraping
        async with httpx2.AsyncClient(timeout=30) as http:
            text = (await http.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})).text
        metrics = parse_metrics(text)
    finally:
        server.kill()
        server.wait()
    def median_rss(lo, hi):
        inside = sorted(kb for done, kb in samples if lo * total <= done < hi * total)
        return inside[len(inside) // 2] if inside else None
    tenths = [median_rss(k / 10, (k + 1) / 10 + (0.01 if k == 9 else 0)) for k in range(10)]
    third = PHASES // 3
    early, late = median(resting[:third]), median(resting[-third:])
    drift = (late - early) / early * 100
    report = {
        "clients": clients, "calls_each": calls, "calls": stats["done"], "errors": len(stats["errors"]),
        "designed_busy_answers": stats["busy"], "seconds": round(elapsed, 1),
        "calls_per_second": round(stats["done"] / elapsed, 1),
        "rss_median_mb_by_tenth": [round(kb / 1024, 1) if kb else None for kb in tenths],
        "rss_at_rest_by_phase_mb": [round(kb / 1024, 1) for kb in resting],
        "peak_rss_mb": round(peak / 1024, 1), "rss_drift_pct": round(drift, 1),
        "latency_ms": {k: {"n": len(v), "p50": round(pct(v, 50), 1), "p99": round(pct(v, 99), 1)}
                       for k, v in sorted(stats["latency"].items())},
        "slow_headers_dropped_after_s": trickled, "unfinished_body_answered_after_s": unfinished,
        "first_errors": stats["errors"][:5],
    }
    # The warm-up made 3 calls; every other call answered is one the clients counted.
    scraped = {
        "scrapes": stats.get("scrapes", 0),
        "tool_calls": metric_sum(metrics, "archilyzer_tool_calls_total"),
        "refused_429": metric_sum(metrics, "archilyzer_http_refusals_total", 'kind="client_limit"'),
        "refused_503": metric_sum(metrics, "archilyzer_http_refusals_total", 'kind="server_busy"'),
        "pages_read": metric_sum(metrics, "archilyzer_pages_read_total"),
        "index_hits": metric_sum(metrics, "archilyzer_index_lookups_total", 'result="hit"'),
        "index_misses": metric_sum(metrics, "archilyzer_index_lookups_total", 'result="miss"'),
    }
    report["metrics"] = scraped
    warm_ups = 4 if PASSAGES["on"] else 3
    metrics_ok = (scraped["tool_calls"] == stats["done"] + warm_ups and scraped["scrapes"] > 0
                  and scraped["refused_429"] == stats["busy"].get(429, 0)
                  and scraped["refused_503"] == stats["busy"].get(503, 0))
    report["metrics_agree"] = metrics_ok
    print(json.dumps(report, indent=1))
    slow_ok = trickled[0] <= 15 and unfinished[0] <= 25
    peak_ok = max_peak_mb is None or peak / 1024 <= max_peak_mb
    if stats["errors"] or drift > 10 or not slow_ok or not metrics_ok or not peak_ok:
        sys.exit(1)


asyncio.run(main())
