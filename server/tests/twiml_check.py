"""The MCP server against the command line on the imported TWIML archive.

Usage: python3 twiml_check.py MCP_BINARY INDEX_BINARY ARCHIVE INDEX_DIR

1. A real client's enumerate_matches for `twimble` returns the same videos
   and hit counts as `archilyzer-index search --no-index --json twimble`.
2. Start-up: from spawning the server to the first list_channels answer
   (median of 5), printed as a benchmark figure.
Exits 1 on any parity difference.
"""

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def params(binary, archive, index):
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")}
    return StdioServerParameters(command=binary, args=["--local", archive, "--index", index], env=env)


async def startup_ms(binary, archive, index):
    started = time.perf_counter()
    async with Client(params(binary, archive, index)) as client:
        await client.call_tool("list_channels", {})
        return (time.perf_counter() - started) * 1000


async def main():
    mcp_bin, index_bin, archive, index = sys.argv[1:5]
    cli = subprocess.run(
        [index_bin, "search", "--local", archive, "--no-index", "--json", "twimble"],
        check=True, capture_output=True, text=True,
    )
    expected = {(v["slug"], len(v["hits"])) for v in json.loads(cli.stdout)["videos"]}
    async with Client(params(mcp_bin, archive, index)) as client:
        result = await client.call_tool("enumerate_matches", {"query": "twimble"})
    got = {(v["id"], v["matches"]) for v in result.structured_content["videos"]}
    print(f"twimble: command line {len(expected)} videos / {sum(n for _, n in expected)} hits; "
          f"MCP {len(got)} videos / {sum(n for _, n in got)} hits")
    if got != expected:
        print("DIFFERENCE:", sorted(expected ^ got)[:10])
        sys.exit(1)
    times = [await startup_ms(mcp_bin, archive, index) for _ in range(5)]
    print(f"start-up to first list_channels answer: median {statistics.median(times):.0f} ms "
          f"(runs: {', '.join(f'{t:.0f}' for t in times)})")


asyncio.run(main())
