// Unit tests of the transport-agnostic session: every message in, every message out, no sockets.
import { describe, expect, it } from "vitest";
import type { RpcId, RpcMessage } from "../../packages/runtime/src/protocol/json-rpc.js";
import { createToolServer, type ServerSession } from "../../packages/runtime/src/server.js";
import { createDemoServer } from "./fixtures/demo-server.js";

interface Sent {
  readonly message: RpcMessage & { [key: string]: unknown };
  readonly related: RpcId | undefined;
}

function open(server = createDemoServer(), capabilities: object = {}) {
  const sent: Sent[] = [];
  const waiters: (() => void)[] = [];
  const session: ServerSession = server.openSession({
    send: (message, related) => {
      sent.push({ message: message as Sent["message"], related });
      for (const w of waiters.splice(0)) w();
    },
  });
  const answer = async (id: RpcId) => {
    for (;;) {
      const hit = sent.find((s) => "id" in s.message && s.message.id === id && !("method" in s.message));
      if (hit) return hit.message as { result?: { [key: string]: unknown }; error?: { code: number; message: string } };
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const request = (id: RpcId, method: string, params?: object) => {
    session.receive({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    return answer(id);
  };
  return {
    session,
    sent,
    request,
    answer,
    init: () => request(0, "initialize", { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } }),
  };
}

describe("initialize", () => {
  it.each([
    ["2025-11-25", "2025-11-25"],
    ["2025-06-18", "2025-06-18"],
    ["2025-03-26", "2025-03-26"],
    ["2024-11-05", "2024-11-05"],
    ["2099-01-01", "2025-11-25"],
  ])("client %s gets %s", async (asked, got) => {
    const { request } = open();
    const r = await request(1, "initialize", { protocolVersion: asked, capabilities: {}, clientInfo: { name: "t", version: "1" } });
    expect(r.result).toEqual({
      protocolVersion: got,
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: "demo-server", version: "1.2.3", title: "Demo" },
      instructions: "Use add to add numbers.",
    });
  });

  it("a server pinned to 2025-06-18 never answers a newer version, and refuses a second initialize", async () => {
    const { request } = open(createDemoServer({ protocolVersion: "2025-06-18" }));
    const r = await request(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} });
    expect(r.result?.protocolVersion).toBe("2025-06-18");
    expect((await request(2, "initialize", { protocolVersion: "2025-06-18" })).error?.code).toBe(-32600);
  });
});

describe("tools/list", () => {
  it("pages with an opaque cursor and rejects a bad one with -32602", async () => {
    const { request, init } = open(createDemoServer({ pageSize: 4 }));
    await init();
    const names: string[] = [];
    let cursor: unknown;
    let pages = 0;
    do {
      const r = await request(`p${pages}`, "tools/list", cursor === undefined ? {} : { cursor });
      names.push(...((r.result?.tools ?? []) as { name: string }[]).map((t) => t.name));
      cursor = r.result?.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(names).toEqual(["add", "echo", "fail", "slow", "observations", "log", "ask", "resumable", "no_structured"]);
    expect((await request("bad", "tools/list", { cursor: "nope" })).error).toMatchObject({ code: -32602, message: "Invalid cursor" });
  });

  it("lists metadata as given (schemas untouched)", async () => {
    const { request, init } = open();
    await init();
    const add = (((await request(1, "tools/list")).result?.tools ?? []) as { [k: string]: unknown }[])[0];
    expect(add).toEqual({
      name: "add",
      title: "Add",
      description: "Adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
        additionalProperties: false,
      },
      outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
      annotations: { readOnlyHint: true, idempotentHint: true },
    });
  });
});

describe("tools/call", () => {
  it("structured results get a text copy", async () => {
    const { request, init } = open();
    await init();
    expect((await request(1, "tools/call", { name: "add", arguments: { a: 2, b: 3 } })).result).toEqual({
      structuredContent: { sum: 5 },
      content: [{ type: "text", text: '{"sum":5}' }],
    });
  });

  it("invalid arguments are an isError result with field issues, not a JSON-RPC error", async () => {
    const { request, init } = open();
    await init();
    const r = await request(1, "tools/call", { name: "add", arguments: { a: 1, c: 2 } });
    expect(r.result?.isError).toBe(true);
    expect(r.result?._meta).toEqual({
      "io.toolwright/issues": [
        { field: "b", constraint: "missing_field" },
        { field: "c", constraint: "unknown_field", actual: 2 },
      ],
    });
    expect(JSON.stringify(r.result?.content)).toContain("b: missing_field");
    const noDecoder = await request(2, "tools/call", { name: "echo", arguments: {} });
    expect(noDecoder.result?._meta).toEqual({ "io.toolwright/issues": [{ field: "message", constraint: "missing_field" }] });
    const notObject = await request(3, "tools/call", { name: "echo", arguments: [1] });
    expect(notObject.result?.isError).toBe(true);
  });

  it("a throwing handler is an isError result without its message (withheld like every handler's); unknown tools are -32602", async () => {
    const { request, init } = open();
    await init();
    const thrown = (await request(1, "tools/call", { name: "fail", arguments: {} })).result;
    expect(thrown).toEqual({
      content: [{ type: "text", text: 'Tool "fail" failed with an internal error (the server\'s log has the details).' }],
      isError: true,
    });
    expect(JSON.stringify(thrown)).not.toContain("on fire");
    expect((await request(2, "tools/call", { name: "nope", arguments: {} })).error).toEqual({
      code: -32602,
      message: "Unknown tool: nope",
    });
    expect((await request(3, "tools/call", { name: "no_structured" })).result?.isError).toBe(true);
  });

  it("progress goes out related to its call, only with a progress token", async () => {
    const { request, init, sent } = open();
    await init();
    await request(7, "tools/call", { name: "slow", arguments: { steps: 3 }, _meta: { progressToken: "tok" } });
    const progress = sent.filter((s) => s.message.method === "notifications/progress");
    expect(progress.map((s) => [s.related, (s.message.params as { progress: number }).progress])).toEqual([
      [7, 1],
      [7, 2],
      [7, 3],
    ]);
    await request(8, "tools/call", { name: "slow", arguments: { steps: 2 } });
    expect(sent.filter((s) => s.message.method === "notifications/progress")).toHaveLength(3);
  });

  it("notifications/cancelled aborts the handler and suppresses the answer", async () => {
    const { session, request, init, sent } = open();
    await init();
    session.receive({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "slow", arguments: { steps: 50, label: "cancel-me" } },
    });
    session.receive({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9, reason: "user" } });
    await new Promise((r) => setTimeout(r, 0));
    const seen = await request(10, "tools/call", { name: "observations", arguments: {} });
    expect((seen.result?.structuredContent as { aborted: string[] } | undefined)?.aborted).toContain("cancel-me");
    await request(11, "ping");
    expect(sent.some((s) => "id" in s.message && s.message.id === 9)).toBe(false);
  });

  it("logging/setLevel filters log notifications", async () => {
    const { request, init, sent } = open();
    await init();
    await request(1, "tools/call", { name: "log" });
    expect(sent.filter((s) => s.message.method === "notifications/message")).toHaveLength(3);
    expect((await request(2, "logging/setLevel", { level: "warning" })).result).toEqual({});
    await request(3, "tools/call", { name: "log" });
    const levels = sent
      .filter((s) => s.message.method === "notifications/message")
      .map((s) => (s.message.params as { level: string }).level);
    expect(levels).toEqual(["debug", "info", "error", "error"]);
    expect((await request(4, "logging/setLevel", { level: "loud" })).error?.code).toBe(-32602);
  });

  it("server-to-client requests travel with their call and resolve with the client's answer", async () => {
    const { session, answer, init, sent } = open(createDemoServer(), { elicitation: {} });
    await init();
    session.receive({ jsonrpc: "2.0", id: 20, method: "tools/call", params: { name: "ask", arguments: { message: "Who?" } } });
    await new Promise((r) => setTimeout(r, 0));
    const ask = sent.find((s) => s.message.method === "elicitation/create");
    expect(ask?.related).toBe(20);
    session.receive({
      jsonrpc: "2.0",
      id: (ask?.message as { id: RpcId } | undefined)?.id,
      result: { action: "accept", content: { name: "Ada" } },
    });
    expect((await answer(20)).result).toEqual({ content: [{ type: "text", text: "accept: Ada" }] });
  });

  it("a server-to-client request the client cannot serve fails the call cleanly", async () => {
    const { request, init } = open();
    await init();
    const r = await request(1, "tools/call", { name: "ask", arguments: { message: "Who?" } });
    expect(r.error?.code).toBe(-32601);
    expect(r.error?.message).toContain('"elicitation" capability');
  });
});

describe("protocol edges", () => {
  it("unknown methods are -32601, invalid messages -32600, ping is {}", async () => {
    const { session, request, sent } = open();
    expect((await request(1, "ping")).result).toEqual({});
    expect((await request(2, "resources/list")).error?.code).toBe(-32601);
    session.receive({ jsonrpc: "2.0", id: 3, result: 1, error: "x" });
    session.receive(42);
    expect(sent.filter((s) => s.message.id === null || s.message.id === 3).map((s) => (s.message.error as { code: number }).code)).toEqual([
      -32600, -32600,
    ]);
  });

  it("a 2025-03-26 batch is answered message by message; a closed session is silent", async () => {
    const { session, sent } = open();
    session.receive([
      { jsonrpc: "2.0", id: "a", method: "ping" },
      { jsonrpc: "2.0", id: "b", method: "ping" },
    ]);
    await new Promise((r) => setTimeout(r, 0));
    expect(sent.map((s) => s.message.id)).toEqual(["a", "b"]);
    session.close();
    session.receive({ jsonrpc: "2.0", id: "c", method: "ping" });
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toHaveLength(2);
  });

  it("notifyToolListChanged reaches initialized sessions only", async () => {
    const server = createDemoServer();
    const a = open(server);
    const b = open(server);
    await a.init();
    server.notifyToolListChanged();
    expect(a.sent.some((x) => x.message.method === "notifications/tools/list_changed" && x.related === undefined)).toBe(true);
    expect(b.sent).toEqual([]);
    a.session.close();
    const before = a.sent.length;
    server.notifyToolListChanged();
    expect(a.sent).toHaveLength(before);
  });

  it("createToolServer rejects bad tool lists with clear errors", () => {
    const handler = () => ({ content: [] });
    const t = { name: "x", inputSchema: { type: "object" }, handler };
    expect(() => createToolServer({ name: "s", version: "1", tools: [t, t] })).toThrow(/tool "x" is declared twice/);
    expect(() => createToolServer({ name: "s", version: "1", tools: [{ ...t, inputSchema: { type: "string" } }] })).toThrow(
      /inputSchema must have type "object"/,
    );
    expect(() => createToolServer({ name: "s", version: "1", tools: [], protocolVersion: "2026-07-28" })).toThrow(
      /protocolVersion 2026-07-28 is not supported/,
    );
  });
});

describe("stateless 2026-07-28 requests on a session (stdio)", () => {
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

  it("serves requests that carry the protocol in _meta, without initialize", async () => {
    const { request } = open();
    const discover = await request(1, "server/discover", { _meta: meta });
    expect(discover.result).toMatchObject({ supportedVersions: ["2026-07-28"], resultType: "complete" });
    const call = await request(2, "tools/call", { name: "add", arguments: { a: 1, b: 1 }, _meta: meta });
    expect(call.result).toMatchObject({ structuredContent: { sum: 2 }, resultType: "complete" });
  });

  it("removed methods are -32601, unknown versions -32022, a missing capability -32021", async () => {
    const { request } = open();
    expect((await request(1, "ping", { _meta: meta })).error?.code).toBe(-32601);
    const old = { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    expect((await request(2, "tools/list", { _meta: old })).error?.code).toBe(-32022);
    const ask = await request(3, "tools/call", { name: "ask", arguments: { message: "?" }, _meta: meta });
    expect(ask.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it("after initialize, the session stays legacy even if _meta names a version", async () => {
    const { request, init } = open();
    await init();
    const list = await request(1, "tools/list", { _meta: meta });
    expect(list.result?.resultType).toBeUndefined();
    expect((await request(2, "ping", { _meta: meta })).result).toEqual({});
  });
});

describe("input_required rounds (2026-07-28)", () => {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };

  it("a handler that asks for input answers input_required, then completes when replayed with the answer", async () => {
    const { request } = open();
    const first = await request(1, "tools/call", { name: "ask", arguments: { message: "Name?" }, _meta: meta });
    expect(first.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { "request-1": { method: "elicitation/create", params: { message: "Name?" } } },
    });
    const state = first.result?.requestState as string;
    expect(typeof state).toBe("string");
    const second = await request(2, "tools/call", {
      name: "ask",
      arguments: { message: "Name?" },
      inputResponses: { "request-1": { action: "accept", content: { name: "Ada" } }, extra: { ignored: true } },
      requestState: state,
      _meta: meta,
    });
    expect(second.result).toEqual({ content: [{ type: "text", text: "accept: Ada" }], resultType: "complete" });
  });

  it("an altered requestState, or one replayed with other arguments, is -32602", async () => {
    const { request } = open();
    const first = await request(1, "tools/call", { name: "ask", arguments: { message: "Name?" }, _meta: meta });
    const state = first.result?.requestState as string;
    const answer = { "request-1": { action: "accept", content: { name: "Eve" } } };
    const tampered = await request(2, "tools/call", {
      name: "ask",
      arguments: { message: "Name?" },
      inputResponses: answer,
      requestState: `${state}x`,
      _meta: meta,
    });
    expect(tampered.error?.code).toBe(-32602);
    const otherArgs = await request(3, "tools/call", {
      name: "ask",
      arguments: { message: "Other?" },
      inputResponses: answer,
      requestState: state,
      _meta: meta,
    });
    expect(otherArgs.error?.code).toBe(-32602);
    const badShape = await request(4, "tools/call", { name: "ask", arguments: { message: "Name?" }, inputResponses: ["no"], _meta: meta });
    expect(badShape.error?.code).toBe(-32602);
  });
});
