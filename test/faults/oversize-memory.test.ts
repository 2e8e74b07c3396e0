/**
 * An oversized message must not blow up memory: the line reader drops a line past its cap
 * without buffering it, in a unit feed of 256 MiB and end to end with a 64 MiB stdio answer.
 * Memory is compared after a forced GC, against what keeping the line would have cost.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLineReader } from "../../packages/runtime/src/transport/line-reader.js";
import { createSseParser, type SseEvent } from "../../packages/runtime/src/transport/sse-parser.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { scriptedServer } from "../support/scripted-stdio-server.js";

const MiB = 1024 * 1024;
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function external(): number {
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

let leaks: LeakCheck;
beforeAll(() => {
  leaks = createLeakCheck();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

it("the line reader keeps nothing of a 256 MiB line over a 1 MiB cap, and reads the next message", () => {
  const messages: unknown[] = [];
  const noise: string[] = [];
  const ends: { bytes: number; id?: string | number }[] = [];
  const reader = createLineReader(MiB, {
    onMessage: (v) => messages.push(v),
    onNoise: (_r, kind) => noise.push(kind),
    onOversizeEnd: (info) => ends.push(info),
  });
  const before = external();
  const head = '{"jsonrpc":"2.0","id":41,"result":{"text":"';
  reader.push(Buffer.from(head));
  for (let i = 0; i < 256; i++) reader.push(Buffer.alloc(MiB, 0x61));
  const during = external();
  reader.push(Buffer.from('"}}\n{"jsonrpc":"2.0","id":42,"result":{}}\n'));
  expect(noise).toEqual(["oversize"]);
  expect(ends).toEqual([{ bytes: head.length + 256 * MiB + '"}}'.length, id: 41 }]);
  expect(messages).toEqual([{ jsonrpc: "2.0", id: 42, result: {} }]);
  // Keeping the line would hold 256 MiB; the reader may hold at most its cap.
  expect(during - before).toBeLessThan(32 * MiB);
});

it("a 64 MiB stdio answer over a 1 MiB cap fails its call without growing memory, and the session goes on", async () => {
  const server = scriptedServer();
  const caller = createStdioCaller({
    name: "big",
    command: server.command,
    args: server.args,
    env: server.env,
    maxMessageBytes: MiB,
    closeGraceMs: 200,
  });
  try {
    await caller.connect();
    const before = external();
    const r = await caller.callTool({ name: "oversize", arguments: { bytes: 64 * MiB } });
    const after = external();
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("malformed_result");
    expect(after - before).toBeLessThan(32 * MiB);
    const next = await caller.callTool({ name: "echo", arguments: { tag: "after" } });
    expect(next.ok && next.value.structuredContent).toEqual({ tag: "after" });
    expect(server.pids()).toHaveLength(1);
  } finally {
    await caller.close();
    leaks.track(server.pids());
    server.dispose();
  }
});

it("64 MiB of stderr is kept in a bounded ring: the tail is capped and memory does not grow", async () => {
  const server = scriptedServer();
  const caller = createStdioCaller({
    name: "noisy",
    command: server.command,
    args: server.args,
    env: server.env,
    stderrBytes: 4096,
    closeGraceMs: 200,
  });
  try {
    await caller.connect();
    const before = external();
    const r = await caller.callTool({ name: "stderr_flood", arguments: { mib: 64 } });
    const after = external();
    expect(r.ok && r.value.content).toEqual([{ type: "text", text: "flooded" }]);
    const tail = caller.stderrTail();
    expect(tail.length).toBeLessThanOrEqual(4096);
    expect(tail).toContain("flood done");
    expect(after - before).toBeLessThan(32 * MiB);
  } finally {
    await caller.close();
    leaks.track(server.pids());
    server.dispose();
  }
});

it("the SSE parser drops a line over its cap, keeps nothing of it, and dispatches the next event", () => {
  const events: SseEvent[] = [];
  let oversize = 0;
  const parser = createSseParser((e) => events.push(e), { maxChars: 1024, onOversize: () => oversize++ });
  parser.push("data: ");
  for (let i = 0; i < 1000; i++) {
    parser.push("x".repeat(100));
    expect(parser.pending).toBeLessThanOrEqual(1024);
  }
  parser.push('\n\ndata: {"ok":true}\n\n');
  parser.push(`data: ${"y".repeat(1000)}\n\n`);
  expect(oversize).toBe(1);
  expect(events.map((e) => e.data)).toEqual(['{"ok":true}', "y".repeat(1000)]);
});

it("a 128 MiB SSE line before the answer: the answer still arrives, and the heap does not follow the line", async () => {
  clearHttpEraCache();
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const msg = JSON.parse(body || "{}");
      if (msg.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-06-18", capabilities: {} } }));
      }
      if (msg.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = "a".repeat(MiB);
      let left = 128;
      const next = () => {
        while (left > 0) {
          left--;
          if (!res.write(chunk)) return void res.once("drain", next);
        }
        res.end(
          `\n\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "made it" }] } })}\n\n`,
        );
      };
      res.write("data: ");
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const caller = createHttpCaller({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    era: "legacy",
    timeoutMs: 25_000,
  });
  try {
    await caller.connect();
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    }, 5);
    const r = await caller.callTool({ name: "x", arguments: {} });
    clearInterval(sampler);
    expect(r.ok && r.value.content).toEqual([{ type: "text", text: "made it" }]);
    // Keeping the line would cost 256 MiB of heap (UTF-16); the parser's cap is 16 Mi characters.
    expect(peak).toBeLessThan(128 * MiB);
  } finally {
    await caller.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
