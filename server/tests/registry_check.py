"""Checks server.json against the MCP Registry's schema (a copy kept in
server/tests/registry/, version 2025-09-29) and against the code: its
version is the workspace's, every flag it passes is one `archilyzer-mcp
--help` lists, every environment variable it names is one the code reads.

Usage: python3 registry_check.py REPO_ROOT BINARY
Prints one line per check; exits 1 on the first failure."""

import json
import pathlib
import re
import subprocess
import sys

import jsonschema

root, binary = pathlib.Path(sys.argv[1]), sys.argv[2]
server = json.loads((root / "server.json").read_text())
schema = json.loads((root / "server/tests/registry/server.schema.json").read_text())


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + (f": {detail}" if detail and not ok else ""))
    if not ok:
        sys.exit(1)


errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(server), key=lambda e: list(e.path))
check(not errors, "server.json validates against the registry's schema", "; ".join(f"{list(e.path)}: {e.message}" for e in errors))
bad = dict(server, packages=[dict(server["packages"][0], transport={"type": "carrier-pigeon"})])
check(any(True for _ in jsonschema.Draft7Validator(schema).iter_errors(bad)), "the schema refuses an unknown transport (the check can fail)")
version = re.search(r'^version = "([^"]+)"', (root / "Cargo.toml").read_text(), re.M).group(1)
check(server["version"] == version and all(p["version"] == version for p in server["packages"]),
      f"server.json's versions are the workspace's ({version})")
transports = sorted(p["transport"]["type"] for p in server["packages"])
check(transports == ["stdio", "streamable-http"], "both ways to run are described (stdio and Streamable HTTP)", str(transports))
help_text = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
flags = {a["name"] for p in server["packages"] for a in p.get("packageArguments", [])}
check(all(re.search(rf"^\s+{re.escape(f)} ", help_text, re.M) for f in flags), "every flag is one archilyzer-mcp takes", str(flags))
code = "\n".join(p.read_text() for d in ("server/src", "shared/src") for p in (root / d).rglob("*.rs"))
names = {e["name"] for p in server["packages"] for e in p.get("environmentVariables", [])}
missing = sorted(n for n in names if f'"{n}"' not in code)
check(not missing, "every environment variable named is one the code reads", str(missing))
