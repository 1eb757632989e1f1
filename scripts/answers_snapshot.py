#!/usr/bin/env python3
"""Prints the answers of one build to a fixed set of questions, so that two
builds can be diffed (a refactoring must leave them byte-identical).

Usage: python3 scripts/answers_snapshot.py BIN_DIR ARCHIVE INDEX_DIR > answers.txt

BIN_DIR holds the build's `archilyzer-index` and `archilyzer-mcp`;
ARCHIVE and INDEX_DIR are a real archive and its index (TWIML imported
and built). The committed test archive is asked too. Printed: CLI
commands (stdout, stderr and exit code), every command's `--help`, the
server's `tools/list` (every tool's schemas and descriptions), and MCP
tool calls as bare JSON-RPC over stdio (each result, keys sorted). Caches go to a scratch
folder of its own, so a run starts from nothing (printed as `<scratch>`). To compare a commit
with HEAD: build each (a `git worktree` and its own CARGO_TARGET_DIR),
run this with each BIN_DIR, and `diff` the two files.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALPHA = os.path.join(ROOT, "testdata", "archive", "alpha")

SEARCHES = [["k cups"], ["reinforcement learning"], ["austerity"], ["transformers", "--json"],
            ["learning", "--scope", "chat"], ["cup.", "--regex"]]

CALLS = [
    ("search_transcripts", {"query": "reinforcement learning", "limit": 5}),
    ("search_transcripts", {"query": "learning", "limit": 3, "max_chars": 2000}),
    ("enumerate_matches", {"query": "austerity"}),
    ("enumerate_matches", {"query": "transformers", "max_chars": 3000}),
    ("similar_terms", {"word": "transformer"}),
    ("search_transcripts", {"query": "x", "scopes": ["lyrics"]}),
    ("get_transcripts", {"video_ids": ["nonexistent"], "query": "really", "scopes": ["chat"]}),
    ("fetch_clip", {"video_id": "a", "start": 10, "end": 5}),
    ("list_sources", {}),
]

# The commands whose `--help` is printed (none: the binary's own).
COMMANDS = [[], ["import"], ["build"], ["search"], ["passages"], ["trend"], ["check"],
            ["terms"], ["related"], ["stats"], ["model"]]


def cli(index_bin, env, out, *args):
    r = subprocess.run([index_bin, *args], capture_output=True, text=True, env=env)
    out.append(f"$ {' '.join(args)}\nrc={r.returncode}\n{r.stdout}\n[stderr]\n{r.stderr}")


def mcp(mcp_bin, env, out, args, calls):
    p = subprocess.Popen([mcp_bin, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env)

    def send(message):
        p.stdin.write(json.dumps(message) + "\n")
        p.stdin.flush()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                     "clientInfo": {"name": "answers_snapshot", "version": "1"}}})
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": "list", "method": "tools/list"})
    listed = json.loads(p.stdout.readline()).get("result")
    out.append(f"# tools/list\n{json.dumps(listed, indent=1, sort_keys=True)}")
    for i, (name, arguments) in enumerate(calls, 1):
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}})
        result = json.loads(p.stdout.readline()).get("result")
        out.append(f"# {name} {json.dumps(arguments)}\n{json.dumps(result, indent=1, sort_keys=True)}")
    p.stdin.close()
    p.wait()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    bin_dir, archive, index = sys.argv[1:]
    index_bin = os.path.join(bin_dir, "archilyzer-index")
    mcp_bin = os.path.join(bin_dir, "archilyzer-mcp")
    out = []
    with tempfile.TemporaryDirectory() as scratch:
        env = {"PATH": os.environ["PATH"], "HOME": scratch,
               "ARCHILYZER_CACHE_DIR": os.path.join(scratch, "cache")}
        for command in COMMANDS:
            cli(index_bin, env, out, *command, "--help")
        r = subprocess.run([mcp_bin, "--help"], capture_output=True, text=True, env=env)
        out.append(f"$ archilyzer-mcp --help\n{r.stdout}")
        for source in (["--local", ALPHA, "--no-index"], ["--local", archive, "--index", index]):
            for question in SEARCHES:
                cli(index_bin, env, out, "search", *source, *question)
            cli(index_bin, env, out, "trend", *source, "learning", "--by", "year")
        cli(index_bin, env, out, "passages", "--local", archive, "--index", index,
            "reinforcement learning", "--by", "words", "--json")
        mcp(mcp_bin, env, out, ["--local", archive, "--index", index], CALLS)
        mcp(mcp_bin, env, out, ["--local", ALPHA], CALLS[:3])
        # The scratch folder's name differs from run to run: named alike.
        print("\n".join(out).replace(scratch, "<scratch>"))


if __name__ == "__main__":
    main()
