"""The HTML report and the SVG chart in headless Chromium.

Usage: python3 html_report.py BINARY ARCHIVE OUTDIR [CHROMIUM]

Writes `search --html`, `trend --svg` and `trend --html` for the test
archive into OUTDIR, has Chromium render each to a PNG (the screenshots CI
keeps), and reads each page back from the DOM Chromium built. Every moment
link in a page is held against the archive: the video it names exists, a
cue of that video starts at the second the link cites, the page shows that
cue's text beside the link, and the href cites the same second. The number
of hit lines equals the hits `search --json` counts. Exits 1 on any
failure, naming it."""

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

binary, archive, outdir = sys.argv[1:4]
chromium = sys.argv[4] if len(sys.argv) > 4 else "chromium"
os.makedirs(outdir, exist_ok=True)
failures = []


def check(ok, what, detail=""):
    print(json.dumps({"check": what, "ok": bool(ok), **({"detail": detail} if not ok and detail else {})}))
    if not ok:
        failures.append(what)


def run(*args):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


def browser(*args):
    # The pages are local files: nothing in the background may reach for
    # the network (a CI host without it waits out each lookup).
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
             "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-breakpad",
             "--dns-prefetch-disable"]
    return subprocess.run([chromium, *flags, *args], capture_output=True, text=True, timeout=120)


def cues_of_archive():
    """(channel, slug) -> [(start, text)] from every transcript page."""
    out = {}
    root = os.path.join(archive, "transcripts")
    for channel in os.listdir(root):
        for name in os.listdir(os.path.join(root, channel)):
            if not name.startswith("page-"):
                continue
            with open(os.path.join(root, channel, name)) as f:
                for v in json.load(f)["videos"]:
                    out[(channel, v["slug"])] = [(float(c[0]), c[2]) for c in v["cues"]]
    return out


class Moments(HTMLParser):
    """Each `a.moment` with its data attributes and the text of its list item."""

    def __init__(self):
        super().__init__()
        self.moments, self.items, self.current = [], 0, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "li":
            self.items += 1
            self.current = {"text": ""}
        elif tag == "a" and a.get("class") == "moment" and self.current is not None:
            self.current.update(href=a["href"], channel=a["data-channel"], slug=a["data-slug"], t=int(a["data-t"]))
            self.current["in_link"] = True

    def handle_endtag(self, tag):
        if tag == "a" and self.current:
            self.current["in_link"] = False
        if tag == "li" and self.current is not None:
            if "href" in self.current:
                self.moments.append(self.current)
            self.current = None

    def handle_data(self, data):
        if self.current is not None and not self.current.get("in_link"):
            self.current["text"] += data


cues = cues_of_archive()
pages = {
    "search": ["search", "--local", archive, "--no-index", "k cups", "--html"],
    "trend": ["trend", "--local", archive, "--no-index", "k cups", "husolvozel", "--by", "quarter",
              "--svg", os.path.join(outdir, "trend.svg"), "--html"],
}
for name, args in pages.items():
    page = os.path.join(outdir, f"{name}.html")
    run(*args, page)
    shot = os.path.join(outdir, f"{name}.png")
    r = browser(f"--screenshot={shot}", "--window-size=1000,1400", f"file://{os.path.abspath(page)}")
    check(os.path.exists(shot) and os.path.getsize(shot) > 20000, f"{name}.html: Chromium renders a screenshot", r.stderr[-400:])
    dom = browser("--dump-dom", f"file://{os.path.abspath(page)}").stdout
    check("<svg" in dom and "polyline" in dom, f"{name}.html: the chart is inline in the page Chromium built")
    parsed = Moments()
    parsed.feed(dom)
    bad = []
    for m in parsed.moments:
        video = cues.get((m["channel"], m["slug"]))
        said = [text for start, text in video or [] if int(start) == m["t"]]
        text = m["text"].strip()
        cited = re.search(r"[?&]t=(\d+)", m["href"])
        if not video or text not in said or not cited or int(cited.group(1)) != m["t"]:
            bad.append(m)
    check(parsed.moments and not bad, f"{name}.html: every one of {len(parsed.moments)} moment link(s) names a real cue at its second, with its text",
          json.dumps(bad[:3]))
    if name == "search":
        hits = json.loads(run("search", "--local", archive, "--no-index", "k cups", "--json"))["total_hits"]
        check(parsed.items == hits, f"search.html lists every hit ({parsed.items} line(s), search --json counts {hits})")
        words = re.findall(r'class="term" data-word="([^"]*)"', dom)
        related = [t["word"] for t in json.loads(run("related", "--local", archive, "--no-index", "k cups", "--json", "--limit", "10"))["terms"]]
        links = re.findall(r'<a class="term" data-word="[^"]*" href="([^"]*)"', dom)
        check(words == related and len(links) == len(words) and all("qt=" in l for l in links),
              f"search.html shows the {len(words)} significant terms `related --json` gives, each linked to its combined search", json.dumps([words, related]))

svg = os.path.join(outdir, "trend.svg")
shot = os.path.join(outdir, "trend-svg.png")
browser(f"--screenshot={shot}", "--window-size=920,460", f"file://{os.path.abspath(svg)}")
check(os.path.exists(shot) and os.path.getsize(shot) > 20000, "trend.svg: Chromium renders the chart")
with open(svg) as f:
    text = f.read()
check('class="no-speech"' in text and "no speech in scope" in text and "hits (confirmed)" in text,
      "trend.svg: labelled axes, and the periods with no speech marked")
sys.exit(1 if failures else 0)
