#!/usr/bin/env python3
"""find_passages through the real Python MCP client, on real vectors: a
fused query, and the three refusals (no vectors, another model's vectors,
a damaged vector file).

Usage: passages_check.py MCP_BINARY ARCHIVE INDEX MODEL OTHER_MODEL

INDEX holds passages embedded with MODEL; OTHER_MODEL is any other model
folder (CI uses a tiny one the tests make). Prints one JSON line per check
and exits 1 when one fails.
"""

import asyncio
import json
import os
import shutil
import sys
import tempfile

from mcp import Client
from mcp.client.stdio import StdioServerParameters

FAILED = []


def check(ok, what, detail=""):
    print(json.dumps({"check": what, "ok": bool(ok), **({"detail": detail[:400]} if not ok else {})}))
    if not ok:
        FAILED.append(what)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def ask(binary, archive, index, model, args):
    params = StdioServerParameters(command=binary, args=["--local", archive, "--index", index, "--model", model],
                                   env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")})
    async with Client(params) as client:
        return await client.call_tool("find_passages", args)


async def main():
    binary, archive, index, model, other = sys.argv[1:6]
    query = {"query": "teaching software by trial and error with rewards", "limit": 10}
    r = await ask(binary, archive, index, model, query)
    s = r.structured_content or {}
    passages = s.get("passages", [])
    check(not r.is_error and len(passages) == 10 and s["by"] == "both", "a fused query gives ten passages", text_of(r))
    check(any(p["rank_meaning"] and p["rank_words"] for p in passages)
          and all(p["rank_meaning"] or p["rank_words"] for p in passages),
          "every passage is ranked by meaning, words or both", json.dumps(passages)[:400])
    scores = [p["score"] for p in passages]
    check(scores == sorted(scores, reverse=True), "passages come best first", str(scores))
    check(all(p["end"] > p["start"] and p["text"] and p["video"] for p in passages), "each passage has its times, text and video")
    meaning = await ask(binary, archive, index, model, {**query, "by": "meaning"})
    words = {w for p in meaning.structured_content["passages"] for w in p["words"]}
    check(not meaning.is_error and meaning.structured_content["passages"],
          "by meaning alone, passages come back whatever words they share with the question", f"words shared: {sorted(words)}")

    scratch = tempfile.mkdtemp()
    try:
        bare = os.path.join(scratch, "bare")
        os.makedirs(bare)
        for name in os.listdir(index):
            if os.path.isfile(os.path.join(index, name)):
                shutil.copy(os.path.join(index, name), bare)
        r = await ask(binary, archive, bare, model, query)
        check(r.is_error and r.structured_content is None and "archilyzer-index build --embed" in text_of(r),
              "an index without vectors is refused with the command that embeds", text_of(r))

        r = await ask(binary, archive, index, other, query)
        check(r.is_error and "were embedded with" in text_of(r) and "archilyzer-index build --embed" in text_of(r),
              "vectors of another model are refused, naming both models and the fix", text_of(r))
        r = await ask(binary, archive, index, other, {**query, "by": "words"})
        check(not r.is_error and r.structured_content["passages"], "the words ranking needs no model", text_of(r))

        damaged = os.path.join(scratch, "damaged")
        shutil.copytree(index, damaged)
        path = os.path.join(damaged, "passages", "vectors.i8")
        data = bytearray(open(path, "rb").read())
        data[len(data) // 2] ^= 0x5A
        open(path, "wb").write(bytes(data))
        r = await ask(binary, archive, damaged, model, query)
        check(r.is_error and "vectors.i8 is damaged" in text_of(r) and "archilyzer-index build --embed" in text_of(r),
              "a damaged vector file is refused, naming it and the fix", text_of(r))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    asyncio.run(main())
