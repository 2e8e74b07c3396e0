/**
 * The official SDK's `McpServer` over `StreamableHTTPServerTransport` (stateful sessions) on
 * 127.0.0.1, in JSON response mode and in SSE mode, through `createHttpCaller`: handshake,
 * structured results, progress, cancellation that reaches the server, and DELETE on close.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createLeakCheck } from "../support/leak-check.js";

interface Harness {
  readonly url: string;
  readonly seen: { method: string; headers: http.IncomingHttpHeaders; rpc?: string }[];
  readonly cancelled: string[];
  close(): Promise<void>;
}

function buildServer(cancelled: string[]): McpServer {
  const server = new McpServer({ name: "sdk-test", version: "1.0.0" });
  server.registerTool("add", { inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
    structuredContent: { sum: a + b },
  }));
  server.registerTool("count", { inputSchema: { n: z.number() } }, async ({ n }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= n; i++) {
      if (token !== undefined)
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n } });
    }
    return { content: [{ type: "text", text: `counted ${n}` }] };
  });
  server.registerTool(
    "block",
    { description: "waits until cancelled" },
    async (extra) =>
      new Promise((resolve) =>
        extra.signal.addEventListener("abort", () => {
          cancelled.push(String(extra.requestId));
          resolve({ content: [] });
        }),
      ),
  );
  return server;
}

async function startSdkServer(mode: "json" | "sse"): Promise<Harness> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const seen: Harness["seen"] = [];
  const cancelled: string[] = [];
  const httpServer = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? JSON.parse(text) : undefined;
    seen.push({ method: req.method ?? "", headers: req.headers, ...(body?.method ? { rpc: body.method } : {}) });
    const sid = req.headers["mcp-session-id"] as string | undefined;
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport && req.method === "POST" && body?.method === "initialize") {
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: mode === "json",
        onsessioninitialized: (id) => void transports.set(id, t),
      });
      t.onclose = () => {
        if (t.sessionId) transports.delete(t.sessionId);
      };
      const server = buildServer(cancelled);
      servers.push(server);
      await server.connect(t);
      transport = t;
    }
    if (!transport) {
      res.writeHead(sid ? 404 : 400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32000, message: sid ? "Session not found" : "Bad Request: no session" },
        }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => httpServer.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`,
    seen,
    cancelled,
    async close() {
      for (const s of servers) await s.close();
      httpServer.closeAllConnections();
      await new Promise((r) => httpServer.close(r));
    },
  };
}

let harness: Harness | undefined;
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
  await harness?.close();
  caller = undefined;
  harness = undefined;
});

describe.each(["json", "sse"] as const)("SDK McpServer, %s response mode", (mode) => {
  it("connects (probe, then initialize), calls with structured content, and deletes the session on close", async () => {
    harness = await startSdkServer(mode);
    caller = createHttpCaller({ url: harness.url });
    const hs = await caller.connect();
    expect(hs).toMatchObject({ ok: true, value: { protocolVersion: "2025-11-25", serverInfo: { name: "sdk-test" } } });
    const out = await caller.callTool({ name: "add", arguments: { a: 2, b: 40 } });
    expect(out).toMatchObject({ ok: true, value: { content: [{ type: "text", text: "42" }], structuredContent: { sum: 42 } } });
    const bad = await caller.callTool({ name: "add", arguments: { a: "x" } });
    expect(bad.ok === false || (bad.ok && bad.value.isError === true)).toBe(true);
    const listed = await caller.listTools();
    expect(listed.ok && listed.value.map((t) => t.name).sort()).toEqual(["add", "block", "count"]);
    const sid = caller.sessionId;
    await caller.close();
    const call = harness.seen.find((s) => s.rpc === "tools/call");
    expect(call?.headers["mcp-session-id"]).toBe(sid);
    expect(call?.headers["mcp-protocol-version"]).toBe("2025-11-25");
    expect(harness.seen.find((s) => s.method === "DELETE")?.headers["mcp-session-id"]).toBe(sid);
    expect(harness.seen.map((s) => s.rpc).slice(0, 3)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
  });

  it("cancellation reaches the server's handler", async () => {
    harness = await startSdkServer(mode);
    caller = createHttpCaller({ url: harness.url, era: "legacy" });
    await caller.connect();
    const controller = new AbortController();
    const pending = caller.callTool({ name: "block", arguments: {} }, { signal: controller.signal });
    await expect.poll(() => harness?.seen.some((s) => s.rpc === "tools/call")).toBe(true);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, failure: { kind: "canceled" } });
    await expect.poll(() => harness?.cancelled.length).toBe(1);
    expect((await caller.callTool({ name: "add", arguments: { a: 1, b: 1 } })).ok).toBe(true);
  });
});

describe("SDK McpServer, SSE mode only", () => {
  it("delivers progress before the result on the POST stream", async () => {
    harness = await startSdkServer("sse");
    caller = createHttpCaller({ url: harness.url, era: "legacy" });
    const seen: number[] = [];
    const out = await caller.callTool({ name: "count", arguments: { n: 4 } }, { onProgress: (p) => seen.push(p.progress) });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: "counted 4" }] } });
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("handles many concurrent calls on one session", async () => {
    harness = await startSdkServer("sse");
    caller = createHttpCaller({ url: harness.url, era: "legacy" });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => caller?.callTool({ name: "add", arguments: { a: i, b: 1 } })));
    expect(results.map((r) => (r?.ok ? (r.value.structuredContent as { sum: number }).sum : -1))).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });
});
