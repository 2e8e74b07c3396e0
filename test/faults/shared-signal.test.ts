/**
 * Many concurrent calls sharing one AbortSignal (a run-wide cancel): no MaxListenersExceeded
 * warning, every call resolves, and one abort cancels them all with nothing left behind.
 */
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { startScriptedHttpServer } from "../support/scripted-http-server.js";
import { scriptedServer } from "../support/scripted-stdio-server.js";

const CONCURRENT = 64;
let leaks: LeakCheck;

beforeAll(() => {
  leaks = createLeakCheck();
  clearHttpEraCache();
});

afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

it("stdio: 64 calls on one signal complete, then 64 hanging calls on one signal are all canceled by one abort", async () => {
  const server = scriptedServer();
  const caller = createStdioCaller({ name: "shared", command: server.command, args: server.args, env: server.env, closeGraceMs: 200 });
  try {
    const run = new AbortController();
    const done = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) => caller.callTool({ name: "echo", arguments: { i } }, { signal: run.signal })),
    );
    expect(done.every((r, i) => r.ok && (r.value.structuredContent as { i: number }).i === i)).toBe(true);
    const cancel = new AbortController();
    const hanging = Array.from({ length: CONCURRENT }, () => caller.callTool({ name: "hang", arguments: {} }, { signal: cancel.signal }));
    for (let i = 0; i < 3000 && server.received("tools/call").length < 2 * CONCURRENT; i++) await new Promise((r) => setTimeout(r, 10));
    cancel.abort();
    const results = await Promise.all(hanging);
    expect(results.map((r) => (r.ok ? "ok" : r.failure.kind))).toEqual(Array(CONCURRENT).fill("canceled"));
    for (let i = 0; i < 3000 && server.received("notifications/cancelled").length < CONCURRENT; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(server.received("notifications/cancelled")).toHaveLength(CONCURRENT);
  } finally {
    await caller.close();
    leaks.track(server.pids());
    server.dispose();
  }
});

it("HTTP: 64 calls on one signal complete without a listener warning", async () => {
  const server = await startScriptedHttpServer({ tools: { echo: { run: (args) => ({ content: [], structuredContent: args }) } } });
  const caller = createHttpCaller({ url: server.url, era: "legacy" });
  try {
    const run = new AbortController();
    const done = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) => caller.callTool({ name: "echo", arguments: { i } }, { signal: run.signal })),
    );
    expect(done.every((r, i) => r.ok && (r.value.structuredContent as { i: number }).i === i)).toBe(true);
  } finally {
    await caller.close();
    await server.close();
  }
});
