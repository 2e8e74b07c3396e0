/**
 * Fault matrix in the stateless 2026-07-28 era over HTTP: statuses, a dropped connection, a stream
 * dropped mid-answer (no resume in this era: the request is re-issued once) and a hang, where
 * cancelling means closing the request's stream (no `notifications/cancelled` is defined).
 */
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { type ScriptedHttpOptions, type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const tools: NonNullable<ScriptedHttpOptions["tools"]> = {
  echo: { run: (args) => ({ content: [{ type: "text", text: "ok" }], structuredContent: args }) },
  wait: {
    run: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ content: [] }), { once: true })),
  },
};

let leaks: LeakCheck;
let server: ScriptedHttpServer | undefined;
let caller: HttpCaller | undefined;

beforeAll(() => {
  leaks = createLeakCheck();
});
beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  await caller?.close();
  await server?.close();
  caller = undefined;
  server = undefined;
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

async function setup() {
  server = await startScriptedHttpServer({ era: "2026-07-28", tools });
  caller = createHttpCaller({ name: "2026-07-28", url: server.url, era: "2026-07-28", timeoutMs: 10_000 });
  const first = await caller.callTool({ name: "echo", arguments: { tag: "first" } });
  expect(first.ok && first.value.structuredContent).toEqual({ tag: "first" });
  return { server, caller };
}

async function expectEcho(c: HttpCaller, tag: string) {
  const r = await c.callTool({ name: "echo", arguments: { tag } });
  expect(r.ok && r.value.structuredContent).toEqual({ tag });
}

describe("2026-07-28 era faults", () => {
  it.each([500, 502, 503])("HTTP %i: unavailable, retryable; the next call works", async (status) => {
    const { server, caller } = await setup();
    server.next({ rpc: "tools/call" }, { status, body: "trouble" });
    const r = await caller.callTool({ name: "echo", arguments: {} });
    expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true, httpStatus: status } });
    await expectEcho(caller, "after");
  });

  it("429 with Retry-After: rate_limited with retryAfterMs", async () => {
    const { server, caller } = await setup();
    server.next({ rpc: "tools/call" }, { status: 429, headers: { "retry-after": "4" } });
    const r = await caller.callTool({ name: "echo", arguments: {} });
    expect(r).toMatchObject({ ok: false, failure: { kind: "rate_limited", retryable: true, retryAfterMs: 4000 } });
    await expectEcho(caller, "after");
  });

  it("a dropped connection: unavailable, retryable, then recovery", async () => {
    const { server, caller } = await setup();
    server.next({ rpc: "tools/call" }, { destroy: true });
    expect(await caller.callTool({ name: "echo", arguments: {} })).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", retryable: true },
    });
    await expectEcho(caller, "after");
  });

  it("a stream dropped mid-answer: no resume in this era; re-issued once with a new id, and unavailable if it drops again", async () => {
    const { server, caller } = await setup();
    server.next({ rpc: "tools/call" }, { dropMidStream: true });
    await expectEcho(caller, "reissued");
    const reissued = server.rpc("tools/call").filter((q) => q.body?.params?.arguments?.tag === "reissued");
    expect(reissued).toHaveLength(2);
    expect(reissued[0]?.body?.id).not.toBe(reissued[1]?.body?.id);
    server.next({ rpc: "tools/call" }, { dropMidStream: true });
    server.next({ rpc: "tools/call" }, { dropMidStream: true });
    expect(await caller.callTool({ name: "echo", arguments: { tag: "twice" } })).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", retryable: true },
    });
    expect(server.requests.filter((q) => q.method === "GET")).toEqual([]);
    await expectEcho(caller, "after");
  });

  it("a hang: the per-call timeout closes the request's stream, sends no notifications/cancelled, later calls work", async () => {
    const { server, caller } = await setup();
    const r = await caller.callTool({ name: "wait", arguments: {} }, { timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, failure: { kind: "timeout", retryable: true } });
    const call = server.rpc("tools/call").find((q) => q.body?.params?.name === "wait");
    for (let i = 0; i < 3000 && !call?.closedEarly; i++) await new Promise((res) => setTimeout(res, 10));
    expect(call?.closedEarly).toBe(true);
    expect(server.rpc("notifications/cancelled")).toEqual([]);
    await expectEcho(caller, "after");
  });
});
