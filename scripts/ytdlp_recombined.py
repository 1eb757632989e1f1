#!/usr/bin/env python3
"""Writes a yt-dlp download whose videos do not repeat each other, for
the benchmarks: each video's captions are runs of consecutive cues cut
from different TWIML episodes at random offsets, one after another on one
timeline. A run keeps an episode's topic and phrasing (its vocabulary
stays local, as a real video's does); runs are short (RUN_CUES), so two
videos share at most a run's worth of text where their random windows
overlap, never a whole episode as a copy of the corpus would. Copies
flatter an index: they repeat one vocabulary and one set of phrase
neighbours, so the phrase path and the postings look cheaper than on real
archives.

Usage: python3 scripts/ytdlp_recombined.py CAPTIONS_DIR OUT_DIR [VIDEOS] [CHANNELS] [SEED]
(defaults: 19300 videos in 5 channels, seed 1: about 1.2 GB once
imported). Laid out as scripts/ytdlp_download.py lays out its download
(one folder per channel, `<id>.info.json` beside `<id>.en.vtt`), so
`archilyzer-index import --from OUT_DIR` takes it. The same arguments
write the same bytes. Refuses an OUT_DIR that exists.
"""

import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ytdlp_download import info  # noqa: E402  (one layout of an info.json)

# Cues in a run: about one to three minutes of speech.
RUN_CUES = (20, 60)
# Cues in a video: about as many as a TWIML episode has.
VIDEO_CUES = (300, 900)

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
TIMING = re.compile(r"^(?:(\d+):)?(\d+):(\d+)\.(\d+)\s+-->\s+(?:(\d+):)?(\d+):(\d+)\.(\d+)")


def video_ids(count, rng):
    """`count` distinct 11-character ids like YouTube's; about one in 64
    starts with `-`."""
    ids, seen = [], set()
    while len(ids) < count:
        one = "".join(rng.choice(ALPHABET) for _ in range(11))
        if one not in seen:
            seen.add(one)
            ids.append(one)
    return ids


def seconds(h, m, s, frac):
    return int(h or 0) * 3600 + int(m) * 60 + int(s) + int(frac) / 10 ** len(frac)


def cues(path):
    """(start, end, text) of every cue of a VTT file, in order."""
    out = []
    for block in open(path, encoding="utf-8").read().split("\n\n"):
        lines = block.strip().split("\n")
        for i, line in enumerate(lines):
            m = TIMING.match(line)
            if m:
                g = m.groups()
                text = " ".join(lines[i + 1:]).strip()
                if text:
                    out.append((seconds(*g[:4]), seconds(*g[4:]), text))
                break
    return out


def stamp(t):
    """`hh:mm:ss.mmm`, from whole milliseconds (so 59.9996 s is never
    written as `60.000`)."""
    ms = round(t * 1000)
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def recombine(episodes, rng):
    """One video: runs from different episodes, re-timed end to end. The
    titles of the episodes it draws on, in order."""
    want = rng.randint(*VIDEO_CUES)
    out, drawn, t = [], [], 0.0
    last = None
    while len(out) < want:
        e = rng.randrange(len(episodes))
        if e == last or len(episodes[e][1]) < RUN_CUES[0]:
            continue
        last = e
        title, source = episodes[e]
        n = min(rng.randint(*RUN_CUES), len(source))
        at = rng.randrange(len(source) - n + 1)
        base = source[at][0]
        for start, end, text in source[at:at + n]:
            out.append((t + start - base, t + max(end, start) - base, text))
        t = out[-1][1] + 0.5
        drawn.append(title)
    return out[:max(want, 1)], drawn


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    captions, out = sys.argv[1], sys.argv[2]
    videos = int(sys.argv[3]) if len(sys.argv) > 3 else 19300
    channels = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    if os.path.exists(out):
        sys.exit(f"{out} exists: choose a new folder")
    names = sorted(f for f in os.listdir(captions) if f.endswith(".vtt"))
    episodes = [(re.sub(r"^\d+_|\.mp3\.vtt$", "", f).replace("_", " "), cues(os.path.join(captions, f)))
                for f in names]
    rng = random.Random(seed)
    ids = video_ids(videos, random.Random(seed + 1))
    total = 0
    for n in range(videos):
        c = n % channels
        folder = os.path.join(out, f"Channel {c}")
        os.makedirs(folder, exist_ok=True)
        vid = ids[n]
        timeline, drawn = recombine(episodes, rng)
        meta = info(vid, n, c, f"{n}: {drawn[0][:70]}", round(timeline[-1][1], 1),
                    description="Drawn from: " + "; ".join(drawn))
        with open(os.path.join(folder, f"{vid}.info.json"), "w") as f:
            json.dump(meta, f)
        body = "WEBVTT\n\n" + "".join(f"{stamp(s)} --> {stamp(e)}\n{text}\n\n" for s, e, text in timeline)
        with open(os.path.join(folder, f"{vid}.en.vtt"), "w", encoding="utf-8") as f:
            f.write(body)
        total += len(body.encode())
    print(f"{videos} videos in {channels} channel folders, {total / 1e6:.0f} MB of captions, "
          f"each runs of {RUN_CUES[0]}-{RUN_CUES[1]} cues from different episodes, in {out}")


main()
