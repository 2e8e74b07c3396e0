#!/usr/bin/env node
/**
 * A counting proxy in front of server-memory: spawns the real server, passes stdio through both
 * ways, and appends every `tools/call` it forwards to COUNT_FILE (synchronously, before the server
 * sees it) with the tool, the arguments, the `_meta` idempotency key and COUNT_OWNER (the worker).
 * With HOLD_TOOL set, answers to that tool are held back HOLD_MS after the server ran it (a slow
 * server), so the demo's kill lands mid-call. Exits, with its server, when stdin closes.
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const serverDir = dirname(require.resolve("@modelcontextprotocol/server-memory/package.json"));
const countFile = process.env.COUNT_FILE;
const owner = process.env.COUNT_OWNER ?? "";
const holdTool = process.env.HOLD_TOOL ?? "";
const holdMs = Number(process.env.HOLD_MS ?? "0");
const KEY = "toolwright.dev/idempotency-key";
if (!countFile || !process.env.MEMORY_FILE_PATH) {
  process.stderr.write("counting-proxy: COUNT_FILE and MEMORY_FILE_PATH must be set\n");
  process.exit(2);
}
const server = spawn(process.execPath, [join(serverDir, "dist", "index.js")], {
  stdio: ["pipe", "pipe", "inherit"],
  env: { PATH: process.env.PATH ?? "", MEMORY_FILE_PATH: process.env.MEMORY_FILE_PATH },
});
appendFileSync(countFile, `${JSON.stringify({ kind: "started", pid: process.pid, server: server.pid, owner })}\n`);

const held = new Set(); // request ids whose answers are held back
function lines(stream, onLine) {
  let buffer = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    buffer += chunk;
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      onLine(buffer.slice(0, at));
      buffer = buffer.slice(at + 1);
    }
  });
}
lines(process.stdin, (line) => {
  try {
    const message = JSON.parse(line);
    if (message.method === "tools/call") {
      const { name, arguments: args, _meta } = message.params ?? {};
      appendFileSync(countFile, `${JSON.stringify({ kind: "call", tool: name, arguments: args, key: _meta?.[KEY] ?? null, owner })}\n`);
      if (name === holdTool && holdMs > 0) held.add(message.id);
    }
  } catch {
    // not JSON: pass it on, the server answers it
  }
  server.stdin.write(`${line}\n`);
});
lines(server.stdout, (line) => {
  let id;
  try {
    id = JSON.parse(line).id;
  } catch {
    id = undefined;
  }
  if (id !== undefined && held.delete(id)) setTimeout(() => process.stdout.write(`${line}\n`), holdMs);
  else process.stdout.write(`${line}\n`);
});
process.stdin.on("end", () => {
  server.stdin.end();
  const force = setTimeout(() => server.kill("SIGKILL"), 2000);
  server.once("exit", () => {
    clearTimeout(force);
    process.exit(0);
  });
});
process.stdout.on("error", () => server.kill("SIGKILL"));
server.once("exit", (code) => process.exit(code ?? 1));
