#!/usr/bin/env node
/**
 * A tiny MCP stdio server whose side effects can be counted after a crash: every `tools/call` it
 * receives is appended (synchronously, before answering) to LEDGER_FILE as one JSON line with the
 * tool, the text, the `_meta` idempotency key, the arrival time, LEDGER_OWNER (the worker that spawned it)
 * and LEDGER_CREDENTIAL (the agent whose caller spawned it).
 * `hold_ms` keeps the answer back after the side effect, so a test can kill the worker mid-call.
 * Exits when stdin closes (its worker died or closed it).
 */
import { appendFileSync } from "node:fs";

const file = process.env.LEDGER_FILE;
const owner = process.env.LEDGER_OWNER ?? "";
// The "credential" its worker started it with: a test checks that each call reached its agent's own server.
const cred = process.env.LEDGER_CREDENTIAL;
const KEY = "toolwright.dev/idempotency-key";
if (!file) {
  process.stderr.write("ledger-server: LEDGER_FILE is not set\n");
  process.exit(2);
}
// `at` is this machine's clock when the server received the message: the rate-limit test counts calls per window by it.
const note = (entry) => appendFileSync(file, `${JSON.stringify({ pid: process.pid, owner, cred, at: Date.now(), ...entry })}\n`);
note({ kind: "started" });

const TOOLS = ["append", "read", "put", "wipe"].map((name) => ({
  name,
  inputSchema: { type: "object", properties: { text: { type: "string" }, hold_ms: { type: "integer" } }, required: ["text"] },
}));

const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const timers = new Set();

function handle(message) {
  const { id, method, params } = message;
  if (id === undefined) return; // notifications
  if (method === "initialize")
    return write({
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "ledger", version: "1.0.0" },
      },
    });
  if (method === "ping") return write({ jsonrpc: "2.0", id, result: {} });
  if (method === "tools/list") return write({ jsonrpc: "2.0", id, result: { tools: TOOLS } });
  if (method === "tools/call") {
    const args = params?.arguments ?? {};
    const key = params?._meta?.[KEY] ?? null;
    note({ kind: "call", tool: params?.name, text: args.text, key });
    const answer = () => {
      note({ kind: "answered", tool: params?.name, key });
      write({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: `${params?.name}:${args.text}` }] } });
    };
    const hold = Number(args.hold_ms ?? 0);
    if (hold > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, hold);
      timers.add(timer);
    } else answer();
    return;
  }
  write({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } });
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
    const line = buffer.slice(0, at).trim();
    buffer = buffer.slice(at + 1);
    if (line) handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => process.exit(0));
process.stdout.on("error", () => process.exit(0));
