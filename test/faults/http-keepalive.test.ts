/**
 * Keep-alive sockets the server closes while the caller is idle (the ECONNRESET the conformance
 * harness saw after a slow OAuth flow): a reused socket reset (RST) before any answer, or one that
 * sat idle and hung up, is retried once on a fresh connection; a hang-up on a socket reused at once
 * is not (the server may have read that request).
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const tools = { echo: { run: (args: { readonly [key: string]: unknown }) => ({ content: [], structuredContent: args }) } };
const servers: ScriptedHttpServer[] = [];
const callers: HttpCaller[] = [];
const closers: (() => Promise<void>)[] = [];
beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
  for (const close of closers.splice(0)) await close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A caller that made one call and then sat idle past the stale-socket threshold. */
async function idleCaller() {
  const server = await startScriptedHttpServer({ tools });
  servers.push(server);
  const caller = createHttpCaller({ name: "idle", url: server.url, era: "legacy", notificationStream: false });
  callers.push(caller);
  expect((await caller.callTool({ name: "echo", arguments: { n: 1 } })).ok).toBe(true);
  await sleep(1200);
  return { server, caller };
}

describe("keep-alive sockets closed by the server", () => {
  it("a reused socket that sat idle and is reset before any answer: the request is sent once more and succeeds", async () => {
    const { server, caller } = await idleCaller();
    server.next({ rpc: "tools/call" }, { destroy: true });
    const r = await caller.callTool({ name: "echo", arguments: { n: 2 } });
    expect(r.ok && r.value.structuredContent).toEqual({ n: 2 });
    expect(server.rpc("tools/call").filter((q) => q.body?.params?.arguments?.n === 2)).toHaveLength(2);
  });

  it("a reset twice in a row is not retried again: unavailable, retryable", async () => {
    const { server, caller } = await idleCaller();
    server.next({ rpc: "tools/call" }, { destroy: true });
    server.next({ rpc: "tools/call" }, { destroy: true });
    const r = await caller.callTool({ name: "echo", arguments: { n: 2 } });
    expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true } });
    expect(server.rpc("tools/call").filter((q) => q.body?.params?.arguments?.n === 2)).toHaveLength(2);
  });

  it("a reused socket reset (RST) right after the last answer: the request is sent once more and succeeds", async () => {
    const server = await startScriptedHttpServer({ tools });
    servers.push(server);
    const caller = createHttpCaller({ name: "rst", url: server.url, era: "legacy", notificationStream: false });
    callers.push(caller);
    expect((await caller.callTool({ name: "echo", arguments: { n: 1 } })).ok).toBe(true);
    server.next({ rpc: "tools/call" }, { reset: true });
    const r = await caller.callTool({ name: "echo", arguments: { n: 2 } });
    expect(r.ok && r.value.structuredContent).toEqual({ n: 2 });
    expect(server.rpc("tools/call").filter((q) => q.body?.params?.arguments?.n === 2)).toHaveLength(2);
  });

  it("a server's Keep-Alive hint is honoured: an idle socket is closed by the caller before the server's timeout", async () => {
    // A plain MCP-shaped JSON server whose keep-alive timeout is 2 s (hint `timeout=2`).
    const sockets = new Set<Socket>();
    let connections = 0;
    let closedByClient = 0;
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString("utf8");
      });
      req.on("end", () => {
        const msg = JSON.parse(body) as { id?: number; method: string };
        if (msg.id === undefined) return void res.writeHead(202).end();
        const result =
          msg.method === "initialize"
            ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "hint", version: "1" } }
            : { content: [{ type: "text", text: "ok" }] };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
      });
    });
    server.keepAliveTimeout = 2000;
    server.on("connection", (socket) => {
      connections++;
      sockets.add(socket);
      // 'end' is the client's FIN; a socket the server's own keep-alive timer destroys never sees one.
      socket.on("end", () => closedByClient++);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const caller = createHttpCaller({ name: "hint", url, era: "legacy", notificationStream: false });
    callers.push(caller);
    expect((await caller.callTool({ name: "t", arguments: {} })).ok).toBe(true);
    const before = connections;
    // Hint 2 s: the caller drops its idle socket after ~1 s, the server would after 2 s.
    for (let i = 0; i < 3000 && sockets.size > 0; i++) await sleep(10);
    expect(sockets.size).toBe(0);
    expect(closedByClient).toBe(before);
    expect((await caller.callTool({ name: "t", arguments: {} })).ok).toBe(true);
    expect(connections).toBe(before + 1);
  });
});
