"""Windows of consecutive caption lines cut from VTT files: the texts the
embedding checks and benchmarks (scripts/embed_reference.py,
scripts/passages_figures.py) feed to both sides of a comparison."""

import os
import re


def windows(corpus, count, seconds=40.0, per_file=1):
    """`count` windows of about `seconds`, `per_file` consecutive ones from
    the middle of each of files spread over the corpus."""
    files = sorted(f for f in os.listdir(corpus) if f.endswith(".vtt"))
    step = max(1, len(files) * per_file // count)
    out = []
    for name in files[::step]:
        cues = parse_vtt(os.path.join(corpus, name))
        at = len(cues) // 2
        for _ in range(per_file):
            if at >= len(cues):
                break
            start = cues[at][0]
            text = []
            while at < len(cues) and cues[at][0] - start < seconds:
                text.append(cues[at][1])
                at += 1
            out.append(" ".join(text))
            if len(out) == count:
                return out
    return out


def parse_vtt(path):
    cues, at = [], None
    stamp = re.compile(r"(\d+):(\d\d):(\d\d)[.,](\d+)|(\d\d):(\d\d)[.,](\d+)")
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.strip()
        if "-->" in line:
            m = stamp.search(line)
            if m.group(1):
                at = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
            else:
                at = int(m.group(5)) * 60 + int(m.group(6))
        elif line and at is not None and not line.startswith(("WEBVTT", "NOTE")):
            cues.append((at, line))
    return cues
