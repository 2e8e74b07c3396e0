/**
 * Security over HTTP: cross-origin redirects never carry credentials, a legacy SSE `endpoint` on
 * another origin is refused, and configured secret header values never show up in failures,
 * rendered failures, warnings or thrown errors, even when a hostile server reflects them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ToolFailure } from "@toolwright/runtime";
import { clearHttpEraCache, createHttpCaller, type HttpCaller, type HttpCallerOptions } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renderFailure } from "../../packages/runtime/src/planner/render.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const TOKEN = "tw-sec-token-4f1c9a2b7e";
const KEY = "tw-sec-apikey-90d8e7f6";
const env = { TW_TOKEN: TOKEN, TW_KEY: KEY };
const secretHeaders = { Authorization: "Bearer ${TW_TOKEN}", "X-Api-Key": "${TW_KEY}", Cookie: "sid=${TW_TOKEN}" };

let leaks: LeakCheck;
const servers: ScriptedHttpServer[] = [];
const callers: HttpCaller[] = [];
const raw: http.Server[] = [];

beforeAll(() => {
  leaks = createLeakCheck();
});
beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
  for (const s of raw.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

async function scripted() {
  const server = await startScriptedHttpServer({
    tools: { echo: { run: (args) => ({ content: [{ type: "text", text: "ok" }], structuredContent: args }) } },
  });
  servers.push(server);
  return server;
}

function caller(options: HttpCallerOptions, warnings: string[] = []) {
  const c = createHttpCaller({
    era: "legacy",
    connectTimeoutMs: 30_000,
    timeoutMs: 30_000,
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  callers.push(c);
  return c;
}

/** A raw server on 127.0.0.1 (another origin: another port). */
async function rawServer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  raw.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("redirects", () => {
  it("by default refuses a cross-origin redirect: the other origin gets no request at all", async () => {
    const b = await scripted();
    const a = await scripted();
    a.next({ rpc: "initialize" }, { status: 307, headers: { location: b.url } });
    const r = await caller({ url: a.url, headers: secretHeaders, env }).callTool({ name: "echo", arguments: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.message).toMatch(/another origin/);
    expect(b.requests).toEqual([]);
  });

  it("under `follow`, a cross-origin redirect drops Authorization and Cookie; a same-origin one keeps them", async () => {
    const b = await scripted();
    const a = await scripted();
    a.next({ rpc: "initialize" }, { status: 307, headers: { location: `${a.url}?same-origin=1` } });
    a.next({ rpc: "initialize" }, { status: 307, headers: { location: b.url } });
    const c = caller({ url: a.url, headers: secretHeaders, env, redirect: "follow" });
    await c.callTool({ name: "echo", arguments: {} });
    const [first, sameOrigin] = a.requests;
    expect(first?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sameOrigin?.url).toContain("same-origin=1");
    expect(sameOrigin?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(b.requests.length).toBeGreaterThan(0);
    for (const req of b.requests) {
      expect(req.headers.authorization).toBeUndefined();
      expect(req.headers.cookie).toBeUndefined();
      expect(JSON.stringify(req.headers)).not.toContain(TOKEN);
      // A configured custom secret header (X-Api-Key) is a credential too.
      expect(JSON.stringify(req.headers)).not.toContain(KEY);
    }
  });

  it("a legacy SSE endpoint on another origin is refused and never contacted", async () => {
    let otherHits = 0;
    const other = await rawServer((_req, res) => {
      otherHits++;
      res.writeHead(202).end();
    });
    const legacy = await rawServer((req, res) => {
      if (req.method === "POST") return void res.writeHead(405).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`event: endpoint\ndata: ${other}/messages?sessionId=1\n\n`);
    });
    const r = await caller({ url: `${legacy}/sse`, era: "auto", headers: secretHeaders, env }).callTool({ name: "echo", arguments: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.message).toMatch(/another origin/);
    expect(otherHits).toBe(0);
  });
});

describe("configured secret header values never leak", () => {
  function surfaces(failure: ToolFailure, warnings: readonly string[]): string[] {
    return [JSON.stringify(failure), renderFailure(failure), ...warnings];
  }

  it.each([
    [
      "a JSON-RPC error that reflects the credential",
      {
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32000, message: `invalid credential ${TOKEN} for key ${KEY}`, data: { got: KEY, header: `Bearer ${TOKEN}` } },
        },
      },
    ],
    ["a 500 whose body reflects the credential", { status: 500, body: `upstream said: Authorization: Bearer ${TOKEN}; x-api-key=${KEY}` }],
    [
      "a 401 whose challenge reflects the credential",
      { status: 401, headers: { "www-authenticate": `Bearer error="invalid_token", error_description="${KEY} revoked"` }, body: TOKEN },
    ],
    ["a 429 with a reflecting body", { status: 429, headers: { "retry-after": "1" }, body: `${TOKEN} ${KEY}` }],
  ] as const)("%s", async (_name, directive) => {
    const server = await scripted();
    const warnings: string[] = [];
    const c = caller({ url: server.url, headers: secretHeaders, env }, warnings);
    await c.connect();
    server.next({ rpc: "tools/call" }, directive);
    const r = await c.callTool({ name: "echo", arguments: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const text of surfaces(r.failure, warnings)) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(KEY);
    }
  });

  it("a tools/call answer on SSE whose data is not JSON and reflects the key: warnings stay clean", async () => {
    const warnings: string[] = [];
    const url = await rawServer((req, res) => {
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
        res.end(`data: not json ${KEY} ${TOKEN}\n\n`);
      });
    });
    const r = await caller({ url, headers: secretHeaders, env }, warnings).callTool({ name: "echo", arguments: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) for (const text of surfaces(r.failure, warnings)) expect(text).not.toContain(KEY);
  });

  it("connect() outcomes are redacted too: an initialize error that reflects the key", async () => {
    const url = await rawServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        const msg = JSON.parse(body || "{}");
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32000, message: `unknown key ${KEY}`, data: { token: TOKEN } } }),
        );
      });
    });
    const outcome = await caller({ url, headers: secretHeaders, env }).connect();
    expect(outcome.ok).toBe(false);
    expect(JSON.stringify(outcome)).toContain("unknown key");
    expect(JSON.stringify(outcome)).not.toContain(KEY);
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
  });

  it("thrown construction errors name the header, never its value", () => {
    for (const headers of [
      { Authorization: `Bearer ${TOKEN}\r\nX-Injected: 1` },
      { "Bad Header": TOKEN },
      { Authorization: ["Bearer $", "{TW_UNSET_VAR}"].join("") },
    ]) {
      let message = "";
      try {
        createHttpCaller({ url: "http://127.0.0.1:1/mcp", headers, env });
      } catch (error) {
        message = String(error);
      }
      expect(message).not.toBe("");
      expect(message).not.toContain(TOKEN);
    }
  });
});
