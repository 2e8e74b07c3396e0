/**
 * The in-memory callers go through the real protocol: `createInMemoryCaller` serves its handlers
 * with the real tool server (handshake, unknown tools, errors and cancellation are the server's),
 * and `createHostedCaller` speaks to any `createToolServer`, in either era, surface included.
 */
import { describe, expect, it } from "vitest";
import { createInMemoryCaller } from "../index.js";
import type { RpcMessage } from "../protocol/json-rpc.js";
import { createToolServer } from "../server/tool-server.js";
import type { ToolServerOptions } from "../server/types.js";
import type { MessageHost } from "../transport/in-memory.js";
import { createHostedCaller } from "./in-memory-caller.js";

/** A host that records every message each way, to show what crossed the transport. */
function recorded(options: ToolServerOptions) {
  const server = createToolServer(options);
  const wire: { readonly dir: "in" | "out"; readonly message: RpcMessage }[] = [];
  let closed = 0;
  const host: MessageHost = {
    openSession(session) {
      const inner = server.openSession({
        send: (message, related) => {
          wire.push({ dir: "out", message });
          return session.send(message, related);
        },
      });
      return {
        receive(value) {
          wire.push({ dir: "in", message: value as RpcMessage });
          inner.receive(value);
        },
        close: () => {
          closed++;
          inner.close();
        },
      };
    },
  };
  return {
    host,
    wire,
    closed: () => closed,
    methods: () => wire.filter((w) => w.dir === "in").map((w) => (w.message as { method?: string }).method),
  };
}

describe("createInMemoryCaller", () => {
  it("calls a handler through the real server session and records the request", async () => {
    const caller = createInMemoryCaller("mem", {
      add: (args) => ({ content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }] }),
    });
    const r = await caller.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(r).toEqual({ ok: true, value: { content: [{ type: "text", text: "5" }] } });
    expect(caller.calls).toEqual([{ name: "add", arguments: { a: 2, b: 3 } }]);
    // The initialize handshake ran: the server named itself after the caller's server.
    expect(caller.handshake).toMatchObject({ serverInfo: { name: "mem" }, capabilities: { tools: {} } });
    expect(await caller.listTools()).toEqual({ ok: true, value: [{ name: "add", inputSchema: { type: "object" } }] });
    await caller.close();
  });

  it("an unknown tool gets the tool server's own -32602 answer, read as a replan", async () => {
    const caller = createInMemoryCaller("mem", {});
    const r = await caller.callTool({ name: "missing", arguments: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure).toMatchObject({ kind: "invalid_call", rpc: { code: -32602 }, server: "mem", tool: "missing" });
      expect(r.failure.recovery.action).toBe("replan");
      expect(r.failure.message).toContain("Unknown tool: missing");
    }
    expect(caller.calls).toHaveLength(1);
  });

  it("a handler's throw is the server's JSON-RPC -32603; a returned isError stays a result", async () => {
    const caller = createInMemoryCaller("mem", {
      boom: () => {
        throw new Error("disk on fire");
      },
      refuse: () => ({ content: [{ type: "text", text: "no" }], isError: true }),
    });
    const boom = await caller.callTool({ name: "boom", arguments: {} });
    expect(boom.ok).toBe(false);
    if (!boom.ok)
      expect(boom.failure).toMatchObject({ kind: "internal", rpc: { code: -32603 }, message: expect.stringContaining("disk on fire") });
    expect(await caller.callTool({ name: "refuse", arguments: {} })).toEqual({
      ok: true,
      value: { content: [{ type: "text", text: "no" }], isError: true },
    });
  });

  it("aborting a call cancels the handler on the server side (notifications/cancelled)", async () => {
    let seen: AbortSignal | undefined;
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const caller = createInMemoryCaller("mem", {
      wait: (_args, context) =>
        new Promise((resolve) => {
          seen = context.signal;
          started();
          context.signal?.addEventListener("abort", () => resolve({ content: [] }));
        }),
    });
    const controller = new AbortController();
    const pending = caller.callTool({ name: "wait", arguments: {} }, { signal: controller.signal });
    await running;
    controller.abort();
    const r = await pending;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("canceled");
    await expect.poll(() => seen?.aborted).toBe(true);
  });
});

describe("createHostedCaller over createToolServer", () => {
  const options: ToolServerOptions = {
    name: "hosted",
    version: "2.0.0",
    tools: [
      {
        name: "weather",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        outputSchema: { type: "object", properties: { c: { type: "number" } } },
        handler: (args) => ({ structuredContent: { c: (args as { city: string }).city.length } }),
      },
    ],
    prompts: [
      {
        name: "greet",
        arguments: [{ name: "who", required: true }],
        get: (args) => ({ messages: [{ role: "user", content: { type: "text", text: `hello ${args.who}` } }] }),
      },
    ],
  };

  it("legacy era: initialize, tools/call with structured content, the server's own argument check", async () => {
    const { host, methods } = recorded(options);
    const caller = createHostedCaller({ name: "hosted", host });
    const r = await caller.callTool({ name: "weather", arguments: { city: "Oslo" } });
    expect(r).toMatchObject({ ok: true, value: { structuredContent: { c: 4 } } });
    const missing = await caller.callTool({ name: "weather", arguments: {} });
    expect(missing).toMatchObject({ ok: true, value: { isError: true } });
    expect(methods()).toEqual(["initialize", "notifications/initialized", "tools/call", "tools/call"]);
    await caller.close();
  });

  it("2026-07-28 era: server/discover, then stateless requests; the surface works over it", async () => {
    const { host, methods } = recorded(options);
    const caller = createHostedCaller({ name: "hosted", host, era: "2026-07-28" });
    expect((await caller.callTool({ name: "weather", arguments: { city: "Rome" } })).ok).toBe(true);
    const prompt = await caller.getPrompt("greet", { who: "Ada" });
    expect(prompt.ok).toBe(true);
    if (prompt.ok) expect(JSON.stringify(prompt.value.messages)).toContain("hello Ada");
    expect(caller.handshake?.serverInfo?.name).toBe("hosted");
    expect(methods()).toEqual(["server/discover", "tools/call", "prompts/get"]);
    await caller.close();
  });

  it("close() ends the server session; using the caller after close() throws", async () => {
    const { host, closed } = recorded(options);
    const caller = createHostedCaller({ name: "hosted", host });
    expect((await caller.ping()).ok).toBe(true);
    expect(closed()).toBe(0);
    await caller.close();
    expect(closed()).toBe(1);
    await expect(caller.ping()).rejects.toThrow(/closed/);
  });
});

describe("a host that hangs up", () => {
  it("fails the call in flight as unavailable / retry, and the next call opens a new session", async () => {
    const server = createToolServer({
      name: "h",
      version: "1",
      tools: [{ name: "t", inputSchema: { type: "object" }, handler: async () => ({ content: [{ type: "text", text: "ok" }] }) }],
    });
    let sessions = 0;
    let hangUp = true;
    // Hangs up on the first tools/call, as a crashing server does; answers normally afterwards.
    const host: MessageHost = {
      openSession(session) {
        sessions++;
        const inner = server.openSession({ send: session.send });
        return {
          receive(value) {
            if ((value as { method?: string }).method === "tools/call" && hangUp) {
              hangUp = false;
              inner.close();
              session.close?.();
              return;
            }
            inner.receive(value);
          },
          close: () => inner.close(),
        };
      },
    };
    const caller = createHostedCaller({ name: "h", host });
    const r = await caller.callTool({ name: "t", arguments: {} });
    expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true, server: "h" } });
    expect(await caller.callTool({ name: "t", arguments: {} })).toMatchObject({ ok: true });
    expect(sessions).toBe(2);
    await caller.close();
  });
});
