/**
 * Issue 25 item 13, over real HTTP on 127.0.0.1: a POST that carries nothing acceptable gets an
 * HTTP 400 with the JSON-RPC error as its body (both eras), not a 202 that drops the error; a
 * request the client cancels with notifications/cancelled ends its own POST at once (SSE stream
 * finished, or 202 in JSON mode) instead of when the session ends; and one rule for thrown handler
 * errors: only an RpcHandlerError's message reaches the client, for every handler kind.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcHandlerError } from "../../packages/runtime/src/protocol.js";
import { createToolServer, type HttpServerHandle, serveHttp, type ToolServer } from "../../packages/runtime/src/server.js";
import { postModern } from "../support/modern-fetch.js";

const SECRET = "postgres://admin:hunter2@db.internal/prod";
const reported: string[] = [];
const aborted: string[] = [];
const started: string[] = [];
let server: ToolServer;
let auto: HttpServerHandle;
let json: HttpServerHandle;

/** Waits until `signal` aborts, recording `what`; never resolves otherwise. */
const untilAborted = (signal: AbortSignal, what: string) =>
  new Promise<never>((_resolve, reject) => {
    started.push(what);
    signal.addEventListener("abort", () => {
      aborted.push(what);
      reject(new Error("aborted"));
    });
  });

/** A plain Error carrying a secret, and the RpcHandlerError a handler chooses to send. */
const explode = (): never => {
  throw new Error(`cannot reach ${SECRET}`);
};
const refuse = (): never => {
  throw new RpcHandlerError(-32010, "chosen: quota exceeded");
};

/** Waits (bounded) until a handler of kind `what` has started, so a cancellation cannot come before its call. */
async function whenStarted(what: string, count: number): Promise<void> {
  for (let i = 0; i < 3000 && started.filter((s) => s === what).length < count; i++) await new Promise((r) => setTimeout(r, 10));
}

beforeAll(async () => {
  server = createToolServer({
    name: "answers",
    version: "1.0.0",
    onError: (error) => reported.push(error instanceof Error ? error.message : String(error)),
    tools: [
      { name: "block", inputSchema: { type: "object" }, handler: (_args, ctx) => untilAborted(ctx.signal, "tool") },
      {
        name: "explode",
        inputSchema: { type: "object" },
        handler: explode,
      },
      {
        name: "refuse",
        inputSchema: { type: "object" },
        handler: refuse,
      },
    ],
    prompts: [
      { name: "wait", get: (_args, ctx) => untilAborted(ctx.signal, "prompt") },
      {
        name: "explode",
        arguments: [{ name: "x" }],
        get: explode,
        complete: {
          x: explode,
        },
      },
      {
        name: "refuse",
        get: refuse,
      },
    ],
    resources: [
      {
        uri: "r://explode",
        name: "explode",
        read: explode,
      },
      {
        uri: "r://refuse",
        name: "refuse",
        read: refuse,
      },
    ],
    resourceTemplates: [
      {
        uriTemplate: "t://{id}",
        name: "t",
        read: explode,
      },
    ],
  });
  auto = await serveHttp(server);
  json = await serveHttp(server, { responseMode: "json" });
});

afterAll(async () => {
  await auto?.close();
  await json?.close();
});

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A legacy session over raw HTTP: its id, and a POST helper that carries it. */
async function legacySession(url: string, protocolVersion = "2025-11-25") {
  const init = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });
  const sessionId = init.headers.get("mcp-session-id") as string;
  await init.text();
  const post = (body: unknown, signal?: AbortSignal) =>
    fetch(url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { sessionId, post };
}

describe("a POST that carries no acceptable message is an HTTP error with the JSON-RPC error", () => {
  it.each([
    ["a message with an id but no method", { jsonrpc: "2.0", id: 5 }, 5],
    ["an object that is no JSON-RPC at all", { hello: "world" }, null],
    ["a request whose id is an object", { jsonrpc: "2.0", id: { x: 1 }, method: "ping" }, null],
    ["a bare number", 42, null],
  ])("legacy session: %s gets 400 and a -32600 error echoing the id it could read", async (_what, body, id) => {
    const { post } = await legacySession(auto.url);
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32600 } });
  });

  it("legacy session: an empty batch and a batch of invalid items get 400; a valid notification still gets 202", async () => {
    const { post } = await legacySession(auto.url, "2025-03-26");
    const empty = await post([]);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ id: null, error: { code: -32600, message: "Invalid Request: empty batch" } });
    const invalid = await post([{ jsonrpc: "2.0", id: 1 }, { nope: true }]);
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject([
      { id: 1, error: { code: -32600 } },
      { id: null, error: { code: -32600 } },
    ]);
    const notification = await post({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
    expect(notification.status).toBe(202);
    expect(await notification.text()).toBe("");
  });

  it("legacy session: a batch with a request and an invalid item answers both, in JSON mode and on SSE", async () => {
    for (const handle of [json, auto]) {
      const { post } = await legacySession(handle.url, "2025-03-26");
      const response = await post([
        { jsonrpc: "2.0", id: 7, method: "ping" },
        { jsonrpc: "2.0", id: 8 },
      ]);
      expect(response.status).toBe(200);
      const text = await response.text();
      const messages = response.headers.get("content-type")?.includes("event-stream")
        ? text
            .split("\n")
            .filter((l) => l.startsWith("data: {"))
            .map((l) => JSON.parse(l.slice(6)))
        : JSON.parse(text);
      expect(messages).toEqual(
        expect.arrayContaining([
          { jsonrpc: "2.0", id: 7, result: {} },
          expect.objectContaining({ id: 8, error: expect.objectContaining({ code: -32600 }) }),
        ]),
      );
    }
  });

  it("stateless 2026-07-28: a body with no method gets 400 and the -32600 error; a notification gets 202", async () => {
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    const response = await fetch(auto.url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-protocol-version": "2026-07-28" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, params: { _meta: meta } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32600 } });
    const notification = await fetch(auto.url, {
      method: "POST",
      headers: { ...HEADERS, "mcp-protocol-version": "2026-07-28" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: meta } }),
    });
    expect(notification.status).toBe(202);
  });
});

describe("a cancelled request ends its own POST (legacy era: notifications/cancelled)", () => {
  it("tools/call on SSE: the stream ends with no response once the client cancels", { timeout: 20_000 }, async () => {
    const { post } = await legacySession(auto.url);
    const call = await post({ jsonrpc: "2.0", id: 11, method: "tools/call", params: { name: "block", arguments: {} } });
    expect(call.headers.get("content-type")).toContain("text/event-stream");
    const cancel = await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 11, reason: "user" } });
    expect(cancel.status).toBe(202);
    // Before the fix this read waited until the session ended (30 minutes idle): the test timed out.
    const text = await call.text();
    expect(text).not.toContain('"id":11');
    expect(aborted).toContain("tool");
  });

  it("tools/call in JSON mode: the POST is answered 202 with no body once cancelled", { timeout: 20_000 }, async () => {
    const { post } = await legacySession(json.url);
    const before = started.filter((s) => s === "tool").length;
    const pending = post({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "block", arguments: {} } });
    // The call must be in flight before it is cancelled.
    await whenStarted("tool", before + 1);
    await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12 } });
    const response = await pending;
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });

  it("prompts/get is cancellable too: its handler's signal aborts and its POST ends", { timeout: 20_000 }, async () => {
    const { post } = await legacySession(auto.url);
    const pending = post({ jsonrpc: "2.0", id: 13, method: "prompts/get", params: { name: "wait" } });
    await whenStarted("prompt", 1);
    await post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 13 } });
    const response = await pending;
    expect(response.status).toBe(202);
    expect(aborted).toContain("prompt");
  });
});

describe("one rule for thrown handler errors: only an RpcHandlerError's message reaches the client", () => {
  it("legacy era through the official SDK client: every handler kind withholds a plain Error's message", async () => {
    const client = new Client({ name: "item-13", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(auto.url)));
    try {
      const tool = await client.callTool({ name: "explode", arguments: {} });
      expect(tool.isError).toBe(true);
      expect(JSON.stringify(tool)).toContain('Tool \\"explode\\" failed');
      const errors: { code: number; message: string }[] = [];
      for (const run of [
        () => client.getPrompt({ name: "explode" }),
        () => client.readResource({ uri: "r://explode" }),
        () => client.readResource({ uri: "t://7" }),
        () => client.complete({ ref: { type: "ref/prompt", name: "explode" }, argument: { name: "x", value: "" } }),
      ]) {
        const error = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(McpError);
        errors.push({ code: (error as McpError).code, message: (error as McpError).message });
      }
      expect(errors).toEqual(Array(4).fill({ code: -32603, message: "MCP error -32603: Internal error" }));
      expect(JSON.stringify([tool, errors])).not.toContain("hunter2");
      // The author still sees every one of them.
      expect(reported.filter((m) => m.includes("hunter2")).length).toBeGreaterThanOrEqual(5);
      // An RpcHandlerError is the documented way to send a chosen code and message, for every kind.
      for (const run of [
        () => client.callTool({ name: "refuse", arguments: {} }),
        () => client.getPrompt({ name: "refuse" }),
        () => client.readResource({ uri: "r://refuse" }),
      ]) {
        const error = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ code: -32010, message: "MCP error -32010: chosen: quota exceeded" });
      }
    } finally {
      await client.close();
    }
  });

  it("stateless 2026-07-28 over fetch: the same rule", async () => {
    const tool = await postModern(auto.url, "tools/call", { name: "explode", arguments: {} });
    expect(tool.body?.result).toMatchObject({ isError: true });
    const prompt = await postModern(auto.url, "prompts/get", { name: "explode" });
    const resource = await postModern(auto.url, "resources/read", { uri: "r://explode" });
    expect(prompt.body?.error).toEqual({ code: -32603, message: "Internal error" });
    expect(resource.body?.error).toEqual({ code: -32603, message: "Internal error" });
    expect(JSON.stringify([tool, prompt, resource])).not.toContain("hunter2");
    const chosen = await postModern(auto.url, "resources/read", { uri: "r://refuse" });
    expect(chosen.body?.error).toEqual({ code: -32010, message: "chosen: quota exceeded" });
  });
});
