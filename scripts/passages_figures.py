#!/usr/bin/env python3
"""docs/passages.md, generated: passages by meaning on TWIML, measured in one
run on this machine.

  .venv/bin/python scripts/passages_figures.py MODEL_DIR [--corpus DIR]
      [--st-python PYTHON] [--out docs/passages.md]

MODEL_DIR is the installed all-MiniLM-L6-v2 (`archilyzer-index model
install`); --corpus the TWIML captions (default ../shared/corpora/twiml/vtt);
--st-python a Python with sentence-transformers and PyTorch (CPU) for the
throughput comparison and the reference (default: this one). Needs
`cargo build --release` and the test venv (.venv, the `mcp` client).

What it does, each step timed on the same machine in one run:
1. the reference check (scripts/embed_reference.py, 60 windows);
2. throughput: the same 1,000 windows of about 40 s embedded by
   `archilyzer-index model embed` and by sentence-transformers with
   PyTorch on 2 threads;
3. the whole corpus imported, indexed and embedded from nothing
   (`import --build --embed`);
4. ten episodes changed (a word added to each cue) and re-imported with
   --build --embed: only they are embedded again;
5. find_passages through a running server (the real Python MCP client),
   each subject of the judgment set asked three times, and an empty call
   (`ping`) for the round trip's own cost; then the same calls as bare
   JSON-RPC lines over stdio, without the SDK;
6. the same over a million passages (`archilyzer-dev grow-passages`), with
   the server's resident memory, mapped and private;
7. quality: scripts/passages_quality.py.
"""

import asyncio
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BIN = os.path.join(REPO, "target/release/archilyzer-index")
DEV = os.path.join(REPO, "target/release/archilyzer-dev")
MCP = os.path.join(REPO, "target/release/archilyzer-mcp")
sys.path.insert(0, HERE)
from twiml_windows import windows  # noqa: E402


def arg(name, default):
    if name in sys.argv:
        i = sys.argv.index(name)
        value = sys.argv[i + 1]
        del sys.argv[i:i + 2]
        return value
    return default


def run(cmd, **kw):
    started = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return out, time.monotonic() - started


def throughput(model, corpus, st_python, tmp):
    texts = windows(corpus, 1000, 40.0, per_file=2)
    path = os.path.join(tmp, "texts.json")
    json.dump(texts, open(path, "w"))
    _, ours = run([BIN, "model", "embed", "--model", model, "--texts-file", path])
    code = (
        "import json, sys, time, torch\n"
        "torch.set_num_threads(2)\n"
        "from sentence_transformers import SentenceTransformer\n"
        f"m = SentenceTransformer({model!r}, device='cpu')\n"
        f"t = json.load(open({path!r}))\n"
        "m.encode(t[:32])\n"
        "s = time.monotonic(); m.encode(t, batch_size=32); print(time.monotonic() - s)\n"
    )
    out, _ = run([st_python, "-c", code])
    theirs = float(out.stdout.strip().splitlines()[-1])
    return len(texts), ours, theirs


def embed_line(stderr):
    return next(l for l in stderr.splitlines() if l.startswith("embed: ") and " in " in l and "store" in l)


def changed_ten(corpus, archive, index, model, tmp):
    copy = os.path.join(tmp, "changed")
    shutil.copytree(corpus, copy)
    names = sorted(n for n in os.listdir(copy) if n.endswith(".vtt"))
    chosen = random.Random(1).sample(names, 10)
    for name in chosen:
        path = os.path.join(copy, name)
        lines = open(path, encoding="utf-8").read().split("\n")
        out, after_stamp = [], False
        for line in lines:
            if "-->" in line:
                after_stamp = True
            elif after_stamp and line.strip():
                line = line + " indeed"
                after_stamp = False
            out.append(line)
        open(path, "w", encoding="utf-8").write("\n".join(out))
    out, seconds = run([BIN, "import", "--from", copy, "--out", archive, "--channel", "twiml",
                        "--channel-name", "TWIML AI Podcast", "--build", "--index", index, "--embed", "--model", model])
    return seconds, embed_line(out.stderr)


async def latency(archive, index, model, queries, rounds=3):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=MCP, args=["--local", archive, "--index", index, "--model", model],
                                   env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")})
    times, pings = [], []
    # The 2025 era: its `ping` is the empty call (the 2026 era has none).
    async with Client(params, mode="legacy") as client:
        await client.call_tool("find_passages", {"query": "warm up", "limit": 10})
        for _ in range(rounds):
            for q in queries:
                s = time.perf_counter()
                r = await client.call_tool("find_passages", {"query": q, "limit": 10})
                times.append((time.perf_counter() - s) * 1000)
                assert not r.is_error, r
                s = time.perf_counter()
                await client.send_ping()
                pings.append((time.perf_counter() - s) * 1000)
        pid = server_pid(archive, index)
        memory = rss(pid) if pid else {}
    return times, pings, memory


def raw_latency(archive, index, model, queries, rounds=3):
    """The same calls as `latency`, as bare JSON-RPC lines over the
    server's stdio (no SDK on the client side): the server's own time and
    the pipe's, without the Python client's parsing and checking of the
    answer."""
    server = subprocess.Popen([MCP, "--local", archive, "--index", index, "--model", model],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def call(n, method, params):
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
        server.stdin.flush()
        while True:
            answer = json.loads(server.stdout.readline())
            if answer.get("id") == n:
                return answer

    call(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "passages_figures", "version": "1"}})
    server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    call(1, "tools/call", {"name": "find_passages", "arguments": {"query": "warm up", "limit": 10}})
    times = []
    for r in range(rounds):
        for i, q in enumerate(queries):
            s = time.perf_counter()
            answer = call(2 + r * len(queries) + i, "tools/call", {"name": "find_passages", "arguments": {"query": q, "limit": 10}})
            times.append((time.perf_counter() - s) * 1000)
            assert not answer["result"].get("isError"), answer
    server.stdin.close()
    server.wait()
    return times


def server_pid(archive, index):
    out = subprocess.run(["pgrep", "-f", f"archilyzer-mcp --local {archive} --index {index}"], capture_output=True, text=True)
    pids = out.stdout.split()
    return pids[0] if pids else None


def rss(pid):
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def summary(ms):
    ms = sorted(ms)
    return statistics.median(ms), ms[int(len(ms) * 0.9) - 1], ms[-1]


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} cores ({cpu}), commit {commit}, {time.strftime('%Y-%m-%d')}"


def main():
    corpus = arg("--corpus", os.path.join(REPO, "../shared/corpora/twiml/vtt"))
    st_python = arg("--st-python", sys.executable)
    out_path = arg("--out", os.path.join(REPO, "docs/passages.md"))
    model = os.path.abspath(sys.argv[1])
    judgments = json.load(open(os.path.join(HERE, "data/passages_judgments.json")))["subjects"]
    queries = [s["query"] for s in judgments]
    tmp = tempfile.mkdtemp(prefix="passages-figures-")
    archive, index = os.path.join(tmp, "twiml"), os.path.join(tmp, "index")
    f = {"machine": machine()}

    print("1. reference", file=sys.stderr)
    out, _ = run([st_python, os.path.join(HERE, "embed_reference.py"), BIN, model, corpus, "60"])
    f["reference"] = [l for l in out.stdout.splitlines() if "windows" in l]

    print("2. throughput", file=sys.stderr)
    f["windows"], f["ours"], f["theirs"] = throughput(model, corpus, st_python, tmp)

    print("3. the whole corpus", file=sys.stderr)
    out, f["full_seconds"] = run([BIN, "import", "--from", corpus, "--out", archive, "--channel", "twiml",
                                  "--channel-name", "TWIML AI Podcast", "--build", "--index", index,
                                  "--embed", "--model", model])
    f["full_line"] = embed_line(out.stderr)
    f["store_bytes"] = sum(os.path.getsize(os.path.join(index, "passages", n)) for n in os.listdir(os.path.join(index, "passages")))

    print("4. ten changed episodes", file=sys.stderr)
    f["ten_seconds"], f["ten_line"] = changed_ten(corpus, archive, index, model, tmp)

    print("5. find_passages on TWIML", file=sys.stderr)
    times, pings, memory = asyncio.run(latency(archive, index, model, queries))
    f["twiml_ms"], f["ping_ms"], f["twiml_memory"] = summary(times), summary(pings), memory
    f["twiml_passages"] = json.load(open(os.path.join(index, "passages/meta.json")))["passages"]
    f["twiml_raw_ms"] = summary(raw_latency(archive, index, model, queries))

    print("6. a million passages", file=sys.stderr)
    times_n = -(-1_000_000 // f["twiml_passages"])
    grown = os.path.join(tmp, "grown")
    run([DEV, "grow-passages", "--index", index, "--out", grown, "--times", str(times_n)])
    f["grown_passages"] = times_n * f["twiml_passages"]
    times, pings, memory = asyncio.run(latency(archive, grown, model, queries))
    f["grown_ms"], f["grown_ping_ms"], f["grown_memory"] = summary(times), summary(pings), memory
    f["grown_raw_ms"] = summary(raw_latency(archive, grown, model, queries))

    print("7. quality", file=sys.stderr)
    out, _ = run([sys.executable, os.path.join(HERE, "passages_quality.py"), BIN, archive, index, "--model", model])
    f["quality"] = out.stdout.strip()

    shutil.rmtree(tmp, ignore_errors=True)
    open(out_path, "w").write(render(f))
    print(f"wrote {out_path}", file=sys.stderr)


def render(f):
    ratio = f["theirs"] / f["ours"]
    tw, gr = f["twiml_ms"], f["grown_ms"]
    mem_t, mem_g = f["twiml_memory"], f["grown_memory"]
    mb = lambda m, k: f"{m.get(k, 0):.0f} MB"
    return f"""# Passages by meaning: how they are made and what they cost

Written by `python3 scripts/passages_figures.py` (one run: {f['machine']}); do not edit by hand.

`archilyzer-index build --embed` cuts every video's captions into passages
(runs of consecutive cues of about 40 seconds, no overlap; the rule is
`archilyzer_core::passages::cut`), embeds each with a sentence model run
in-process (`archilyzer-embed`: a BERT forward pass on `ndarray`, the
tokeniser read from `tokenizer.json`), and keeps the vectors as int8 beside
the index with the model's identity. `archilyzer-index passages` and the
MCP tool `find_passages` rank passages by the cosine of their vector with
the question's, by BM25 over their words, or by both fused (reciprocal rank
fusion, constant 60, over each ranking's best 1,000). In `both`, the words
side also searches for ten words taken from the ten best passages by
meaning (pseudo-relevance feedback, as RM3 does, with its usual ten and
ten; `archilyzer_core::passages::feedback`): a question put in other words
than the episodes use shares few words with them, and the feedback words
are the episodes' own. They rank; they count nothing: counts stay with
`search` and `search_transcripts`.

Why 40 seconds: about a hundred spoken words, one exchange on one subject,
inside the model's 256 word pieces (a passage is also closed at 1,000
characters, so dense speech is not cut off by the model); 20, 40 and 60
seconds are compared on the judgment set in
[passage-length.md](passage-length.md).

## The vectors against a reference

{chr(10).join('- ' + l for l in f['reference'])}

## Embedding speed, same windows, same 2 cores

| | seconds for {f['windows']} windows |
|---|---:|
| `archilyzer-index model embed` (model load included) | {f['ours']:.1f} |
| sentence-transformers, PyTorch CPU, 2 threads, batch 32 | {f['theirs']:.1f} |
| ratio (theirs ÷ ours) | {ratio:.2f} |

The whole corpus from nothing (`import --build --embed`): {f['full_seconds'] / 60:.1f} minutes.

    {f['full_line']}

Ten episodes changed (a word added to each cue), re-imported with
`--build --embed`: {f['ten_seconds']:.1f} s for the whole command.

    {f['ten_line']}

The store: {f['store_bytes'] / 1e6:.1f} MB for {f['twiml_passages']} passages.

## find_passages through a running server

The real Python MCP client over stdio, each of the {len(json.load(open(os.path.join(HERE, 'data/passages_judgments.json')))['subjects'])} subjects of the
judgment set asked three times (`by: both`, 10 passages, the query embedded
in each call).

| passages | median | 90th percentile | slowest | bare JSON-RPC median | empty call (ping) median | server RSS (mapped / private) |
|---:|---:|---:|---:|---:|---:|---|
| {f['twiml_passages']} (TWIML) | {tw[0]:.1f} ms | {tw[1]:.1f} ms | {tw[2]:.1f} ms | {f['twiml_raw_ms'][0]:.1f} ms | {f['ping_ms'][0]:.2f} ms | {mb(mem_t, 'VmRSS')} ({mb(mem_t, 'RssFile')} / {mb(mem_t, 'RssAnon')}) |
| {f['grown_passages']} (grown) | {gr[0]:.1f} ms | {gr[1]:.1f} ms | {gr[2]:.1f} ms | {f['grown_raw_ms'][0]:.1f} ms | {f['grown_ping_ms'][0]:.2f} ms | {mb(mem_g, 'VmRSS')} ({mb(mem_g, 'RssFile')} / {mb(mem_g, 'RssAnon')}) |

"Bare JSON-RPC" is the same calls written as JSON lines to the server's
stdio by a few lines of Python, without the SDK: the server's own time
and the pipe's. The SDK client's extra is its parsing and checking of
each answer (about 20 KB of text and structured content).

A query's own cost is mostly its embedding (six layers over its word
pieces, the weights read as f16 from a 21 MB copy that stays in the L3
cache, four word pieces per weight load, AVX2 chosen at run time, the
layers split across both cores), then the scan of every int8 vector
(an int8 query, integer sums), then BM25 over the lists of the query's
words and the feedback words.

The grown store is TWIML's passages copied (`archilyzer-dev grow-passages`),
each copy's vector moved by seeded noise: the meaning side scans every
vector and the words side's lists are as many times longer. The vectors
are memory-mapped: their pages are the kernel's file cache (mapped), not
the server's own memory (private).

## Quality on TWIML

The judgment set (`scripts/data/passages_judgments.json`) asks about
subjects in words the relevant episodes' titles do not use; relevance
comes from the titles. Ten episodes per question (`--one-per-video`),
precision and recall at 10 by episode:

{f['quality']}
"""


if __name__ == "__main__":
    main()
