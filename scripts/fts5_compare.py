"""docs/fts5.md, generated: the questions an agent asks most, timed in one
run through SQLite FTS5 (the engine of yt-fts: positions stored, the text
never read again) and through this project, on the same archive.

  python3 scripts/fts5_compare.py ARCHIVE INDEX [--rare W] [--phrase P] [--common W] [--runs N] [--json OUT]

With --json the measurements are written to OUT as JSON (what
scripts/figures.py reads) and docs/fts5.md is left alone.

ARCHIVE is a composed public dir with a fresh INDEX (`archilyzer-index
build`). FTS5 gets one row per cue (the cue's text, its video and start),
built once from the archive's transcript pages with Python's `sqlite3`
(the build is timed apart). Each question is asked N times (default 7)
and the median kept:

- FTS5: `SELECT count(*), count(DISTINCT video) FROM cues WHERE cues MATCH
  '"…"'` (a phrase query, as yt-fts asks it), in a warm connection;
- `rg -o -i -w` over the transcript pages (the full scan a person would
  run instead; it reads the JSON text, so a phrase split across cues is
  not found);
- the CLI: `archilyzer-index search --local ARCHIVE --index INDEX --limit 1
  --json`, a fresh process per run, as a person runs it;
- the server: a running `archilyzer-mcp`, `enumerate_matches` (the
  complete set, not a capped page) with an exclude no video holds that
  changes each run, so no worklist is kept from an earlier call; asked
  through the Python `mcp` client (the test venv, .venv), which checks
  each answer against the tool's output schema, and through a bare
  client that writes JSON-RPC lines to the server's stdin and reads its
  answers (what the transport itself costs). Each client's empty call
  (`list_sources`, which reads nothing) is timed too.

The counts differ in kind: FTS5 counts cues matching its phrase query
(its tokenizer, no aliases, no phrase across cues); this project counts
(video, cue) hits confirmed on the page text. Both are printed.
Needs `cargo build --release` and ripgrep. scripts/figures.py runs the
same questions (QUESTIONS below: the defaults of --rare, --phrase and
--common) through these functions on the TWIML corpus."""

import asyncio
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

QUESTIONS = [("a rare word", "austerity"),
             ("a two-word name", "speech recognition"),
             ("a common word", "transformers")]

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(REPO, "target", "release")
OUT = os.path.join(REPO, "docs", "fts5.md")


def pages(archive):
    """Every transcript page file of the archive, in order."""
    root = os.path.join(archive, "transcripts")
    for channel in sorted(os.listdir(root)):
        with open(os.path.join(root, channel, "manifest.json")) as fh:
            for page in json.load(fh)["pages"]:
                yield os.path.join(root, channel, page["file"])


def fts5(archive, db):
    """Builds the FTS5 table; the seconds it took and the cues it holds."""
    started = time.monotonic()
    con = sqlite3.connect(db)
    con.execute("CREATE VIRTUAL TABLE cues USING fts5(text, video UNINDEXED, start UNINDEXED)")
    n = 0
    for path in pages(archive):
        with open(path) as fh:
            page = json.load(fh)
        rows = [(cue[2], v["slug"], cue[0]) for v in page["videos"] for cue in v.get("cues", [])]
        con.executemany("INSERT INTO cues VALUES (?, ?, ?)", rows)
        n += len(rows)
    con.commit()
    return con, time.monotonic() - started, n


def median_ms(f, runs):
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = f()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def fts5_ask(con, words):
    query = '"' + words.replace('"', '""') + '"'
    return con.execute("SELECT count(*), count(DISTINCT video) FROM cues WHERE cues MATCH ?", (query,)).fetchone()


def rg_ask(archive, words):
    """`rg -o -i -w` over the transcript pages: the matches it prints."""
    out = subprocess.run(["rg", "-o", "-i", "-w", "--no-filename", "--no-line-number", "--", words,
                          os.path.join(archive, "transcripts")], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"fts5_compare: rg failed: {out.stderr[:300]}")
    return out.stdout.count("\n")


def cli_ask(archive, index, words):
    out = subprocess.run([os.path.join(BIN, "archilyzer-index"), "search", "--local", archive, "--index", index,
                          "--limit", "1", "--json", words], check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    return r["total_hits"], r["total_videos"]


def enumerate_args(words, i):
    """enumerate_matches' arguments for run `i`: an exclude no video
    holds, new each run, so no worklist kept from a call before answers."""
    return {"query": words, "exclude": [f"zzqv{i}x"], "max_chars": 2000}


async def server_times(archive, index, questions, runs):
    """Each question's median ms and counts through the Python `mcp`
    client, and the median ms of its empty call."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    params = StdioServerParameters(command=os.path.join(BIN, "archilyzer-mcp"),
                                   args=["--local", archive, "--index", index])
    out = {}
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            await s.call_tool("list_channels", {})
            empty = []
            for _ in range(runs * 3):
                started = time.perf_counter()
                await s.call_tool("list_sources", {})
                empty.append((time.perf_counter() - started) * 1000)
            for name, words in questions:
                times, counts = [], None
                for i in range(runs + 1):
                    started = time.perf_counter()
                    res = await s.call_tool("enumerate_matches", enumerate_args(words, i))
                    took = (time.perf_counter() - started) * 1000
                    if res.is_error:
                        sys.exit(f"fts5_compare: enumerate_matches {words!r} failed: {res.content[0].text[:300]}")
                    if i:
                        times.append(took)
                    counts = (res.structured_content["total_hits"], res.structured_content["total"])
                out[name] = (statistics.median(times), counts)
    return out, statistics.median(empty)


def bare_times(archive, index, questions, runs):
    """The same calls through a bare JSON-RPC client over the server's
    stdio: each question's median ms, and the empty call's."""
    server = subprocess.Popen([os.path.join(BIN, "archilyzer-mcp"), "--local", archive, "--index", index],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ids = iter(range(1, 1 << 30))

    def call(method, params):
        n = next(ids)
        server.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode())
        server.stdin.flush()
        while True:
            answer = json.loads(server.stdout.readline())
            if answer.get("id") == n:
                if "error" in answer or answer["result"].get("isError"):
                    sys.exit(f"fts5_compare: {method} failed: {json.dumps(answer)[:300]}")
                return answer

    def timed(tool, args):
        started = time.perf_counter()
        call("tools/call", {"name": tool, "arguments": args})
        return (time.perf_counter() - started) * 1000

    call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "fts5_compare", "version": "1"}})
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    timed("list_channels", {})
    empty = statistics.median(timed("list_sources", {}) for _ in range(runs * 3))
    out = {name: statistics.median(timed("enumerate_matches", enumerate_args(words, i)) for i in range(1, runs + 1))
           for name, words in questions}
    server.stdin.close()
    server.wait()
    return out, empty


def compare(archive, index, questions, runs):
    """Each question through FTS5, rg, the CLI and a running server, in
    one run: the cues FTS5 holds, its build seconds, and a row per
    question with each engine's median ms and counts."""
    with tempfile.TemporaryDirectory(prefix="fts5-") as tmp:
        con, built_s, cues = fts5(archive, os.path.join(tmp, "cues.db"))
        rows = []
        for name, words in questions:
            fts_ms, fts_counts = median_ms(lambda: fts5_ask(con, words), runs)
            rg_ms, rg_hits = median_ms(lambda: rg_ask(archive, words), runs)
            cli_ms, cli_counts = median_ms(lambda: cli_ask(archive, index, words), runs)
            rows.append({"question": name, "words": words, "fts5_ms": round(fts_ms, 3), "fts5_hits": fts_counts[0],
                         "fts5_videos": fts_counts[1], "rg_ms": round(rg_ms, 1), "rg_hits": rg_hits,
                         "cli_ms": round(cli_ms, 1), "cli_hits": cli_counts[0], "cli_videos": cli_counts[1]})
        con.close()
    served, sdk_empty = asyncio.run(server_times(archive, index, questions, runs))
    bare, bare_empty = bare_times(archive, index, questions, runs)
    for row in rows:
        ms, (hits, videos) = served[row["question"]]
        row.update({"server_ms": round(ms, 2), "server_hits": hits, "server_videos": videos,
                    "bare_ms": round(bare[row["question"]], 2)})
    return {"cues": cues, "fts5_build_s": round(built_s, 1), "runs": runs, "rows": rows,
            "empty_call_ms": round(sdk_empty, 2), "bare_empty_call_ms": round(bare_empty, 2)}


def bare(row):
    """The bare client's ms, `-` in figures recorded before it was timed."""
    return "-" if row.get("bare_ms") is None else f"{row['bare_ms']:.1f}"


def table(c):
    """The comparison as a markdown table, one row per question."""
    lines = ["| question | FTS5 ms | FTS5 hits / videos | `rg` ms | `rg` hits | CLI ms (fresh process) | "
             "server ms (`enumerate_matches`, complete; `mcp` client) | server ms (bare client) | "
             "our hits / videos | server ÷ FTS5 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in c["rows"]:
        lines.append(f"| {r['question']} `{r['words']}` | {r['fts5_ms']:.2f} | {r['fts5_hits']} / {r['fts5_videos']} | "
                     f"{r['rg_ms']:.0f} | {r['rg_hits']} | {r['cli_ms']:.0f} | {r['server_ms']:.1f} | {bare(r)} | "
                     f"{r['server_hits']} / {r['server_videos']} | {r['server_ms'] / max(r['fts5_ms'], 0.01):.0f}× |")
    return lines


def written_by(script):
    """The first line of a page `script` writes: the commit, when, and on
    what machine under what load."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    load = os.getloadavg()[0] / os.cpu_count()
    return (f"Written by `python3 scripts/{script}` at commit `{commit}` on "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} cores, load {load:.2f} per core. Do not edit by hand: run the script again.")


def main():
    args = sys.argv[1:]
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    archive, index = (os.path.abspath(a) for a in args[:2])
    opts = dict(zip(args[2::2], args[3::2]))
    unknown = set(opts) - {"--rare", "--phrase", "--common", "--runs", "--json"}
    if unknown:
        sys.exit(f"fts5_compare: unknown option {sorted(unknown)[0]}\n\n{__doc__}")
    runs = int(opts.get("--runs", "7"))
    try:
        import mcp  # noqa: F401  (the server is timed through it, after the FTS5 build)
    except ImportError:
        sys.exit("fts5_compare: the Python `mcp` package is missing: run it with the tests' "
                 "environment, .venv/bin/python (the README's test command makes it)")
    questions = [(name, opts.get(flag, words)) for (name, words), flag in
                 zip(QUESTIONS, ("--rare", "--phrase", "--common"))]
    c = compare(archive, index, questions, runs)
    if "--json" in opts:
        with open(opts["--json"], "w") as fh:
            json.dump(c, fh)
        return
    lines = [
        "# Against SQLite FTS5",
        "",
        written_by("fts5_compare.py"),
        "",
        f"Archive: {c['cues']} cues in its transcript pages. FTS5 table built in {c['fts5_build_s']:.1f} s (Python's "
        "`sqlite3`, one row per cue). Medians of " + str(runs) + " runs; FTS5 counts cues (hits) and videos "
        "matching its phrase query, `rg` the matches it prints, this project (video, cue) hits and videos "
        "confirmed on the page text.",
        "",
        f"An empty call (`list_sources`, which reads nothing) takes {c['empty_call_ms']:.2f} ms through the `mcp` "
        f"client and {c['bare_empty_call_ms']:.2f} ms through the bare one: the round trip every server figure "
        "includes. `server ÷ FTS5` is the `mcp` client's.",
        "",
        *table(c),
        "",
    ]
    with open(OUT, "w") as fh:
        fh.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
