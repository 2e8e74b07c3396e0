/**
 * Fault matrix for the deprecated HTTP+SSE transport (2024-11-05), against a raw node:http server:
 * no `endpoint` event, the event stream dropped mid-call, a failing POST endpoint, garbage events.
 * Each call resolves as a value; a dropped stream fails in-flight calls and the next call reconnects.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";

/** What the server does wrong. */
interface Script {
  /** Never send the `endpoint` event. */
  noEndpoint?: boolean;
  /** Tool name → behaviour on tools/call. */
  onCall?: (name: string, answer: (text: string) => void, stream: http.ServerResponse) => void;
  /** Status for POSTs of tools/call (instead of 202 + answer on the stream). */
  postStatus?: number;
}

let leaks: LeakCheck;
let server: http.Server | undefined;
let caller: HttpCaller | undefined;
let streams = 0;

beforeAll(() => {
  leaks = createLeakCheck();
});
beforeEach(() => {
  clearHttpEraCache();
  streams = 0;
});
afterEach(async () => {
  await caller?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  }
  caller = undefined;
  server = undefined;
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

async function start(script: Script, connectTimeoutMs = 30_000): Promise<{ caller: HttpCaller; warnings: string[] }> {
  let stream: http.ServerResponse | undefined;
  const send = (value: unknown) => stream?.write(`event: message\ndata: ${JSON.stringify(value)}\n\n`);
  server = http.createServer((req, res) => {
    if (req.method === "GET") {
      streams++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      stream = res;
      if (!script.noEndpoint) res.write(`event: endpoint\ndata: /messages?session=${streams}\n\n`);
      return;
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    if (!req.url?.startsWith("/messages")) return void res.writeHead(405).end(); // Streamable HTTP probe: not here
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const msg = JSON.parse(body || "{}");
      if (msg.method === "tools/call" && script.postStatus) return void res.writeHead(script.postStatus).end("nope");
      res.writeHead(202).end();
      if (msg.id === undefined) return;
      if (msg.method === "initialize") {
        send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2024-11-05", capabilities: { tools: {} } } });
        return;
      }
      const answer = (text: string) => send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text }] } });
      if (msg.method === "tools/call" && script.onCall && stream) script.onCall(msg.params.name, answer, stream);
      else answer("ok");
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const warnings: string[] = [];
  caller = createHttpCaller({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`,
    era: "auto",
    connectTimeoutMs,
    timeoutMs: 30_000,
    onWarning: (w) => warnings.push(w),
  });
  return { caller, warnings };
}

const text = (r: Awaited<ReturnType<HttpCaller["callTool"]>>) =>
  r.ok ? r.value.content.map((b) => (b.type === "text" ? b.text : "")).join("") : r.failure.kind;

it("falls back to legacy SSE and works (the baseline the faults below break)", async () => {
  const { caller } = await start({});
  expect(text(await caller.callTool({ name: "t", arguments: {} }))).toBe("ok");
  expect(caller.transport).toBe("legacy-sse");
});

it("no endpoint event: connect timeout → unavailable", async () => {
  const { caller } = await start({ noEndpoint: true }, 300);
  const r = await caller.callTool({ name: "t", arguments: {} });
  expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true } });
});

it("the event stream drops mid-call: the in-flight call fails as unavailable, the next call reconnects", async () => {
  const { caller } = await start({
    onCall: (name, answer, stream) => {
      if (name === "drop") stream.destroy();
      else answer("ok");
    },
  });
  expect(text(await caller.callTool({ name: "t", arguments: {} }))).toBe("ok");
  const r = await caller.callTool({ name: "drop", arguments: {} });
  expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true } });
  expect(text(await caller.callTool({ name: "t", arguments: {} }))).toBe("ok");
  expect(streams).toBe(2);
});

it("the POST endpoint answers 500: unavailable, and the session goes on", async () => {
  const { caller } = await start({ postStatus: 500 });
  const r = await caller.callTool({ name: "t", arguments: {} });
  expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true, httpStatus: 500 } });
});

it("garbage events and stray responses on the stream are reported and skipped", async () => {
  const { caller, warnings } = await start({
    onCall: (_name, answer, stream) => {
      stream.write("event: message\ndata: not json\n\n");
      stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 424242, result: {} })}\n\n`);
      stream.write("event: unknown-kind\ndata: {}\n\n");
      answer("after garbage");
    },
  });
  expect(text(await caller.callTool({ name: "t", arguments: {} }))).toBe("after garbage");
  expect(warnings.length).toBeGreaterThanOrEqual(2);
});
