/**
 * Streamable HTTP behaviour the real servers cannot show, asserted on the wire against the
 * scripted server: headers, sessions, 404 re-initialize, SSE drop + resume, keep-alive drip,
 * cancellation, statuses, fallback rules, auth retry, redirects and `${VAR}` headers.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthProvider } from "../../packages/runtime/src/transport/auth-provider.js";
import { createLeakCheck } from "../support/leak-check.js";
import { type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const slowTools = {
  echo: { run: (args: { message?: string }) => ({ content: [{ type: "text", text: `Echo: ${args.message}` }] }) },
  wait: {
    run: (_args: unknown, ctx: { signal: AbortSignal }) =>
      new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ content: [] }), { once: true })),
  },
  steps: {
    run: async (args: { n?: number }, ctx: { progress(p: number, t?: number): void }) => {
      const n = args.n ?? 3;
      for (let i = 1; i <= n; i++) {
        ctx.progress(i, n);
        await new Promise((r) => setTimeout(r, 20));
      }
      return { content: [{ type: "text", text: "done" }] };
    },
  },
};

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

describe("streamable HTTP, legacy era", () => {
  it("sends the required headers, keeps the session and deletes it on close", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    caller = createHttpCaller({ url: server.url, era: "legacy", headers: { "X-Team": "${TEAM:-blue}" }, env: {} });
    const out = await caller.callTool({ name: "echo", arguments: { message: "hi" } });
    expect(out).toMatchObject({ ok: true, value: { content: [{ type: "text", text: "Echo: hi" }] } });
    const sid = caller.sessionId;
    expect(sid).toMatch(/^s-/);
    await caller.close();
    const [init, initialized, call] = server.rpc();
    expect(init?.body?.method).toBe("initialize");
    expect(init?.headers.accept).toBe("application/json, text/event-stream");
    expect(init?.headers["content-type"]).toBe("application/json");
    expect(init?.headers["mcp-session-id"]).toBeUndefined();
    expect(init?.headers["mcp-protocol-version"]).toBeUndefined();
    expect(init?.headers["x-team"]).toBe("blue");
    expect(initialized?.body?.method).toBe("notifications/initialized");
    expect(call?.headers["mcp-session-id"]).toBe(sid);
    expect(call?.headers["mcp-protocol-version"]).toBe("2025-11-25");
    // No trace context unless the traceContext option asks for it.
    expect(call?.body?.params?._meta).toBeUndefined();
    const del = server.requests.find((r) => r.method === "DELETE");
    expect(del?.headers["mcp-session-id"]).toBe(sid);
    expect(server.sessions.size).toBe(0);
  });

  it("re-initializes once without the session id after a 404 and retries the call", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    expect((await caller.callTool({ name: "echo", arguments: { message: "a" } })).ok).toBe(true);
    const first = caller.sessionId;
    server.next({ rpc: "tools/call" }, { expireSession: true });
    const out = await caller.callTool({ name: "echo", arguments: { message: "b" } });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "Echo: b" }] } });
    const inits = server.rpc("initialize");
    expect(inits).toHaveLength(2);
    expect(inits[1]?.headers["mcp-session-id"]).toBeUndefined();
    expect(caller.sessionId).not.toBe(first);
    expect(server.rpc("tools/call")).toHaveLength(3);
  });

  it("answers on SSE with progress, and tolerates keep-alive comments", async () => {
    server = await startScriptedHttpServer({ tools: slowTools, response: "sse" });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    server.next({ rpc: "tools/call" }, { drip: { intervalMs: 10, count: 3 } });
    const seen: number[] = [];
    const out = await caller.callTool({ name: "steps", arguments: { n: 3 } }, { onProgress: (p) => seen.push(p.progress) });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "done" }] } });
    expect(seen).toEqual([1, 2, 3]);
    const call = server.rpc("tools/call")[0];
    expect(call?.body?.params?._meta?.progressToken).toBeDefined();
  });

  it("resumes a dropped SSE stream with GET + Last-Event-ID after the server's retry delay", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    await caller.connect();
    server.next({ rpc: "tools/call" }, { dropAfterPriming: { retryMs: 150 } });
    const out = await caller.callTool({ name: "echo", arguments: { message: "again" } });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "Echo: again" }] } });
    const resume = server.requests.find((r) => r.method === "GET" && r.headers["last-event-id"] !== undefined);
    expect(resume?.headers["last-event-id"]).toBe("st1-0");
    expect(resume?.headers["mcp-session-id"]).toBe(caller.sessionId);
    expect(resume?.headers.accept).toBe("text/event-stream");
  });

  it("on abort sends notifications/cancelled for the request id and closes the exchange", async () => {
    server = await startScriptedHttpServer({ tools: slowTools, response: "sse" });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    await caller.connect();
    const controller = new AbortController();
    const pending = caller.callTool({ name: "wait", arguments: {} }, { signal: controller.signal });
    await waitFor(() => server?.rpc("tools/call").length === 1);
    controller.abort();
    const out = await pending;
    expect(out).toMatchObject({ ok: false, failure: { kind: "canceled" } });
    await waitFor(() => server?.rpc("notifications/cancelled").length === 1);
    const call = server.rpc("tools/call")[0];
    const cancel = server.rpc("notifications/cancelled")[0];
    expect(cancel?.body?.params?.requestId).toBe(call?.body?.id);
    await waitFor(() => call?.closedEarly === true);
  });

  it("times out per request, separately from the connect timeout", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    caller = createHttpCaller({ url: server.url, era: "legacy", connectTimeoutMs: 5000, timeoutMs: 100 });
    const out = await caller.callTool({ name: "wait", arguments: {} });
    expect(out).toMatchObject({ ok: false, failure: { kind: "timeout", retryable: true } });
    await waitFor(() => server?.rpc("notifications/cancelled").length === 1);
  });

  it("maps 429 with Retry-After to rate_limited with retryAfterMs, and 503 to unavailable", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    await caller.connect();
    server.next({ rpc: "tools/call" }, { status: 429, headers: { "retry-after": "3" } });
    const limited = await caller.callTool({ name: "echo", arguments: {} });
    expect(limited).toMatchObject({ ok: false, failure: { kind: "rate_limited", httpStatus: 429, retryAfterMs: 3000 } });
    server.next({ rpc: "tools/call" }, { status: 503 });
    const down = await caller.callTool({ name: "echo", arguments: {} });
    expect(down).toMatchObject({ ok: false, failure: { kind: "unavailable", httpStatus: 503, retryable: true } });
  });

  it("fails at once, not by timeout, on a 200 whose body is not an answer to the request", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    caller = createHttpCaller({ url: server.url, era: "legacy", timeoutMs: 30_000 });
    await caller.connect();
    server.next({ rpc: "tools/call" }, { status: 200, headers: { "content-type": "text/html" }, body: "<html>proxy login</html>" });
    const html = await caller.callTool({ name: "echo", arguments: {} });
    expect(html).toMatchObject({ ok: false, failure: { kind: "malformed_result" } });
    if (!html.ok) expect(html.failure.message).toContain("text/html");
    server.next({ rpc: "tools/call" }, { status: 200, body: { jsonrpc: "2.0", id: 999_999, result: {} } });
    const other = await caller.callTool({ name: "echo", arguments: {} });
    expect(other).toMatchObject({ ok: false, failure: { kind: "malformed_result" } });
    server.next({ rpc: "tools/call" }, { status: 200, body: { jsonrpc: "2.0", id: null, error: { code: -32600, message: "bad id" } } });
    const orphan = await caller.callTool({ name: "echo", arguments: {} });
    expect(orphan).toMatchObject({ ok: false, failure: { rpc: { code: -32600 } } });
    expect(await caller.callTool({ name: "echo", arguments: { message: "fine" } })).toMatchObject({ ok: true });
  });

  it("names a bad URL without echoing it", () => {
    expect(() => createHttpCaller({ url: "not a url?key=secret" })).toThrow("createHttpCaller: url is not a valid absolute URL");
    expect(() => createHttpCaller({ url: "ftp://127.0.0.1/x" })).toThrow(/must be http\(s\)/);
  });

  it("reports a refused connection as a retryable unavailable failure", async () => {
    const port = await freePort();
    caller = createHttpCaller({ url: `http://127.0.0.1:${port}/mcp` });
    const out = await caller.callTool({ name: "echo", arguments: {} });
    expect(out).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true } });
    if (!out.ok) expect(out.failure.message).toContain("ECONNREFUSED");
  });

  it("opens the standalone GET stream and delivers its notifications", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    const seen: string[] = [];
    caller = createHttpCaller({ url: server.url, era: "legacy", onNotification: (n) => seen.push(n.method) });
    await caller.connect();
    await waitFor(() => server?.requests.some((r) => r.method === "GET") === true);
    await new Promise((r) => setTimeout(r, 50));
    server.broadcast({ method: "notifications/tools/list_changed" });
    await waitFor(() => seen.includes("notifications/tools/list_changed"));
    const get = server.requests.find((r) => r.method === "GET");
    expect(get?.headers.accept).toBe("text/event-stream");
  });

  it("reconnects a closed standalone GET stream after the server's retry, with Last-Event-ID", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    server.next({ http: "GET" }, { dropAfterPriming: { retryMs: 50 } });
    const seen: string[] = [];
    caller = createHttpCaller({ url: server.url, era: "legacy", onNotification: (n) => seen.push(n.method) });
    await caller.connect();
    await waitFor(() => server?.requests.filter((r) => r.method === "GET").length === 2);
    const [first, second] = server.requests.filter((r) => r.method === "GET");
    expect(first?.headers["last-event-id"]).toBeUndefined();
    expect(second?.headers["last-event-id"]).toMatch(/^g\d+-0$/);
    await new Promise((r) => setTimeout(r, 50));
    server.broadcast({ method: "notifications/resources/list_changed" });
    await waitFor(() => seen.includes("notifications/resources/list_changed"));
  });

  it("a request answered 202 gets its response on the standalone GET stream, opened on demand", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    await caller.connect();
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(0);
    server.next({ rpc: "tools/call" }, { answerOnGet: true });
    const out = await caller.callTool({ name: "echo", arguments: { message: "via get" } }, { timeoutMs: 30_000 });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "Echo: via get" }] } });
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(1);
  });

  it("tolerates a 405 on the GET stream", async () => {
    server = await startScriptedHttpServer({ tools: slowTools, getStream: false });
    const warnings: string[] = [];
    caller = createHttpCaller({ url: server.url, era: "legacy", onNotification: () => {}, onWarning: (w) => warnings.push(w) });
    await caller.connect();
    await waitFor(() => server?.requests.some((r) => r.method === "GET") === true);
    expect((await caller.callTool({ name: "echo", arguments: { message: "x" } })).ok).toBe(true);
    expect(warnings).toEqual([]);
  });
});

describe("timeouts, versions and trace context", () => {
  const ticking = {
    tick: {
      run: async (args: { n?: number; every?: number }, ctx: { progress(p: number, t?: number): void }) => {
        for (let i = 1; i <= (args.n ?? 6); i++) {
          await new Promise((r) => setTimeout(r, args.every ?? 60));
          ctx.progress(i);
        }
        return { content: [{ type: "text", text: "ticked" }] };
      },
    },
  };

  it("resets the call timeout on progress, and still enforces the maximum total", async () => {
    server = await startScriptedHttpServer({ tools: ticking, response: "sse" });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    // 3 s of ticks against a 2 s timeout: only the resets keep it alive, and a busy machine's
    // pauses between ticks stay far below the timeout.
    const reset = await caller.callTool(
      { name: "tick", arguments: { n: 10, every: 300 } },
      { timeoutMs: 2000, resetTimeoutOnProgress: true, onProgress: () => {} },
    );
    expect(reset).toMatchObject({ ok: true, value: { content: [{ text: "ticked" }] } });
    const capped = await caller.callTool(
      { name: "tick", arguments: { n: 6, every: 100 } },
      { timeoutMs: 400, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 450, onProgress: () => {} },
    );
    expect(capped).toMatchObject({ ok: false, failure: { kind: "timeout" } });
    const plain = await caller.callTool({ name: "tick", arguments: { n: 6, every: 100 } }, { timeoutMs: 400, onProgress: () => {} });
    expect(plain).toMatchObject({ ok: false, failure: { kind: "timeout" } });
  });

  it("a call aborted while connecting stops waiting, without failing the shared connect of other calls", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    server.next({ rpc: "initialize" }, { delayMs: 300 });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    const impatient = new AbortController();
    const first = caller.callTool({ name: "echo", arguments: { message: "a" } }, { signal: impatient.signal });
    const second = caller.callTool({ name: "echo", arguments: { message: "b" } });
    await waitFor(() => server?.rpc("initialize").length === 1);
    impatient.abort();
    expect(await first).toMatchObject({ ok: false, failure: { kind: "canceled" } });
    expect(await second).toMatchObject({ ok: true, value: { content: [{ text: "Echo: b" }] } });
    expect(server.rpc("initialize")).toHaveLength(1);
    expect(server.rpc("tools/call").map((r) => r.body?.params?.arguments?.message)).toEqual(["b"]);
  });

  it("has a connect timeout of its own, and never cancels initialize", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    server.next({ rpc: "initialize" }, { hang: true });
    caller = createHttpCaller({ url: server.url, era: "legacy", connectTimeoutMs: 150, timeoutMs: 60_000 });
    const out = await caller.callTool({ name: "echo", arguments: {} });
    expect(out).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true } });
    if (!out.ok) expect(out.failure.message).toContain("connect timed out");
    expect(server.rpc("notifications/cancelled")).toHaveLength(0);
  });

  it.each(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])("negotiates legacy version %s and sends it afterwards", async (v) => {
    server = await startScriptedHttpServer({ tools: slowTools, versions: [v] });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    expect(await caller.connect()).toMatchObject({ ok: true, value: { protocolVersion: v } });
    expect(server.rpc("initialize")[0]?.body?.params?.protocolVersion).toBe("2025-11-25");
    await caller.callTool({ name: "echo", arguments: {} });
    expect(server.rpc("tools/call")[0]?.headers["mcp-protocol-version"]).toBe(v);
  });

  it("refuses a server that answers a version it does not speak", async () => {
    server = await startScriptedHttpServer({ tools: slowTools, versions: ["1999-01-01"] });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    const out = await caller.connect();
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.failure.message).toContain("unsupported protocol version");
  });

  it("takes trace context from a function, generates one with true, or sends none when off", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    caller = createHttpCaller({ url: server.url, era: "legacy", traceContext: () => ({ traceparent, tracestate: "k=v" }) });
    await caller.callTool({ name: "echo", arguments: {}, meta: { "com.example/x": 1 } });
    expect(server.rpc("tools/call")[0]?.body?.params?._meta).toEqual({ traceparent, tracestate: "k=v", "com.example/x": 1 });
    await caller.close();
    caller = createHttpCaller({ url: server.url, era: "legacy", traceContext: false });
    await caller.callTool({ name: "echo", arguments: {} });
    expect(server.rpc("tools/call")[1]?.body?.params?._meta).toBeUndefined();
    await caller.close();
    caller = createHttpCaller({ url: server.url, era: "legacy", traceContext: true });
    await caller.callTool({ name: "echo", arguments: {} });
    expect(server.rpc("tools/call")[2]?.body?.params?._meta?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});

describe("legacy HTTP+SSE transport", () => {
  it("falls back from a 405 POST to the SSE stream, calls tools there, and answers auth challenges", async () => {
    server = await startScriptedHttpServer({ tools: slowTools, legacySse: true, requireBearer: "good" });
    let token = "stale";
    const challenges: string[] = [];
    const auth: AuthProvider = {
      authorize: () => ({ Authorization: `Bearer ${token}` }),
      handleChallenge: async (c) => {
        challenges.push(`${c.status} ${c.wwwAuthenticate}`);
        token = "good";
        return true;
      },
    };
    caller = createHttpCaller({ url: server.sseUrl, auth });
    const out = await caller.callTool({ name: "echo", arguments: { message: "over sse" } });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "Echo: over sse" }] } });
    expect(caller.transport).toBe("legacy-sse");
    expect(challenges).toEqual(['401 Bearer realm="scripted"']);
    const methods = server.requests.map((r) => `${r.method} ${r.url.split("?")[0]} ${r.body?.method ?? ""}`.trim());
    expect(methods.slice(0, 5)).toEqual([
      "POST /sse server/discover",
      "POST /sse server/discover",
      "POST /sse initialize",
      "GET /sse",
      "POST /messages initialize",
    ]);
  });

  it("fails in-flight calls when the event stream drops, and reconnects straight to SSE on the next call", async () => {
    server = await startScriptedHttpServer({ tools: slowTools, legacySse: true });
    caller = createHttpCaller({ url: server.sseUrl, era: "legacy" });
    expect((await caller.callTool({ name: "echo", arguments: { message: "1" } })).ok).toBe(true);
    const pending = caller.callTool({ name: "wait", arguments: {} }, { timeoutMs: 30_000 });
    await waitFor(() => server?.rpc("tools/call").length === 2);
    server.dropSseStreams();
    expect(await pending).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true } });
    const before = server.requests.length;
    expect(await caller.callTool({ name: "echo", arguments: { message: "2" } })).toMatchObject({
      ok: true,
      value: { content: [{ text: "Echo: 2" }] },
    });
    // The era cache sends the reconnect straight to GET /sse: no Streamable HTTP attempt first.
    expect(server.requests[before]?.method).toBe("GET");
  });

  it("refuses an endpoint event that points at another origin", async () => {
    const evil = http.createServer((req, res) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("event: endpoint\ndata: http://169.254.169.254/messages\n\n");
        return;
      }
      res.writeHead(405).end();
    });
    await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/sse`;
      caller = createHttpCaller({ url, era: "legacy", connectTimeoutMs: 30_000 });
      const out = await caller.connect();
      expect(out.ok).toBe(false);
      if (!out.ok) expect(out.failure.message).toContain("another origin");
    } finally {
      await caller?.close();
      caller = undefined;
      evil.closeAllConnections();
      await new Promise((r) => evil.close(r));
    }
  });
});

describe("fallback and auth", () => {
  it("never falls back to legacy SSE on 401: the failure is auth_required", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    server.next({ rpc: "initialize" }, { status: 401, headers: { "www-authenticate": 'Bearer resource_metadata="x"' } });
    caller = createHttpCaller({ url: server.url, era: "legacy" });
    const out = await caller.callTool({ name: "echo", arguments: {} });
    expect(out).toMatchObject({ ok: false, failure: { kind: "auth_required", httpStatus: 401 } });
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(0);
  });

  it("falls back to legacy SSE on 405 of the initialize POST", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    server.next({ rpc: "initialize" }, { status: 405 });
    caller = createHttpCaller({ url: server.url, era: "legacy", connectTimeoutMs: 30_000 });
    const out = await caller.connect();
    // The scripted server is not an SSE server: the GET is the proof that the fallback was tried.
    expect(out.ok).toBe(false);
    const get = server.requests.find((r) => r.method === "GET");
    expect(get?.headers.accept).toBe("text/event-stream");
  });

  it("asks the auth provider for headers and retries once after a handled challenge", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    let token = "old";
    const challenges: number[] = [];
    const auth: AuthProvider = {
      authorize: () => ({ Authorization: `Bearer ${token}` }),
      handleChallenge: async (c) => {
        challenges.push(c.status);
        token = "new";
        return true;
      },
    };
    caller = createHttpCaller({ url: server.url, era: "legacy", auth });
    await caller.connect();
    server.next({ rpc: "tools/call" }, { status: 401 });
    const out = await caller.callTool({ name: "echo", arguments: { message: "t" } });
    expect(out.ok).toBe(true);
    expect(challenges).toEqual([401]);
    const calls = server.rpc("tools/call");
    expect(calls.map((c) => c.headers.authorization)).toEqual(["Bearer old", "Bearer new"]);
  });

  it("refuses a cross-origin redirect by default and drops Authorization under `follow`", async () => {
    server = await startScriptedHttpServer({ tools: slowTools });
    const target = server.url;
    const redirector = http.createServer((_req, res) => res.writeHead(307, { location: target }).end());
    await new Promise<void>((r) => redirector.listen(0, "localhost", r));
    const from = `http://localhost:${(redirector.address() as AddressInfo).port}/mcp`;
    try {
      caller = createHttpCaller({ url: from, era: "legacy", headers: { Authorization: "Bearer secret" } });
      const refused = await caller.connect();
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.failure.message).toContain("another origin");
      expect(server.requests).toHaveLength(0);
      await caller.close();
      caller = createHttpCaller({ url: from, era: "legacy", headers: { Authorization: "Bearer secret" }, redirect: "follow" });
      expect((await caller.connect()).ok).toBe(true);
      expect(server.rpc("initialize")[0]?.headers.authorization).toBeUndefined();
    } finally {
      await new Promise((r) => redirector.close(r));
    }
  });

  it("names an unset header variable at construction", () => {
    expect(() => createHttpCaller({ url: "http://127.0.0.1:1/mcp", headers: { "X-Key": "${TW_MISSING_KEY}" }, env: {} })).toThrow(
      /X-Key.*TW_MISSING_KEY is not set/,
    );
  });
});

async function waitFor(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
