"""Calls at the edge of the inputs' bounds, through the real Python `mcp`
client: how long each takes (median of 5) and how long its answer is.

  .venv/bin/python scripts/bounded_calls.py BINARY ARCHIVE_DIR INDEX_DIR

A 10,000-word exclude (refused), 32 excluded words (the bound), a
50,000-character video id and a 50 KB source at max_chars 2000. Prints one
JSON line per case."""
import asyncio, json, sys, time
from mcp import Client
from mcp.client.stdio import StdioServerParameters

def size(r):
    text = "".join(b.text for b in r.content if getattr(b, "type", "") == "text")
    sc = r.structured_content
    return len(text) + (0 if sc is None else len(json.dumps(sc, separators=(",", ":"), ensure_ascii=False))), text

async def main(binary, archive, index):
    params = StdioServerParameters(command=binary, args=["--local", archive, "--index", index])
    async with Client(params) as c:
        await c.call_tool("search_transcripts", {"query": "warmup", "limit": 1})
        words = [f"w{i}" for i in range(10_000)]
        cases = [
            ("exclude of 10,000 words", "search_transcripts", {"query": "learning", "exclude": words}),
            ("exclude of 32 real words (the bound)", "search_transcripts", {"query": "learning", "exclude": ["model", "data", "network", "training", "deep", "neural", "research", "company", "team", "problem", "question", "people", "work", "system", "time", "different", "example", "paper", "approach", "language", "things", "really", "going", "actually", "kind", "think", "know", "like", "right", "sort", "also", "just"]}),
            ("exclude of 32 mid-frequency words", "enumerate_matches", {"query": "learning", "exclude": ["kubernetes", "genomics", "austerity", "radiology", "chess", "poker", "drug", "satellite", "climate", "fraud", "robot", "vehicle", "speech", "music", "game", "medical", "finance", "retail", "energy", "weather", "protein", "legal", "insurance", "agriculture", "manufacturing", "security", "privacy", "fairness", "bias", "graph", "quantum", "compiler"]}),
            ("enumerate with that exclude", "enumerate_matches", {"query": "learning", "exclude": ["model", "data", "network", "training", "deep", "neural", "research", "company", "team", "problem", "question", "people", "work", "system", "time", "different", "example", "paper", "approach", "language", "things", "really", "going", "actually", "kind", "think", "know", "like", "right", "sort", "also", "just"]}),
            ("video_id of 50,000 characters at max_chars 2000", "get_transcript", {"video_id": "x" * 50_000, "max_chars": 2000}),
            ("resolve_source of 50 KB at max_chars 2000", "resolve_source", {"source": "/" + "y" * 50_000, "max_chars": 2000}),
        ]
        for what, tool, args in cases:
            times = []
            for _ in range(5):
                t = time.perf_counter()
                r = await c.call_tool(tool, args)
                times.append((time.perf_counter() - t) * 1000)
            n, text = size(r)
            times.sort()
            print(json.dumps({"case": what, "median_ms": round(times[2], 1), "is_error": r.is_error,
                              "answer_chars": n, "structured": r.structured_content is not None, "text": text[:160]}))

asyncio.run(main(*sys.argv[1:]))
