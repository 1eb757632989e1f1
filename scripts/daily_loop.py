#!/usr/bin/env python3
"""Measures the daily loop (re-import, rebuild) on a yt-dlp download of
real captions: how many pages each step rewrites and reads, and its time.

Usage: python3 scripts/daily_loop.py BIN_DIR CAPTIONS_DIR WORK_DIR [VIDEOS] [CHANNELS]

It writes WORK_DIR/full (VIDEOS + 20 videos, with scripts/ytdlp_download.py),
holds 10 of them back as *new* (dated after every other video) and 10 as
*back-filled* (dated in 2010, among the oldest), then times:
  1. import + build of the rest;
  2. the same import again (nothing changed);
  3. the 10 new videos added;
  4. the 10 back-filled videos added.
Before step 1 the download's files are dropped from the page cache
(`posix_fadvise(DONTNEED)` after a `sync`, checked with util-linux's
`fincore`), so the first import reads a cold disk as a user's first run
does; no root needed. Each step prints its wall time, its CPU share
(user + system time of the command over its wall time: 100 % is one busy
core), the transcript pages whose bytes changed
per channel, how many videos the import took unchanged (their files not
read, see the import ledger in docs/commands.md), and what build read.
The run is written to docs/daily-loop.md.
"""

import glob
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time


def pages(archive):
    out = {}
    for m in glob.glob(os.path.join(archive, "transcripts", "*", "manifest.json")):
        ch = os.path.basename(os.path.dirname(m))
        for p in json.load(open(m))["pages"]:
            out[(ch, p["file"])] = p["sha256"]
    return out


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd):
    """Runs cmd; returns its wall seconds, its CPU share and its stderr."""
    cpu, t = cpu_seconds(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    wall = time.perf_counter() - t
    return wall, (cpu_seconds() - cpu) / wall, p.stderr


def cached_bytes(files):
    """How many bytes of files the page cache holds (util-linux fincore)."""
    total = 0
    for i in range(0, len(files), 500):
        out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", *files[i:i + 500]],
                             capture_output=True, text=True, check=True).stdout
        total += sum(int(x) for x in out.split())
    return total


def evict(folder):
    """Drops folder's files from the page cache; returns (bytes, bytes still cached)."""
    files = [f for f in glob.glob(os.path.join(folder, "**", "*"), recursive=True) if os.path.isfile(f)]
    os.sync()  # only clean pages can be dropped
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    return sum(os.path.getsize(f) for f in files), cached_bytes(files)


def main():
    bins, captions, work = sys.argv[1:4]
    videos = int(sys.argv[4]) if len(sys.argv) > 4 else 5805
    channels = sys.argv[5] if len(sys.argv) > 5 else "5"
    index_bin = os.path.join(bins, "archilyzer-index")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    full, dl = os.path.join(work, "full"), os.path.join(work, "dl")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, os.path.join(here, "ytdlp_download.py"), captions, full,
                    str(videos + 20), channels], check=True)
    infos = sorted(glob.glob(os.path.join(full, "*", "*.info.json")))
    spread = infos[:: len(infos) // 20][:20]  # across every channel
    held_new, held_old = spread[0::2], spread[1::2]
    for i, path in enumerate(held_new + held_old):
        info = json.load(open(path))
        info["upload_date"] = f"2030010{1 + i % 9}" if path in held_new else f"2010010{1 + i % 9}"
        json.dump(info, open(path, "w"))
    shutil.copytree(full, dl)
    held = held_new + held_old
    for path in held:
        rel = os.path.relpath(path, full)
        for f in glob.glob(os.path.join(dl, rel[: -len(".info.json")] + ".*")):
            os.remove(f)
    out = []

    def say(line):
        print(line)
        out.append(line)

    say(f"{videos + 20} videos in {channels} channel folders, in {full}")
    say(f"the first import reads {videos} of them: 10 newer and 10 older videos are held back for the last two steps")
    archive, index = os.path.join(work, "archive"), os.path.join(work, "index")
    cmd = [index_bin, "import", "--from", dl, "--out", archive, "--build", "--index", index]

    def step(name):
        before = pages(archive) if os.path.exists(archive) else {}
        seconds, share, err = run(cmd)
        after = pages(archive)
        changed = {}
        for key, sha in after.items():
            if before.get(key) != sha:
                changed[key[0]] = changed.get(key[0], 0) + 1
        build = re.findall(r"build: \d+ pages?: .*", err)
        kept = re.findall(r"(\d+) videos? unchanged since the last import", err)
        say(f"{name}: {seconds:.1f} s, CPU {share:.0%}; pages rewritten per channel {dict(sorted(changed.items()))} "
            f"of {len(after)}; videos taken unchanged {kept[0] if kept else 0}; "
            f"{build[-1] if build else err[-300:]}")

    size, left = evict(dl)
    say(f"the download's {size / 1e6:.0f} MB dropped from the page cache before the first import "
        f"({left / 1e6:.1f} MB still cached)")
    step("first import + build, cold")
    step("same download again")
    for path in held_new:
        for f in glob.glob(path[: -len(".info.json")] + ".*"):
            shutil.copy(f, os.path.join(dl, os.path.relpath(f, full)))
    step("plus 10 new videos")
    for path in held_old:
        for f in glob.glob(path[: -len(".info.json")] + ".*"):
            shutil.copy(f, os.path.join(dl, os.path.relpath(f, full)))
    step("plus 10 back-filled videos")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True,
                            text=True).stdout.strip()
    load = os.getloadavg()[1]
    doc = ["# The daily loop, measured", "",
           f"Written by `python3 scripts/daily_loop.py {' '.join(sys.argv[1:])}` with the binaries of "
           f"commit {commit} on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, on a "
           f"{os.cpu_count()}-core machine (load {load:.1f}, the 5-minute average after the run). "
           "Do not edit by hand: run the script again. Each step is one `import --from dl --out archive "
           "--build`; the page counts compare the manifests' sha256 before and after.", "", "```", *out, "```", ""]
    with open(os.path.join(os.path.dirname(here), "docs", "daily-loop.md"), "w") as fh:
        fh.write("\n".join(doc))


main()
