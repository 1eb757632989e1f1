// Every tool through the official TypeScript SDK client (the library most
// MCP clients are built on): one call that succeeds and one that is
// refused, each. The SDK validates a tool's structuredContent against its
// output schema even on an error answer and throws when it does not fit,
// so a refusal whose text does not reach the caller fails here.
//
// Usage:
//   node refusals.mjs CASES.json stdio BINARY [ARG ...]   (the server's env is this process's)
//   node refusals.mjs CASES.json http URL [BEARER]
// CASES.json: [{"tool", "ok": {args}, "refuse": {args}, "says": "text the refusal holds"}]
// Prints one JSON line per check and a summary; exits 1 on the first failure.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [casesFile, mode, target, ...rest] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesFile, "utf8"));

function transport() {
  if (mode === "stdio") {
    return new StdioClientTransport({ command: target, args: rest, env: process.env, stderr: "ignore" });
  }
  const headers = rest[0] ? { Authorization: `Bearer ${rest[0]}` } : {};
  return new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
}

function fail(what, detail) {
  console.log(JSON.stringify({ check: what, ok: false, detail: String(detail).slice(0, 3000) }));
  process.exit(1);
}

function pass(what) {
  console.log(JSON.stringify({ check: what, ok: true }));
}

const textOf = (result) => (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("");

const client = new Client({ name: "archilyzer-ts-refusals", version: "1.0.0" });
await client.connect(transport());
// Listing the tools is what makes the SDK validate each answer against
// its tool's output schema.
const { tools } = await client.listTools();
const listed = new Set(tools.map((t) => t.name));
const covered = new Set(cases.map((c) => c.tool));
const missing = [...listed].filter((t) => !covered.has(t));
if (missing.length) fail(`${mode}: a case for every listed tool`, missing.join(", "));
pass(`${mode}: a case for each of the ${listed.size} listed tools`);

for (const c of cases) {
  let ok = { isError: false };
  if (c.ok !== null) try {
    ok = await client.callTool({ name: c.tool, arguments: c.ok });
  } catch (e) {
    fail(`${mode}: ${c.tool} answers through the SDK`, e.message);
  }
  if (ok.isError) fail(`${mode}: ${c.tool} ${JSON.stringify(c.ok)} succeeds`, textOf(ok));
  pass(`${mode}: ${c.tool} succeeds, its structured content valid to the SDK`);
  let refused;
  try {
    refused = await client.callTool({ name: c.tool, arguments: c.refuse });
  } catch (e) {
    fail(`${mode}: ${c.tool}'s refusal reaches the caller (the SDK threw instead)`, e.message);
  }
  const text = textOf(refused);
  if (!refused.isError) fail(`${mode}: ${c.tool} refuses ${JSON.stringify(c.refuse).slice(0, 200)}`, text);
  if (!text.includes(c.says)) fail(`${mode}: ${c.tool}'s refusal says ${JSON.stringify(c.says)}`, text);
  pass(`${mode}: ${c.tool}'s refusal reaches the caller with its text`);
}
console.log(JSON.stringify({ figures: mode, tools: listed.size, calls: cases.length * 2 }));
await client.close();
