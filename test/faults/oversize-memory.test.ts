/**
 * An oversized message must not blow up memory: the line reader drops a line past its cap
 * without buffering it, in a unit feed of 256 MiB and end to end with a 64 MiB stdio answer.
 * Memory is compared after a forced GC, against what keeping the line would have cost.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLineReader } from "../../packages/runtime/src/transport/line-reader.js";
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
    expect(next.ok && next.result.structuredContent).toEqual({ tag: "after" });
    expect(server.pids()).toHaveLength(1);
  } finally {
    await caller.close();
    leaks.track(server.pids());
    server.dispose();
  }
}, 60_000);

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
    expect(r.ok && r.result.content).toEqual([{ type: "text", text: "flooded" }]);
    const tail = caller.stderrTail();
    expect(tail.length).toBeLessThanOrEqual(4096);
    expect(tail).toContain("flood done");
    expect(after - before).toBeLessThan(32 * MiB);
  } finally {
    await caller.close();
    leaks.track(server.pids());
    server.dispose();
  }
}, 60_000);
