#!/usr/bin/env python3
"""Checks the embedder's vectors against an independent reference.

Usage: embed_reference.py BINARY MODEL_DIR CORPUS_VTT_DIR [WINDOWS=60]

Cuts WINDOWS windows of consecutive caption lines (about 40 seconds each,
the length of a passage) from TWIML's VTT files, adds a few short
questions, asks
`BINARY model embed --model MODEL_DIR --texts-file` for their word-piece
ids and vectors, and compares them with:

- the Hugging Face `tokenizers` library's ids for the same texts (equal);
- a forward pass written here in numpy from the same safetensors file
  (cosine >= 0.999 for every window, and for each question embedded
  alone, as a query is);
- sentence-transformers on PyTorch, when it is installed (the same bound).

Prints one line per reference and exits 1 when any window falls short.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
from tokenizers import Tokenizer

from twiml_windows import windows

BOUND = 0.999

SHORT = [
    "trial and error with rewards",
    "keeping records private",
    "when will the ground shake",
    "music made by computers",
    "who won the chess match",
    "a",
]


def safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        dtype = {"F32": np.float32, "F16": np.float16}.get(t["dtype"])
        if dtype is None:  # position_ids and the like
            continue
        out[name.removeprefix("bert.")] = np.frombuffer(data[a:b], dtype=dtype).reshape(t["shape"]).astype(np.float32)
    return out


def layer_norm(x, g, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def erf(x):
    """Abramowitz and Stegun 7.1.26 (error under 1.5e-7), vectorised."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def numpy_forward(w, config, ids):
    """BERT as the paper and transformers define it, mean-pooled, unit length."""
    h, heads = config["hidden_size"], config["num_attention_heads"]
    eps = config.get("layer_norm_eps", 1e-12)
    ids = np.array(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
    x = x + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    d = h // heads
    for l in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        lin = lambda name, t: t @ w[p + name + ".weight"].T + w[p + name + ".bias"]
        q, k, v = (lin(f"attention.self.{n}", x) for n in ("query", "key", "value"))
        ctx = np.zeros_like(x)
        for i in range(heads):
            s = slice(i * d, (i + 1) * d)
            scores = q[:, s] @ k[:, s].T / np.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx[:, s] = scores @ v[:, s]
        x = layer_norm(lin("attention.output.dense", ctx) + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        inner = gelu(lin("intermediate.dense", x))
        x = layer_norm(lin("output.dense", inner) + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def report(name, ours, theirs):
    cos = [float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))) for a, b in zip(ours, theirs)]
    low = min(cos)
    print(f"{name}: {len(cos)} windows, cosine min {low:.6f}, median {sorted(cos)[len(cos) // 2]:.6f} (bound {BOUND})")
    return low >= BOUND


def embed(binary, model, texts):
    """What `BINARY model embed` says of `texts`: their ids and vectors."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(texts, f)
    out = subprocess.run([binary, "model", "embed", "--model", model, "--texts-file", f.name], capture_output=True, text=True, check=True)
    os.unlink(f.name)
    return json.loads(out.stdout)


def main():
    binary, model, corpus = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    # Windows of speech, and short questions (a model takes a few word
    # pieces another way: dot products, not a matrix product).
    texts = windows(corpus, count) + SHORT
    answer = embed(binary, model, texts)
    ours = [np.array(v) for v in answer["vectors"]]
    ok = True

    config = json.load(open(os.path.join(model, "config.json")))
    limit = json.load(open(os.path.join(model, "sentence_bert_config.json"))).get("max_seq_length", 512)
    tok = Tokenizer.from_file(os.path.join(model, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(limit)
    ids = [tok.encode(t).ids for t in texts]
    same = sum(a == b for a, b in zip(ids, answer["ids"]))
    print(f"word pieces: {same} of {len(texts)} windows equal to the tokenizers library's ids ({sum(map(len, ids))} pieces)")
    ok &= same == len(texts)

    weights = safetensors(os.path.join(model, "model.safetensors"))
    reference = [numpy_forward(weights, config, i) for i in ids]
    ok &= report("numpy forward pass", ours, reference)
    # Each question alone, as a query is embedded (a few rows: dot
    # products over f16 weights), against the same reference.
    alone = [np.array(embed(binary, model, [q])["vectors"][0]) for q in SHORT]
    ok &= report("numpy forward pass, each question alone", alone, reference[-len(SHORT):])
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        print("sentence-transformers: not installed, skipped")
    else:
        st = SentenceTransformer(model, device="cpu")
        ok &= report("sentence-transformers", ours, st.encode(texts, normalize_embeddings=True))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
