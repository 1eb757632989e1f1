#!/usr/bin/env python3
"""Precision and recall at 10, by episode, of each passage ranking on TWIML.

Usage: passages_quality.py BINARY ARCHIVE INDEX [JUDGMENTS] [--model DIR]

For each subject of the judgment set (scripts/data/passages_judgments.json:
questions phrased without the words the relevant episodes use), asks
`BINARY passages QUERY --one-per-video --limit 10 --json` by meaning, by
words and by both, and scores the ten episodes each gives: precision@10
(relevant episodes among the ten, over ten) and recall@10 (relevant
episodes found, over all relevant ones). Prints a markdown table, the
means, and where `both` does not beat each single ranking.
"""

import json
import os
import subprocess
import sys

RANKINGS = ["meaning", "words", "both"]


def ask(binary, archive, index, query, by, model):
    cmd = [binary, "passages", query, "--local", archive, "--index", index, "--by", by,
           "--one-per-video", "--limit", "10", "--json"]
    if model:
        cmd += ["--model", model]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return [p["video"] for p in json.loads(out.stdout)["passages"]]


def main():
    args = sys.argv[1:]
    model = None
    if "--model" in args:
        i = args.index("--model")
        model = args[i + 1]
        del args[i:i + 2]
    binary, archive, index = args[:3]
    judgments = args[3] if len(args) > 3 else os.path.join(os.path.dirname(__file__), "data", "passages_judgments.json")
    subjects = json.load(open(judgments))["subjects"]
    rows, sums = [], {r: [0.0, 0.0] for r in RANKINGS}
    for s in subjects:
        relevant = {f"twiml-{n}" for n in s["relevant"]}
        cells = []
        for by in RANKINGS:
            got = ask(binary, archive, index, s["query"], by, model)
            hits = len(relevant & set(got))
            p, r = hits / 10, hits / len(relevant)
            sums[by][0] += p
            sums[by][1] += r
            cells.append((p, r))
        rows.append((s["query"], len(relevant), cells))
    n = len(subjects)
    print("| subject | relevant | " + " | ".join(f"{r} P@10 | {r} R@10" for r in RANKINGS) + " |")
    print("|---|---:|" + "---:|---:|" * len(RANKINGS))
    for query, count, cells in rows:
        print(f"| {query} | {count} | " + " | ".join(f"{p:.1f} | {r:.2f}" for p, r in cells) + " |")
    print("| **mean** | | " + " | ".join(f"**{sums[r][0] / n:.3f}** | **{sums[r][1] / n:.3f}**" for r in RANKINGS) + " |")
    mean = {r: (sums[r][0] / n, sums[r][1] / n) for r in RANKINGS}
    for single in ("meaning", "words"):
        for k, name in ((0, "precision@10"), (1, "recall@10")):
            verdict = "beats" if mean["both"][k] > mean[single][k] else "does not beat"
            print(f"\n`both` {verdict} `{single}` on mean {name}: {mean['both'][k]:.3f} against {mean[single][k]:.3f}.", end="")
    print()
    worse = [q for q, _, cells in rows if cells[2][0] < max(cells[0][0], cells[1][0])]
    if worse:
        print(f"\nSubjects where `both` has lower precision than the better single ranking ({len(worse)} of {n}): " + "; ".join(worse) + ".")


if __name__ == "__main__":
    main()
