#!/usr/bin/env bash
# The MCP Inspector CLI (the TypeScript SDK's reference client) against
# `archilyzer-mcp --http` on loopback with no token set: it lists the tools
# and calls one; then the Python `mcp` client does the same in both eras.
# Usage: bash server/tests/inspector_http.sh MCP_BINARY ARCHIVE_DIR INDEX_DIR [PYTHON]
#        bash server/tests/inspector_http.sh --install-only NPM_DIR
# Installs the Inspector (pinned) into a temporary folder with npm, or
# uses the one in $ARCHILYZER_NPM_DIR/inspector (CI installs it there with
# --install-only while it builds).
set -euo pipefail
install() { # DIR
    mkdir -p "$1"
    (cd "$1" && npm install --silent --no-audit --no-fund @modelcontextprotocol/inspector@0.15.0 >/dev/null)
}
if [ "${1:-}" = "--install-only" ]; then
    install "$2/inspector"
    exit 0
fi
mcp=$1 archive=$2 index=$3 py=${4:-.venv/bin/python}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
inspector=$work
if [ -x "${ARCHILYZER_NPM_DIR:-/nonexistent}/inspector/node_modules/.bin/mcp-inspector" ]; then
    inspector=$ARCHILYZER_NPM_DIR/inspector
else
    install "$work"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$mcp" --local "$archive" --index "$index" --http "127.0.0.1:$port" 2>"$work/server.log" &
server=$!
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
inspect() { "$inspector/node_modules/.bin/mcp-inspector" --cli "http://127.0.0.1:$port/mcp" --transport http "$@"; }
# Answers go through files: tools/list, output schemas included, is larger
# than one command-line argument may be.
inspect --method tools/list >"$work/tools.json"
python3 - "$work/tools.json" "$here/mcp_client.py" <<'PY'
import ast, json, sys
names = [t["name"] for t in json.load(open(sys.argv[1]))["tools"]]
# The list the Python client checks, read from its source (one list).
tree = ast.parse(open(sys.argv[2]).read())
expected = next(ast.literal_eval(node.value) for node in tree.body
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXPECTED_TOOLS")
assert names == expected, (names, expected)
print(f"inspector over HTTP: tools/list gives {len(names)} tools")
PY
inspect --method tools/call --tool-name search_transcripts --tool-arg "query=k cups" --tool-arg limit=1 >"$work/found.json"
python3 - "$work/found.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
text = r["content"][0]["text"]
assert not r.get("isError") and 'hit(s) for "k cups"' in text and text.rstrip().endswith(")"), text[:400]
print("inspector over HTTP: search_transcripts answers with its hits and names the corpus")
PY
inspect --method resources/list >"$work/resources.json"
inspect --method resources/read --uri "archilyzer://alphalyzer/transcript/daily-dispatch/RTOHlVpUe9M" >"$work/read.json"
python3 - "$work/resources.json" "$work/read.json" <<'PY'
import json, sys
uris = [r["uri"] for r in json.load(open(sys.argv[1]))["resources"]]
assert "archilyzer://alphalyzer/channel/daily-dispatch" in uris, uris
text = json.load(open(sys.argv[2]))["contents"][0]["text"]
assert "[0:00](https://alphalyzer.example/?v=RTOHlVpUe9M&t=0)" in text, text[:400]
print(f"inspector over HTTP: resources/list gives {len(uris)} resources; a transcript resource reads with its moment links")
PY
"$py" - "http://127.0.0.1:$port/mcp" <<'PY'
import asyncio, sys
from mcp import Client
async def main(url):
    eras = []
    for mode in ("auto", "legacy"):
        async with Client(url, mode=mode) as client:
            eras.append(client.protocol_version)
            result = await client.call_tool("list_channels", {})
            assert not result.is_error and "daily-dispatch" in result.content[0].text, result
    assert eras[0] == "2026-07-28" and eras[1].startswith("2025-"), eras
    print(f"python mcp client over HTTP without a token: {eras[0]} and {eras[1]}")
asyncio.run(main(sys.argv[1]))
PY
