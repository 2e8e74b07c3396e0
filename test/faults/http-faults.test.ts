/**
 * Fault matrix over Streamable HTTP: each test makes the scripted HTTP server (or a raw socket)
 * misbehave for real and asserts what the caller did, on the result and on the wire.
 */
import http from "node:http";
import net from "node:net";
import { clearHttpEraCache, createHttpCaller, type HttpCaller, type HttpCallerOptions } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { type ScriptedHttpOptions, type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const tools: NonNullable<ScriptedHttpOptions["tools"]> = {
  echo: { run: (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }], structuredContent: args }) },
  wait: {
    run: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ content: [] }), { once: true })),
  },
};

let leaks: LeakCheck;
const servers: ScriptedHttpServer[] = [];
const callers: HttpCaller[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(() => {
  leaks = createLeakCheck();
});
beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

async function setup(serverOptions: ScriptedHttpOptions = {}, callerOptions: Partial<HttpCallerOptions> = {}) {
  const server = await startScriptedHttpServer({ tools, ...serverOptions });
  servers.push(server);
  const caller = createHttpCaller({ name: "scripted-http", url: server.url, era: "legacy", timeoutMs: 10_000, ...callerOptions });
  callers.push(caller);
  return { server, caller };
}

const echo = (caller: HttpCaller, tag: string, timeoutMs?: number) =>
  caller.callTool({ name: "echo", arguments: { tag } }, timeoutMs === undefined ? {} : { timeoutMs });

async function expectEcho(caller: HttpCaller, tag: string) {
  const r = await echo(caller, tag);
  expect(r.ok && r.value.structuredContent).toEqual({ tag });
}

/** A TCP listener on 127.0.0.1 that is then closed: its port refuses connections. */
async function refusedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("HTTP statuses", () => {
  it.each([500, 502, 503])("HTTP %i on a call: unavailable, retryable, and the next call works", async (status) => {
    const { server, caller } = await setup();
    await caller.connect();
    server.next({ rpc: "tools/call" }, { status, body: "upstream trouble" });
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true, httpStatus: status, server: "scripted-http" });
    await expectEcho(caller, "after");
    expect(server.rpc("initialize")).toHaveLength(1);
  });

  it("429 with Retry-After in seconds and as an HTTP date: rate_limited, retryable, retryAfterMs set", async () => {
    const { server, caller } = await setup();
    await caller.connect();
    server.next({ rpc: "tools/call" }, { status: 429, headers: { "retry-after": "7" } });
    const seconds = await echo(caller, "a");
    expect(seconds).toMatchObject({ ok: false, failure: { kind: "rate_limited", retryable: true, httpStatus: 429, retryAfterMs: 7000 } });
    const date = new Date(Date.now() + 120_000).toUTCString();
    server.next({ rpc: "tools/call" }, { status: 429, headers: { "retry-after": date } });
    const dated = await echo(caller, "b");
    expect(dated).toMatchObject({ ok: false, failure: { kind: "rate_limited", retryable: true } });
    const ms = dated.ok ? undefined : dated.failure.retryAfterMs;
    expect(ms).toBeGreaterThan(60_000);
    expect(ms).toBeLessThanOrEqual(120_000);
    await expectEcho(caller, "after");
  });

  it("404 on a session: one re-initialize without the old session, the call retried once, then success", async () => {
    const { server, caller } = await setup();
    await expectEcho(caller, "first");
    const old = caller.sessionId;
    server.next({ rpc: "tools/call" }, { expireSession: true });
    await expectEcho(caller, "second");
    const inits = server.rpc("initialize");
    expect(inits).toHaveLength(2);
    expect(inits[1]?.headers["mcp-session-id"]).toBeUndefined();
    expect(caller.sessionId).not.toBe(old);
    expect(server.rpc("tools/call").map((r) => r.body?.params?.arguments?.tag)).toEqual(["first", "second", "second"]);
  });

  it("404 again after the re-initialize: fails instead of looping", async () => {
    const { server, caller } = await setup();
    await caller.connect();
    server.next({ rpc: "tools/call" }, { expireSession: true });
    server.next({ rpc: "tools/call" }, { expireSession: true });
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    expect(server.rpc("initialize")).toHaveLength(2);
    expect(server.rpc("tools/call")).toHaveLength(2);
    await expectEcho(caller, "recovered");
  });

  it("401 without OAuth: auth_required, and never a fallback to legacy SSE", async () => {
    const { server, caller } = await setup({}, { era: "auto" });
    server.next({ rpc: "*" }, { status: 401, headers: { "www-authenticate": 'Bearer resource_metadata="http://127.0.0.1:1/x"' } });
    server.next({ rpc: "*" }, { status: 401 });
    server.next({ rpc: "*" }, { status: 401 });
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "auth_required", httpStatus: 401 });
    expect(server.requests.filter((q) => q.method === "GET")).toEqual([]);
  });
});

describe("SSE faults", () => {
  it("stream dropped after a priming event: resumed with Last-Event-ID, answer delivered", async () => {
    const { server, caller } = await setup();
    await caller.connect();
    server.next({ rpc: "tools/call" }, { dropAfterPriming: { retryMs: 20 } });
    await expectEcho(caller, "resumed");
    const resume = server.requests.find((q) => q.method === "GET" && q.headers["last-event-id"] !== undefined);
    expect(resume?.headers["last-event-id"]).toMatch(/^st\d+-0$/);
  });

  it("stream dropped with no event id: unavailable (nothing to resume), and the next call works", async () => {
    const { server, caller } = await setup();
    await caller.connect();
    server.next({ rpc: "tools/call" }, { dropMidStream: true });
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true });
    expect(server.requests.filter((q) => q.method === "GET" && q.headers["last-event-id"] !== undefined)).toEqual([]);
    await expectEcho(caller, "after-drop");
  });

  it("slow drip of keep-alive comments only: the per-call timeout governs, cancel is sent, nothing hangs", async () => {
    const { server, caller } = await setup();
    await caller.connect();
    server.next({ rpc: "tools/call" }, { drip: { intervalMs: 20, count: 1_000_000 } });
    const r = await caller.callTool({ name: "wait", arguments: {} }, { timeoutMs: 200 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "timeout", retryable: true });
    for (let i = 0; i < 3000 && server.rpc("notifications/cancelled").length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    expect(server.rpc("notifications/cancelled")).toHaveLength(1);
    for (let i = 0; i < 3000 && !server.rpc("tools/call")[0]?.closedEarly; i++) await new Promise((res) => setTimeout(res, 10));
    expect(server.rpc("tools/call")[0]?.closedEarly).toBe(true);
    await expectEcho(caller, "after-drip");
  });

  it("a dropped connection (socket destroyed, no answer): unavailable, retryable", async () => {
    const { server, caller } = await setup();
    await caller.connect();
    server.next({ rpc: "tools/call" }, { destroy: true });
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true });
    await expectEcho(caller, "after-destroy");
  });

  it("a JSON answer over the 16 MiB body limit: a clear malformed_result, and the next call works", async () => {
    const { server, caller } = await setup();
    await caller.connect();
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "x".repeat(17 * 1024 * 1024) }] } });
    server.next({ rpc: "tools/call" }, { status: 200, body: huge });
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure.kind).toBe("malformed_result");
      expect(r.failure.message).toMatch(/larger than/);
    }
    await expectEcho(caller, "after-oversize");
  });

  it("a server that never answers initialize: connect timeout → unavailable", async () => {
    const { server, caller } = await setup({}, { connectTimeoutMs: 200 });
    server.next({ rpc: "initialize" }, { hang: true });
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true });
    expect(server.rpc("notifications/cancelled")).toHaveLength(0);
  });
});

describe("connection faults on 127.0.0.1", () => {
  it("connection refused: unavailable with the cause", async () => {
    const port = await refusedPort();
    const caller = createHttpCaller({ name: "refused", url: `http://127.0.0.1:${port}/mcp`, era: "legacy", connectTimeoutMs: 30_000 });
    callers.push(caller);
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true, server: "refused" });
      expect(r.failure.message).toMatch(/ECONNREFUSED|refused/i);
    }
  });

  it("https:// to a plain-HTTP port: unavailable with the TLS cause", async () => {
    const plain = http.createServer((_req, res) => res.end("plain"));
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          plain.closeAllConnections();
          plain.close(() => resolve());
        }),
    );
    const { port } = plain.address() as net.AddressInfo;
    const caller = createHttpCaller({ name: "tls", url: `https://127.0.0.1:${port}/mcp`, era: "legacy", connectTimeoutMs: 30_000 });
    callers.push(caller);
    const r = await echo(caller, "x");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure).toMatchObject({ kind: "unavailable", server: "tls" });
      expect(r.failure.message).toMatch(/SSL|TLS|EPROTO|wrong version|packet length/i);
    }
  });
});
