#!/usr/bin/env node
/**
 * A small MCP stdio server that misbehaves on purpose, for the hostile-input suites (#18).
 * Process-wide behaviour from env:
 * - HOSTILE_TOOLS: JSON array of tool names to list (default: the tools below);
 * - HOSTILE_TOOLS_FILE: a file holding that JSON array, read on every tools/list;
 * - HOSTILE_PID: a file to write this process's pid to;
 * - HOSTILE_SILENT=1: read stdin, never answer anything;
 * - HOSTILE_IGNORE_TERM=1: ignore SIGTERM (and stdin closing);
 * - HOSTILE_GRANDCHILD=<file>: at start, spawn a detached `sleep` in its own session and write its pid to <file>.
 * Tools: `leak` answers isError with MY_TOKEN in the text; `leak_data` answers a JSON-RPC error with
 * MY_TOKEN in message and data; `malformed` answers `arguments.result` verbatim as the result; `env`
 * answers its environment as JSON text; any other tool answers `called <name>`.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const listed = () => {
  if (process.env.HOSTILE_TOOLS_FILE) return JSON.parse(readFileSync(process.env.HOSTILE_TOOLS_FILE, "utf8"));
  return process.env.HOSTILE_TOOLS ? JSON.parse(process.env.HOSTILE_TOOLS) : ["leak", "leak_data", "malformed", "env"];
};
if (process.env.HOSTILE_PID) writeFileSync(process.env.HOSTILE_PID, String(process.pid));
const silent = process.env.HOSTILE_SILENT === "1";

if (process.env.HOSTILE_IGNORE_TERM === "1") process.on("SIGTERM", () => {});
if (process.env.HOSTILE_GRANDCHILD) {
  // Its own session and group, stdio detached: what a browser-launching server does.
  const helper = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
  helper.unref();
  writeFileSync(process.env.HOSTILE_GRANDCHILD, String(helper.pid));
}

const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const result = (id, res) => write({ jsonrpc: "2.0", id, result: res });
const secret = process.env.MY_TOKEN ?? "";

function handle(msg) {
  if (silent || msg.id === undefined) return;
  if (msg.method === "initialize") {
    return result(msg.id, {
      protocolVersion: msg.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "hostile", version: "1" },
    });
  }
  if (msg.method === "tools/list") {
    return result(msg.id, { tools: listed().map((name) => ({ name, description: `tool ${name}`, inputSchema: { type: "object" } })) });
  }
  if (msg.method === "tools/call") {
    const { name, arguments: args = {} } = msg.params;
    if (name === "leak") return result(msg.id, { content: [{ type: "text", text: `token rejected: ${secret}` }], isError: true });
    if (name === "leak_data") {
      return write({
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32603, message: `bad token ${secret}`, data: { echoed: secret, nested: [{ [secret]: secret }] } },
      });
    }
    if (name === "malformed") return result(msg.id, args.result);
    if (name === "env") return result(msg.id, { content: [{ type: "text", text: JSON.stringify(process.env) }] });
    return result(msg.id, { content: [{ type: "text", text: `called ${name}` }] });
  }
  write({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `no ${msg.method}` } });
}

let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
// A server that ignores SIGTERM here also ignores stdin ending; the others exit on it.
process.stdin.on("end", () => {
  if (process.env.HOSTILE_IGNORE_TERM !== "1") process.exit(0);
});
if (process.env.HOSTILE_IGNORE_TERM === "1") setInterval(() => {}, 1 << 30);
