"""docs/figures.md, generated: one bench run on a generated archive, with
the commit, date, machine and load it ran on; and the README's figures
line, taken from it. No figure in either is typed by hand.

  python3 scripts/figures.py [--bytes 200MB] [--repeat 5] [--corpus DIR] [--non-repeating ARCHIVE]
      measures and writes docs/figures.md and the README's figures line
      (needs `cargo build --release` and ripgrep for the full-scan column).
      With --non-repeating, ARCHIVE (imported from the download
      scripts/ytdlp_recombined.py makes: `just recombined`) is measured
      too: `build` from nothing beside `rg -c` over its transcripts, paired
      (REPEAT runs each, alternating), the index's share, and the
      questions of scripts/fts5_compare.py.
  python3 scripts/figures.py --render
      writes docs/figures.md and the README's figures line again from the
      figures docs/figures.md records (after changing how they are worded;
      measures nothing).
  python3 scripts/figures.py --check
      CI's staleness check: generates the same archive again, builds its
      index once, and fails when the index size or its share of the
      transcripts differs from the recorded one by more than 25 %, or when
      the README's figures line or docs/figures.md itself is not what the
      recorded figures give (an edit by hand). (Times
      depend on the machine and are not compared.)

What is measured: `archilyzer-dev gen --bytes SIZE --seed 1` (its alpha
site); `archilyzer-index build` from nothing, REPEAT times (median wall
time, peak RSS from the kernel's rusage); the index's bytes on disk beside
the transcripts' bytes; then `archilyzer-dev bench` (its reference queries,
each a fresh process, beside `rg -o -i -w` over the same files). Then, when
the TWIML corpus is beside the checkout (`../shared/corpora/twiml/vtt`, or
--corpus DIR of captions), the MCP server under load at two page sizes:
the corpus imported at import's default page size and at 500 KB, indexed,
and served to 50 clients x 200 calls by server/tests/load_http.py (needs
the test venv, .venv): throughput, peak RSS and RSS by tenth of the run,
at the server's default --max-memory. And, on the same corpus written as a
yt-dlp download (scripts/ytdlp_download.py, 5 channel folders): its first
import with --build, a re-import of the unchanged download (median of
REPEAT), and the questions of scripts/fts5_compare.py (a rare word, a
two-word name, a common word) through SQLite FTS5, `rg -o -i -w`, the CLI
and a running server, in the same run."""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import fts5_compare  # noqa: E402  (beside this script)
FIGURES = os.path.join(REPO, "docs", "figures.md")
README = os.path.join(REPO, "README.md")
BIN = os.path.join(REPO, "target", "release")
TOLERANCE = 0.25
CORPUS = os.path.join(REPO, "..", "shared", "corpora", "twiml", "vtt")
PAGE_SIZES = [("default", None), ("500KB", "500KB")]
LINE_START, LINE_END = "<!-- figures: written by scripts/figures.py -->", "<!-- /figures -->"


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def timed(args):
    """Wall seconds and peak RSS (MB) of one run of `args`."""
    started = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - started
    if status != 0:
        sys.exit(f"{' '.join(args)} failed: {p.stderr.read()}")
    return wall, usage.ru_maxrss / 1024


def tree_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def generate(work, size):
    out = os.path.join(work, "gen")
    run([os.path.join(BIN, "archilyzer-dev"), "gen", "--out", out, "--bytes", size, "--seed", "1"])
    return os.path.join(out, "alpha")


def build(archive, index):
    shutil.rmtree(index, ignore_errors=True)
    return timed([os.path.join(BIN, "archilyzer-index"), "build", "--local", archive, "--index", index])


def sizes(archive, index):
    transcripts = tree_bytes(os.path.join(archive, "transcripts"))
    idx = tree_bytes(index)
    return {"transcripts_bytes": transcripts, "index_bytes": idx, "index_pct": round(100 * idx / transcripts, 3)}


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(f.readline().split()[1])
    return {"cpu": model, "cores": os.cpu_count(), "memory_gb": round(mem_kb / 1024 / 1024, 1),
            "load_per_core_before": round(os.getloadavg()[0] / os.cpu_count(), 2)}


def commit():
    head = run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO).stdout.strip()
    # The script's own outputs do not count as changes to what is measured.
    status = run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO).stdout.splitlines()
    dirty = [l for l in status if l[3:] not in ("README.md", "docs/figures.md")]
    return head + ("+changes" if dirty else "")


def serve_under_load(work, corpus):
    """The load test's figures at each page size; [] without the corpus."""
    if not os.path.isdir(corpus):
        print(f"figures: no corpus at {corpus}: the server under load is not measured", file=sys.stderr)
        return []
    python = os.path.join(REPO, ".venv", "bin", "python")
    out = []
    for label, size in PAGE_SIZES:
        archive, index = os.path.join(work, f"corpus-{label}"), os.path.join(work, f"corpus-index-{label}")
        run([os.path.join(BIN, "archilyzer-index"), "import", "--from", corpus, "--out", archive,
             "--channel", "corpus", "--build", "--index", index] + (["--page-bytes", size] if size else []))
        time.sleep(3)  # the index settles, so the server keeps it loaded
        figures = json.loads(run([python, os.path.join(REPO, "server", "tests", "load_http.py"),
                                  os.path.join(BIN, "archilyzer-mcp"), archive, index, "50", "200"]).stdout)
        with open(os.path.join(archive, "transcripts", "corpus", "manifest.json")) as fh:
            pages = len(json.load(fh)["pages"])
        out.append({"page_bytes": label, "pages": pages, "transcripts_bytes": tree_bytes(
            os.path.join(archive, "transcripts")), **{k: figures[k] for k in (
                "calls", "errors", "calls_per_second", "peak_rss_mb", "rss_median_mb_by_tenth", "rss_drift_pct")}})
    return out


def real_captions(work, corpus, repeat):
    """The corpus as a yt-dlp download: import times, and FTS5 beside
    this project; None without the corpus."""
    if not os.path.isdir(corpus):
        print(f"figures: no corpus at {corpus}: FTS5 and the re-import are not measured", file=sys.stderr)
        return None
    videos = len([f for f in os.listdir(corpus) if f.endswith(".vtt")])
    dl, archive, index = (os.path.join(work, n) for n in ("dl", "real", "real-index"))
    run([sys.executable, os.path.join(REPO, "scripts", "ytdlp_download.py"), corpus, dl, str(videos), "5"])
    cmd = [os.path.join(BIN, "archilyzer-index"), "import", "--from", dl, "--out", archive, "--build",
           "--index", index]
    first, _ = timed(cmd)
    again = [timed(cmd)[0] for _ in range(repeat)]
    return {"videos": videos, "channels": 5, "first_import_s": round(first, 2),
            "reimport_s_median": round(statistics.median(again), 2), **against_fts5(archive, index, repeat)}


def against_fts5(archive, index, repeat):
    """scripts/fts5_compare.py's measurements on `archive`."""
    python = os.path.join(REPO, ".venv", "bin", "python")
    with tempfile.TemporaryDirectory(prefix="figures-fts5-") as work:
        out = os.path.join(work, "fts5.json")
        run([python, os.path.join(REPO, "scripts", "fts5_compare.py"), archive, index, "--runs", str(repeat),
             "--json", out])
        with open(out) as fh:
            return json.load(fh)


def non_repeating(archive, repeat):
    """The non-repeating archive's figures: build beside `rg -c`, the
    index's share, and FTS5 beside this project; None when not asked."""
    if not archive:
        return None
    archive = os.path.abspath(archive)
    index = tempfile.mkdtemp(prefix="figures-nonrep-index-")
    try:
        builds, scans = [], []
        for _ in range(repeat):
            builds.append(build(archive, index)[0])
            scans.append(timed(["rg", "-c", "-o", "-i", "-w", "austerity", os.path.join(archive, "transcripts")])[0])
        with open(os.path.join(archive, "corpus.json")) as fh:
            videos = sum(ch["videoCount"] for ch in json.load(fh)["channels"])
        return {"videos": videos, "build_s_median": round(statistics.median(builds), 2),
                "rg_c_s_median": round(statistics.median(scans), 2),
                "build_per_rg": round(statistics.median(b / r for b, r in zip(builds, scans)), 2),
                **sizes(archive, index), **against_fts5(archive, index, repeat)}
    finally:
        shutil.rmtree(index, ignore_errors=True)


def measure(size, repeat, corpus, nonrep=None):
    work = tempfile.mkdtemp(prefix="figures-")
    try:
        host = machine()
        archive = generate(work, size)
        index = os.path.join(work, "index")
        runs = [build(archive, index) for _ in range(repeat)]
        bench_json = os.path.join(work, "bench.json")
        run([os.path.join(BIN, "archilyzer-dev"), "bench", "--local", archive, "--index", index,
             "--repeat", str(repeat), "--force", "--json", bench_json])
        with open(bench_json) as f:
            bench = json.load(f)
        return {
            "commit": commit(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": host,
            "gen": {"bytes": size, "seed": 1},
            "build": {"runs": repeat, "wall_s_median": round(statistics.median(r[0] for r in runs), 2),
                      "peak_rss_mb": round(max(r[1] for r in runs), 1)},
            **sizes(archive, index),
            "bench": {"load_per_core": bench["load_per_core"], "rows": bench["rows"]},
            "server": serve_under_load(work, corpus),
            "real": real_captions(work, corpus, repeat),
            "non_repeating": non_repeating(nonrep, repeat),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def mb(n):
    return f"{n / 1e6:.1f} MB"


def readme_line(f):
    """The README's one sentence of figures, from the recorded ones."""
    rows = f["bench"]["rows"]
    rare = next(r for r in rows if r["name"].startswith("rare term `"))
    common = next(r for r in rows if r["name"].startswith("common term `"))
    return (f"On {mb(f['transcripts_bytes'])} of generated transcripts ({f['machine']['cores']} cores), "
            f"`build` takes {f['build']['wall_s_median']} s and writes a {mb(f['index_bytes'])} index "
            f"({f['index_pct']:.2f} % of the transcripts). A search of a rare word answers in "
            f"{rare['wall_ms_median']:.0f} ms, where `rg` over the same files takes {rare['rg_ms_median']:.0f} ms; "
            f"a word on every page is confirmed on every page, in {common['wall_ms_median']:.0f} ms against "
            f"{common['rg_ms_median']:.0f} ms for `rg`.{real_sentence(f)}{server_sentence(f)} Every figure, and how "
            f"to measure it again: [docs/figures.md](docs/figures.md).")


def pages_label(r):
    """How a run's pages are named: their number and mean size, and the
    --page-bytes that made them (the mean is below the target: a page
    closes before the video that would take it past the target)."""
    asked = "the default --page-bytes" if r["page_bytes"] == "default" else f"--page-bytes {r['page_bytes']}"
    return f"{r['pages']} pages of {mb(r['transcripts_bytes'] / r['pages'])} on average ({asked})"


def real_sentence(f):
    """What real captions give beside SQLite FTS5, if measured."""
    r = f.get("real")
    if not r:
        return ""
    rare, phrase = r["rows"][0], r["rows"][1]
    return (f" On real captions (the {r['videos']} TWIML episodes as a yt-dlp download), a running server "
            f"finds every hit of the rare word `{rare['words']}` in {rare['server_ms']:.1f} ms and of "
            f"`{phrase['words']}` in {phrase['server_ms']:.0f} ms, where SQLite FTS5 takes "
            f"{rare['fts5_ms']:.2f} ms and {phrase['fts5_ms']:.2f} ms and `rg` {rare['rg_ms']:.0f} ms and "
            f"{phrase['rg_ms']:.0f} ms; importing the unchanged download again takes {r['reimport_s_median']} s.")


def server_sentence(f):
    """What the server's memory is under load, per page size, if measured."""
    rows = f.get("server") or []
    if not rows:
        return ""
    each = "; ".join(f"{pages_label(r)}: peak RSS "
                     f"{r['peak_rss_mb']:.0f} MB, {r['calls_per_second']:.0f} calls/s" for r in rows)
    return (f" The MCP server, 50 clients on the 537-episode TWIML corpus with the default --max-memory "
            f"of 128 MB and 16 calls in flight: {each}.")


def page(f):
    m = f["machine"]
    out = [
        "# Figures",
        "",
        f"Written by `python3 scripts/figures.py --bytes {f['gen']['bytes']}"
        f"{' --non-repeating ARCHIVE' if f.get('non_repeating') else ''}` at commit `{f['commit']}` on "
        f"{f['date']}: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, load {m['load_per_core_before']} "
        f"per core before the run ({f['bench']['load_per_core']} during the queries). Do not edit by hand: "
        "run the script again. CI (`python3 scripts/figures.py --check`) fails when the index size or its "
        "share below drifts more than 25 % from a fresh measurement.",
        "",
        f"Archive: `archilyzer-dev gen --bytes {f['gen']['bytes']} --seed {f['gen']['seed']}` (its alpha site).",
        "",
        "| figure | value |",
        "|---|---|",
        f"| transcripts | {mb(f['transcripts_bytes'])} |",
        f"| `build` from nothing, median of {f['build']['runs']} | {f['build']['wall_s_median']} s |",
        f"| `build` peak RSS | {f['build']['peak_rss_mb']} MB |",
        f"| index on disk | {mb(f['index_bytes'])} ({f['index_pct']:.2f} % of the transcripts) |",
        "",
        "Queries (`archilyzer-dev bench`, each a fresh process, median of the runs; `rg -o -i -w` over the "
        "same files for the full-scan column):",
        "",
        "| query | ms | pages read | MB parsed | peak RSS MB | hits | rg ms | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in f["bench"]["rows"]:
        rg, ms = r.get("rg_ms_median"), r["wall_ms_median"]
        rg_ms = "-" if rg is None else f"{rg:.0f}"
        ratio = "-" if not rg else f"{ms / rg:.2f}×"
        out.append(f"| {r['name']} | {ms:.0f} | {r['pages_read']} | {r['mb_parsed']:.1f} | "
                   f"{r['peak_rss_mb']:.0f} | {r['hits']} | {rg_ms} | {ratio} |")
    if f.get("server"):
        out += ["", "The MCP server under load (`server/tests/load_http.py BIN ARCHIVE INDEX 50 200`: 50 clients "
                "x 200 mixed calls over HTTP, 16 in flight, the default `--max-memory` of 128 MB), on the TWIML "
                "corpus (537 episodes) imported at two page sizes:", "",
                "| pages | calls | errors | calls/s | peak RSS MB | RSS MB by tenth of the run | drift at rest |",
                "|---|---|---|---|---|---|---|"]
        for r in f["server"]:
            tenths = ", ".join(f"{x:.0f}" for x in r["rss_median_mb_by_tenth"])
            out.append(f"| {pages_label(r)} | "
                       f"{r['calls']} | {r['errors']} | {r['calls_per_second']} | {r['peak_rss_mb']} | {tenths} | "
                       f"{r['rss_drift_pct']} % |")
    if f.get("real"):
        r = f["real"]
        out += ["", f"Real captions: the TWIML corpus ({r['videos']} episodes) written as a yt-dlp download in "
                f"{r['channels']} channel folders (`scripts/ytdlp_download.py`). `import --from DL --out ARCHIVE "
                f"--build` takes {r['first_import_s']} s the first time and {r['reimport_s_median']} s again on "
                f"the unchanged download (median of {f['build']['runs']}). The questions of "
                f"`scripts/fts5_compare.py` on that archive, medians of {r['runs']} runs (SQLite FTS5: one row per "
                f"cue, {r['cues']} cues, built in {r['fts5_build_s']} s):", "",
                *fts5_compare.table(r)]
    if f.get("non_repeating"):
        r = f["non_repeating"]
        out += ["", f"An archive whose videos do not repeat each other: {r['videos']} videos, each made of runs of "
                "consecutive cues cut from different TWIML episodes at random offsets "
                f"(`scripts/ytdlp_recombined.py`, imported), {mb(r['transcripts_bytes'])} of transcripts. `build` "
                f"from nothing takes {r['build_s_median']} s against {r['rg_c_s_median']} s for "
                f"`rg -c -o -i -w austerity` over the same transcripts: {r['build_per_rg']}× (median of the "
                f"paired ratios of {f['build']['runs']} alternating runs). The index is {mb(r['index_bytes'])}, "
                f"{r['index_pct']:.2f} % of the transcripts. The questions of `scripts/fts5_compare.py`, medians of "
                f"{r['runs']} runs (SQLite FTS5: {r['cues']} cues, built in {r['fts5_build_s']} s); an empty call "
                f"takes {r['empty_call_ms']} ms through the `mcp` client and {r['bare_empty_call_ms']} ms through "
                "the bare one:", "", *fts5_compare.table(r)]
    out += ["", "The recorded figures, as the check reads them:", "", "```json",
            json.dumps(f, indent=1), "```", ""]
    return "\n".join(out)


def recorded():
    with open(FIGURES) as fh:
        text = fh.read()
    found = re.search(r"```json\n(.*?)\n```", text, re.S)
    if not found:
        sys.exit(f"{FIGURES} holds no recorded figures: run python3 scripts/figures.py")
    return json.loads(found.group(1))


def set_readme_line(line):
    with open(README) as fh:
        text = fh.read()
    start, end = text.find(LINE_START), text.find(LINE_END)
    if start < 0 or end < start:
        sys.exit(f"README.md lacks the figures markers {LINE_START} … {LINE_END}")
    with open(README, "w") as fh:
        fh.write(text[:start + len(LINE_START)] + "\n" + line + "\n" + text[end:])


def readme_figures():
    with open(README) as fh:
        text = fh.read()
    start, end = text.find(LINE_START), text.find(LINE_END)
    return text[start + len(LINE_START):end].strip() if 0 <= start < end else None


def check():
    f = recorded()
    problems = []
    if readme_figures() != readme_line(f):
        problems.append("the README's figures line is not the one docs/figures.md gives: run python3 scripts/figures.py --render")
    with open(FIGURES) as fh:
        if fh.read() != page(f):
            problems.append("docs/figures.md is not the page its recorded figures give (edited by hand?): "
                            "run python3 scripts/figures.py --render")
    work = tempfile.mkdtemp(prefix="figures-check-")
    try:
        archive = generate(work, f["gen"]["bytes"])
        index = os.path.join(work, "index")
        build(archive, index)
        now = sizes(archive, index)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for key in ("index_bytes", "index_pct"):
        was, fresh = f[key], now[key]
        drift = abs(fresh - was) / was
        print(f"{key}: recorded {was}, measured now {fresh} ({drift:.1%} apart)")
        if drift > TOLERANCE:
            problems.append(f"{key} is stale: recorded {was}, measured now {fresh} ({drift:.0%} apart, "
                            f"over {TOLERANCE:.0%}): run python3 scripts/figures.py and commit docs/figures.md")
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


def main():
    args = sys.argv[1:]
    if args == ["--check"]:
        return check()
    if args == ["--render"]:
        f = recorded()
        with open(FIGURES, "w") as fh:
            fh.write(page(f))
        return set_readme_line(readme_line(f))
    opts = dict(zip(args[::2], args[1::2]))
    unknown = set(opts) - {"--bytes", "--repeat", "--corpus", "--non-repeating"}
    if unknown or len(args) % 2:
        sys.exit(__doc__)
    f = measure(opts.get("--bytes", "200MB"), int(opts.get("--repeat", "5")), opts.get("--corpus", CORPUS),
                opts.get("--non-repeating"))
    with open(FIGURES, "w") as fh:
        fh.write(page(f))
    set_readme_line(readme_line(f))
    print(f"wrote {FIGURES} and the README's figures line:\n{readme_line(f)}")


if __name__ == "__main__":
    main()
