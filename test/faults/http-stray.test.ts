/**
 * Stray traffic over Streamable HTTP, from a raw node:http server that writes exactly what the
 * test says: responses for unknown ids, duplicate responses, non-JSON SSE data, and a
 * server-to-client request for an unknown method, which the caller must answer with -32601.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: unknown; result?: unknown; error?: unknown };

/** Writes the SSE answer for one tools/call; returns nothing, or waits for a client POST. */
type Script = (
  id: string | number,
  write: (value: unknown | string) => void,
  waitForClient: (id: string) => Promise<Message>,
) => Promise<void>;

let leaks: LeakCheck;
let server: http.Server | undefined;
let caller: HttpCaller | undefined;
const posted: Message[] = [];

beforeAll(() => {
  leaks = createLeakCheck();
});
beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  await caller?.close();
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  }
  caller = undefined;
  server = undefined;
  posted.length = 0;
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

async function start(script: Script): Promise<{ caller: HttpCaller; warnings: string[] }> {
  const waiting = new Map<string, (m: Message) => void>();
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const msg = JSON.parse(body) as Message;
      posted.push(msg);
      if (msg.method === undefined) {
        waiting.get(String(msg.id))?.(msg);
        return void res.writeHead(202).end();
      }
      if (msg.id === undefined) return void res.writeHead(202).end();
      if (msg.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
        return void res.end(
          JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} } } }),
        );
      }
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s1" });
      const write = (value: unknown) => res.write(`data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`);
      const waitForClient = (id: string) => new Promise<Message>((resolve) => waiting.set(id, resolve));
      void script(msg.id, write, waitForClient).then(() => res.end());
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const warnings: string[] = [];
  caller = createHttpCaller({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    era: "legacy",
    timeoutMs: 30_000,
    onWarning: (w) => warnings.push(w),
  });
  return { caller, warnings };
}

const answer = (id: string | number, text: string) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
const textOf = (r: Awaited<ReturnType<HttpCaller["callTool"]>>) =>
  r.ok ? r.value.content.map((b) => (b.type === "text" ? b.text : "")).join("") : `failed: ${r.failure.kind}`;

it("responses for unknown ids are ignored and reported; the call gets its own answer", async () => {
  const { caller, warnings } = await start(async (id, write) => {
    write({ jsonrpc: "2.0", id: 987654, result: { content: [{ type: "text", text: "stray" }] } });
    write({ jsonrpc: "2.0", id: "nobody", error: { code: -32603, message: "stray error" } });
    write(answer(id, "mine"));
  });
  expect(textOf(await caller.callTool({ name: "t", arguments: {} }))).toBe("mine");
  expect(warnings.filter((w) => /unknown id/.test(w))).toHaveLength(2);
});

it("a duplicate response resolves the call once with the first answer; the next call gets its own", async () => {
  const { caller, warnings } = await start(async (id, write) => {
    write(answer(id, `first for ${id}`));
    write(answer(id, `second for ${id}`));
  });
  const one = await caller.callTool({ name: "t", arguments: {} });
  const two = await caller.callTool({ name: "t", arguments: {} });
  expect(textOf(one)).toMatch(/^first for /);
  expect(textOf(two)).toMatch(/^first for /);
  expect(textOf(one)).not.toBe(textOf(two));
  expect(warnings.filter((w) => /unknown id/.test(w))).toHaveLength(2);
});

it("non-JSON SSE data is reported and skipped; the answer after it is delivered", async () => {
  const { caller, warnings } = await start(async (id, write) => {
    write("this is not json");
    write('{"jsonrpc":"2.0","id":');
    write(answer(id, "after garbage"));
  });
  expect(textOf(await caller.callTool({ name: "t", arguments: {} }))).toBe("after garbage");
  expect(warnings.length).toBeGreaterThanOrEqual(2);
});

it("a server-to-client request for an unknown method is answered with -32601", async () => {
  const { caller } = await start(async (id, write, waitForClient) => {
    write({ jsonrpc: "2.0", id: "srv-1", method: "toolwright/no-such-method", params: {} });
    const reply = await waitForClient("srv-1");
    write(answer(id, JSON.stringify(reply.error ?? reply.result)));
  });
  const r = await caller.callTool({ name: "t", arguments: {} });
  expect(JSON.parse(textOf(r))).toMatchObject({ code: -32601 });
  expect(posted.find((m) => m.id === "srv-1" && m.method === undefined)).toMatchObject({ jsonrpc: "2.0", error: { code: -32601 } });
});
