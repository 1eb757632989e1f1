#!/usr/bin/env python3
"""docs/passage-length.md, generated: which passage length finds the
relevant episodes best, by meaning, on TWIML.

  .venv/bin/python scripts/passage_length.py BINARY MODEL_DIR
      [--corpus DIR] [--minutes 10] [--lengths 20,40,60] [--out docs/passage-length.md]

For each length L, cuts the middle MINUTES of every TWIML episode into
passages the way `archilyzer_core::passages::cut` does (consecutive cues,
closed by the cue that brings a passage to L seconds, or before 1,000
characters), embeds them all with `BINARY model embed` (the model the
product runs), embeds each subject of the judgment set
(scripts/data/passages_judgments.json) the same way, ranks the episodes
by their best passage's cosine, and scores the ten best as
scripts/passages_quality.py does: precision@10 and recall@10 by episode.
Only the middle of each episode is cut, so that three lengths embed in
minutes rather than an hour; every episode stays in the running.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from twiml_windows import parse_vtt  # noqa: E402
from passages_figures import arg  # noqa: E402

MAX_CHARS = 1000


def cut(cues, seconds):
    """Passages of (start, text) cues, as the product cuts them (a cue ends
    where the next begins)."""
    out, first, chars = [], 0, 0
    for i, (start, text) in enumerate(cues):
        chars += len(text) + 1
        end = cues[i + 1][0] if i + 1 < len(cues) else start + 5
        next_too_long = i + 1 < len(cues) and chars + len(cues[i + 1][1]) > MAX_CHARS
        if end - cues[first][0] >= seconds or next_too_long or i + 1 == len(cues):
            out.append(" ".join(t.strip() for _, t in cues[first:i + 1]))
            first, chars = i + 1, 0
    return out


def middles(corpus, minutes):
    """Each episode's number and the cues of its middle `minutes`."""
    out = {}
    for name in sorted(os.listdir(corpus)):
        number = name.split("_", 1)[0]
        if not name.endswith(".vtt") or not number.isdigit():
            continue
        cues = parse_vtt(os.path.join(corpus, name))
        if not cues:
            continue
        mid = (cues[0][0] + cues[-1][0]) / 2
        half = minutes * 30
        out[int(number)] = [c for c in cues if mid - half <= c[0] < mid + half]
    return out


def embed(binary, model, texts):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
    out = subprocess.run([binary, "model", "embed", "--model", model, "--texts-file", f.name],
                         capture_output=True, text=True, check=True)
    os.unlink(f.name)
    return np.array(json.loads(out.stdout)["vectors"], dtype=np.float32)


def score(subjects, questions, vectors, owners):
    p = r = 0.0
    for s, q in zip(subjects, questions):
        cos = vectors @ q
        best = {}
        for episode, c in zip(owners, cos):
            best[episode] = max(best.get(episode, -2.0), float(c))
        top = sorted(best, key=lambda e: -best[e])[:10]
        hits = len(set(top) & set(s["relevant"]))
        p += hits / 10
        r += hits / len(s["relevant"])
    return p / len(subjects), r / len(subjects)


def main():
    corpus = arg("--corpus", os.path.join(REPO, "../shared/corpora/twiml/vtt"))
    minutes = float(arg("--minutes", "10"))
    lengths = [float(x) for x in arg("--lengths", "20,40,60").split(",")]
    out_path = arg("--out", os.path.join(REPO, "docs/passage-length.md"))
    binary, model = sys.argv[1], os.path.abspath(sys.argv[2])
    subjects = json.load(open(os.path.join(HERE, "data/passages_judgments.json")))["subjects"]
    episodes = middles(corpus, minutes)
    questions = embed(binary, model, [s["query"] for s in subjects])
    rows = []
    for seconds in lengths:
        texts, owners = [], []
        for number, cues in episodes.items():
            for t in cut(cues, seconds):
                texts.append(t)
                owners.append(number)
        vectors = embed(binary, model, texts)
        p, r = score(subjects, questions, vectors, owners)
        rows.append((seconds, len(texts), sum(map(len, texts)) / len(texts), p, r))
        print(f"{seconds:.0f} s: {len(texts)} passages, P@10 {p:.3f}, R@10 {r:.3f}", file=sys.stderr)
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    table = "\n".join(f"| {s:.0f} s | {n} | {c:.0f} | {p:.3f} | {r:.3f} |" for s, n, c, p, r in rows)
    open(out_path, "w").write(f"""# Passage length, measured

Written by `python3 scripts/passage_length.py` (one run, commit {commit}, {time.strftime('%Y-%m-%d')}); do not edit by hand.

The middle {minutes:.0f} minutes of each of TWIML's {len(episodes)} episodes cut into
passages of each length (the product's rule, `archilyzer_core::passages::cut`,
at that length), embedded with the product's model, and ranked by meaning
for each of the {len(subjects)} subjects of the judgment set: episodes by
their best passage, precision and recall at 10 by episode.

| length, at least | passages | mean characters | P@10 | R@10 |
|---:|---:|---:|---:|---:|
{table}

The product cuts at 40 seconds (`SECONDS` in `shared/src/passages/cut.rs`).
""")
    print(f"wrote {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
