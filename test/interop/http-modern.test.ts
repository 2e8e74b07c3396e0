/**
 * The stateless 2026-07-28 era over HTTP, against the scripted server answering as a modern
 * server: the discover probe, `_meta` on every request, routing headers, -32022 retry, the MRTR
 * loop, tools with invalid `x-mcp-header` dropped, `subscriptions/listen`, and the auto fallback.
 */
import { invokeTool } from "@toolwright/runtime/codegen";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { decodeHeaderValue } from "@toolwright/runtime/protocol";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLeakCheck } from "../support/leak-check.js";
import { type ScriptedHttpServer, type ScriptedTool, startScriptedHttpServer } from "../support/scripted-http-server.js";

const META_VERSION = "io.modelcontextprotocol/protocolVersion";
let server: ScriptedHttpServer | undefined;
let caller: HttpCaller | undefined;

beforeEach(() => clearHttpEraCache());

// Every caller, socket and timer this suite opened must be gone at the end, with no listener warning.
const leaks = createLeakCheck();
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  // Every list in the report (processes, handles, warnings, ...) must be empty.
  for (const [what, found] of Object.entries(report)) expect(found, what).toEqual([]);
});
afterEach(async () => {
  await caller?.close();
  await server?.close();
  caller = undefined;
  server = undefined;
});

const tools: { [name: string]: ScriptedTool } = {
  query: {
    descriptor: {
      inputSchema: {
        type: "object",
        properties: {
          region: { type: "string", "x-mcp-header": "Region" },
          priority: { type: "integer", "x-mcp-header": "Priority" },
          verbose: { type: ["boolean", "null"], "x-mcp-header": "Verbose" },
          scope: { type: "object", properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } } },
          sql: { type: "string" },
        },
      },
    },
    run: () => ({ resultType: "complete", content: [{ type: "text", text: "ok" }] }),
  },
  broken: {
    descriptor: {
      inputSchema: { type: "object", properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } } },
    },
    run: () => ({ content: [] }),
  },
  confirm: {
    run: (_args, ctx) => {
      const answer = ctx.params.inputResponses?.ask;
      if (!answer) {
        return {
          resultType: "input_required",
          inputRequests: {
            ask: { method: "elicitation/create", params: { message: "sure?", requestedSchema: { type: "object", properties: {} } } },
          },
          requestState: "opaque-state-1",
        };
      }
      return { resultType: "complete", content: [{ type: "text", text: `${answer.action}:${ctx.params.requestState}` }] };
    },
  },
  forever: {
    run: () => ({ resultType: "input_required", requestState: "again" }),
  },
  wait: {
    run: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ content: [] }), { once: true })),
  },
};

describe("HTTP, 2026-07-28 era", () => {
  it("probes with server/discover, then sends _meta and routing headers on every request", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, clientInfo: { name: "tw-test", version: "9.9.9" }, traceContext: true });
    const listed = await caller.listTools();
    expect(listed.ok).toBe(true);
    expect(caller.era).toBe("2026-07-28");
    expect(caller.sessionId).toBeUndefined();
    const out = await caller.callTool({
      name: "query",
      arguments: { region: "Hello, 世界", priority: 42, verbose: null, scope: { tenant: " padded " }, sql: "SELECT 1" },
      meta: { "com.example/tag": "t1" },
    });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "ok" }] } });
    const [discover, list, call] = server.rpc();
    expect(discover?.body?.method).toBe("server/discover");
    expect(server.rpc("initialize")).toHaveLength(0);
    for (const r of [discover, list, call]) {
      const meta = r?.body?.params?._meta;
      expect(meta?.[META_VERSION]).toBe("2026-07-28");
      // The tasks extension is declared on every caller (client-tasks.ts); nothing else without handlers.
      expect(meta?.["io.modelcontextprotocol/clientCapabilities"]).toEqual({ extensions: { "io.modelcontextprotocol/tasks": {} } });
      expect(meta?.["io.modelcontextprotocol/clientInfo"]).toEqual({ name: "tw-test", version: "9.9.9" });
      expect(r?.headers["mcp-protocol-version"]).toBe("2026-07-28");
      expect(r?.headers["mcp-method"]).toBe(r?.body?.method);
    }
    expect(call?.headers["mcp-name"]).toBe("query");
    expect(call?.headers["mcp-param-region"]).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect(decodeHeaderValue(String(call?.headers["mcp-param-region"]))).toBe("Hello, 世界");
    expect(call?.headers["mcp-param-priority"]).toBe("42");
    expect(call?.headers["mcp-param-verbose"]).toBeUndefined();
    expect(call?.headers["mcp-param-tenant"]).toBe("=?base64?IHBhZGRlZCA=?=");
    expect(call?.headers["mcp-param-sql"]).toBeUndefined();
    expect(call?.body?.params?._meta?.["com.example/tag"]).toBe("t1");
    expect(call?.body?.params?._meta?.traceparent).toMatch(/^00-/);
    expect(server.requests.filter((r) => r.method !== "POST")).toHaveLength(0);
    expect(server.requests.every((r) => r.headers["mcp-session-id"] === undefined)).toBe(true);
  });

  it("ignores a session id a modern server echoes on the probe", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    server.next({ rpc: "server/discover" }, { headers: { "mcp-session-id": "should-be-ignored" } });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    expect((await caller.listTools()).ok).toBe(true);
    expect(caller.sessionId).toBeUndefined();
    expect(server.rpc("tools/list")[0]?.headers["mcp-session-id"]).toBeUndefined();
  });

  it("sends other requests (prompts/get, resources/read) with _meta and Mcp-Name", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    const prompt = await caller.request("prompts/get", { name: "greet" });
    expect(prompt).toMatchObject({ ok: true, value: { messages: [{ content: { text: "prompt greet" } }] } });
    const resource = await caller.request("resources/read", { uri: "file:///tmp/ü.txt" });
    expect(resource).toMatchObject({ ok: true, value: { contents: [{ text: "scripted resource" }] } });
    const [get] = server.rpc("prompts/get");
    const [read] = server.rpc("resources/read");
    expect(get?.headers["mcp-name"]).toBe("greet");
    expect(decodeHeaderValue(String(read?.headers["mcp-name"]))).toBe("file:///tmp/ü.txt");
    expect(read?.headers["mcp-method"]).toBe("resources/read");
    expect(read?.body?.params?._meta?.[META_VERSION]).toBe("2026-07-28");
    const unknown = await caller.request("nope/nothing");
    expect(unknown).toMatchObject({ ok: false, failure: { httpStatus: 404, rpc: { code: -32601 } } });
  });

  it("drops tools whose x-mcp-header declarations are invalid, with a warning", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    const warnings: string[] = [];
    caller = createHttpCaller({ url: server.url, era: "2026-07-28", onWarning: (w) => warnings.push(w) });
    const listed = await caller.listTools();
    expect(listed.ok && listed.value.map((t) => t.name).sort()).toEqual(["confirm", "forever", "query", "wait"]);
    expect(warnings.join("\n")).toMatch(/"broken" dropped: .*list\.items/);
    const refused = await caller.callTool({ name: "broken", arguments: { list: ["a"] } });
    // No arguments can make it callable: a local reason, and the planner must replan, not correct.
    expect(refused).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", reason: "tool_unavailable", source: "local", recovery: { action: "replan" } },
    });
    expect(refused.ok || refused.failure.rpc).toBeUndefined();
    const spec = { id: "scripted.broken", name: "broken", decodePayload: (v: unknown) => ({ ok: true as const, value: v }) };
    const typed = await invokeTool(caller, spec as never, { list: ["a"] });
    // Built once by the caller with the typed path's facts: the tool id, still replan, no correction data.
    expect(typed).toMatchObject({
      ok: false,
      failure: { tool: "scripted.broken", reason: "tool_unavailable", recovery: { action: "replan" } },
    });
    expect(typed.ok || Object.hasOwn(typed.failure.recovery, "priorInput")).toBe(false);
    expect(server.rpc("tools/call")).toHaveLength(0);
  });

  it("retries once with a version from data.supported after -32022", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    await caller.listTools();
    server.next(
      { rpc: "tools/call" },
      {
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32022, message: "Unsupported", data: { supported: ["2026-07-28"], requested: "x" } },
        },
      },
    );
    const out = await caller.callTool({ name: "query", arguments: { region: "eu" } });
    expect(out.ok).toBe(true);
    const calls = server.rpc("tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[0]?.body?.id).not.toBe(calls[1]?.body?.id);
  });

  it("on -32020 header mismatch re-lists tools and retries once", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    await caller.listTools();
    server.next(
      { rpc: "tools/call" },
      { status: 400, body: { jsonrpc: "2.0", id: null, error: { code: -32020, message: "Header mismatch" } } },
    );
    const out = await caller.callTool({ name: "query", arguments: { region: "eu" } });
    expect(out.ok).toBe(true);
    expect(server.rpc("tools/list")).toHaveLength(2);
    expect(server.rpc("tools/call")).toHaveLength(2);
  });

  it("keeps the HTTP status and the JSON-RPC code of a modern 404 (unknown method)", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    await caller.listTools();
    server.next(
      { rpc: "tools/call" },
      { status: 404, body: { jsonrpc: "2.0", id: null, error: { code: -32601, message: "Method not found" } } },
    );
    const out = await caller.callTool({ name: "query", arguments: {} });
    expect(out).toMatchObject({ ok: false, failure: { httpStatus: 404, rpc: { code: -32601 } } });
  });

  it("re-issues a request once, with a new id, when its response stream breaks (no resumption in 2026)", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools, response: "sse" });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    await caller.listTools();
    server.next({ rpc: "tools/call" }, { dropMidStream: true });
    const out = await caller.callTool({ name: "query", arguments: { region: "eu" } });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "ok" }] } });
    const calls = server.rpc("tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[1]?.body?.id).not.toBe(calls[0]?.body?.id);
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(0);
    server.next({ rpc: "tools/call" }, { dropMidStream: true });
    server.next({ rpc: "tools/call" }, { dropMidStream: true });
    const twice = await caller.callTool({ name: "query", arguments: { region: "eu" } });
    expect(twice).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true } });
  });

  it("runs the input_required loop: handler answers, requestState echoed, new JSON-RPC id", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    const asked: unknown[] = [];
    const handlers = new Map([
      [
        "elicitation/create",
        (params: unknown) => {
          asked.push(params);
          return { action: "accept", content: {} };
        },
      ],
    ]);
    caller = createHttpCaller({ url: server.url, era: "2026-07-28", handlers, notificationStream: false });
    const out = await caller.callTool({ name: "confirm", arguments: {} });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "accept:opaque-state-1" }] } });
    expect(asked).toEqual([{ message: "sure?", requestedSchema: { type: "object", properties: {} } }]);
    const [first, retry] = server.rpc("tools/call");
    expect(first?.body?.params?.requestState).toBeUndefined();
    expect(first?.body?.params?.inputResponses).toBeUndefined();
    expect(retry?.body?.params?.requestState).toBe("opaque-state-1");
    expect(retry?.body?.params?.inputResponses).toEqual({ ask: { action: "accept", content: {} } });
    expect(retry?.body?.id).not.toBe(first?.body?.id);
    expect(first?.body?.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]).toMatchObject({
      elicitation: {},
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
  });

  it("bounds the input_required loop", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28", maxInputRounds: 3 });
    const out = await caller.callTool({ name: "forever", arguments: {} });
    expect(out).toMatchObject({ ok: false, failure: { kind: "internal" } });
    if (!out.ok) expect(out.failure.message).toContain("after 3 rounds");
    expect(server.rpc("tools/call")).toHaveLength(4);
  });

  it("the maximum total timeout covers every input_required round, not each one", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    const handlers = new Map([
      [
        "elicitation/create",
        async () => {
          await new Promise((r) => setTimeout(r, 200));
          return { action: "accept", content: {} };
        },
      ],
    ]);
    caller = createHttpCaller({ url: server.url, era: "2026-07-28", handlers, notificationStream: false });
    const out = await caller.callTool({ name: "confirm", arguments: {} }, { timeoutMs: 5000, maxTotalTimeoutMs: 100 });
    expect(out).toMatchObject({ ok: false, failure: { kind: "timeout" } });
    expect(server.rpc("tools/call")).toHaveLength(1);
  });

  it("fails clearly when the server asks for input the client has no handler for", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    const out = await caller.callTool({ name: "confirm", arguments: {} });
    expect(out).toMatchObject({ ok: false, failure: { rpc: { code: -32601 } } });
    if (!out.ok) expect(out.failure.message).toContain("elicitation/create");
  });

  it("cancels by closing the stream, without notifications/cancelled", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools, response: "sse" });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    await caller.listTools();
    const controller = new AbortController();
    const pending = caller.callTool({ name: "wait", arguments: {} }, { signal: controller.signal });
    await waitFor(() => server?.rpc("tools/call").length === 1);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, failure: { kind: "canceled" } });
    const call = server.rpc("tools/call")[0];
    await waitFor(() => call?.closedEarly === true);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.rpc("notifications/cancelled")).toHaveLength(0);
  });

  it("opens subscriptions/listen and delivers list-change notices from it", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    const seen: string[] = [];
    caller = createHttpCaller({ url: server.url, onNotification: (n) => seen.push(n.method) });
    await caller.connect();
    await waitFor(() => server?.rpc("subscriptions/listen").length === 1);
    const listen = server.rpc("subscriptions/listen")[0];
    expect(listen?.body?.params?.notifications).toEqual({ toolsListChanged: true });
    expect(listen?.headers["mcp-method"]).toBe("subscriptions/listen");
    await waitFor(() => seen.includes("notifications/subscriptions/acknowledged"));
    server.broadcast({ method: "notifications/tools/list_changed" });
    await waitFor(() => seen.includes("notifications/tools/list_changed"));
  });

  it("opens subscriptions/listen again after the listen stream drops", async () => {
    server = await startScriptedHttpServer({ era: "2026-07-28", tools });
    caller = createHttpCaller({ url: server.url, onNotification: () => {} });
    server.next({ rpc: "subscriptions/listen" }, { destroy: true });
    server.next({ rpc: "subscriptions/listen" }, { destroy: true });
    await caller.connect();
    // Each dropped listen is opened again (a new request id each time) after the retry delay.
    await waitFor(() => server?.rpc("subscriptions/listen").length === 3, 8000);
    const ids = server.rpc("subscriptions/listen").map((r) => r.body?.id);
    expect(new Set(ids).size).toBe(3);
  });

  it("auto mode falls back to initialize when the probe meets a legacy server, and caches the era", async () => {
    server = await startScriptedHttpServer({ era: "legacy", tools });
    caller = createHttpCaller({ url: server.url });
    expect((await caller.connect()).ok).toBe(true);
    expect(caller.era).toBe("legacy");
    expect(server.rpc().map((r) => r.body?.method)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
    await caller.close();
    caller = createHttpCaller({ url: server.url });
    expect((await caller.connect()).ok).toBe(true);
    expect(server.rpc("server/discover")).toHaveLength(1);
  });

  it("a cached legacy era that stops working is forgotten: the next connect probes again", async () => {
    server = await startScriptedHttpServer({ era: "legacy", tools });
    caller = createHttpCaller({ url: server.url });
    expect((await caller.connect()).ok).toBe(true);
    await caller.close();
    // Same endpoint, now answering initialize with an error: the cached "legacy" must not stick.
    server.next({ rpc: "initialize" }, { status: 500 });
    caller = createHttpCaller({ url: server.url, legacySseFallback: false });
    expect((await caller.connect()).ok).toBe(false);
    await caller.close();
    caller = createHttpCaller({ url: server.url });
    expect((await caller.connect()).ok).toBe(true);
    expect(server.rpc("server/discover")).toHaveLength(2);
  });

  it("pinned to modern, a legacy server is a clear failure", async () => {
    server = await startScriptedHttpServer({ era: "legacy", tools });
    caller = createHttpCaller({ url: server.url, era: "2026-07-28" });
    const out = await caller.callTool({ name: "query", arguments: {} });
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.failure.message).toContain("does not speak 2026-07-28");
    expect(server.rpc("initialize")).toHaveLength(0);
  });
});

async function waitFor(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
