// subscriptions/listen (2026-07-28) on createToolServer: over stateless HTTP on 127.0.0.1 (raw
// frames, and Toolwright's own HTTP caller receiving list changes), and over a stdio-style session
// (one channel, cancelled with notifications/cancelled). Covers the acknowledgement, subscription
// ids, filters, the tasks extension's notifications/tasks and the graceful end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearHttpEraCache, createHttpCaller } from "../../packages/runtime/src/http.js";
import type { RpcMessage } from "../../packages/runtime/src/protocol.js";
import { type HttpServerHandle, serveHttp, type ToolServer } from "../../packages/runtime/src/server.js";
import { createTasksServer } from "./fixtures/tasks-server.js";

const V = "2026-07-28";
const SUB = "io.modelcontextprotocol/subscriptionId";
const meta = (extensions = false) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": extensions ? { extensions: { "io.modelcontextprotocol/tasks": {} } } : {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
});

let server: ToolServer;
let http: HttpServerHandle;
beforeAll(async () => {
  server = createTasksServer();
  http = await serveHttp(server);
  clearHttpEraCache();
});
afterAll(() => http.close());

const headers = (method: string, extra: { [key: string]: string } = {}) => ({
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "MCP-Protocol-Version": V,
  "Mcp-Method": method,
  ...extra,
});

/** Opens a listen and yields its SSE frames as they arrive; `close` ends the stream (client cancel). */
async function listen(id: number, notifications: { [key: string]: unknown }, extensions = false) {
  const controller = new AbortController();
  const res = await fetch(http.url, {
    method: "POST",
    headers: headers("subscriptions/listen"),
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta: meta(extensions), notifications } }),
    signal: controller.signal,
  });
  const frames: { [key: string]: unknown }[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  if (res.headers.get("content-type")?.includes("text/event-stream") && res.body) {
    const reader = res.body.getReader();
    void (async () => {
      let buffer = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += new TextDecoder().decode(value);
          const lines = buffer.split("\n");
          buffer = lines.pop() ?? "";
          for (const line of lines) if (line.startsWith("data: ") && line.length > 6) frames.push(JSON.parse(line.slice(6)));
          for (const wake of waiters.splice(0)) wake();
        }
      } catch {
        // aborted by close()
      }
      ended = true;
      for (const wake of waiters.splice(0)) wake();
    })();
  }
  const next = async (count: number, ms = 30_000) => {
    const deadline = Date.now() + ms;
    while (frames.length < count && !ended && Date.now() < deadline)
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    return frames;
  };
  return { res, frames, next, close: () => controller.abort(), ended: () => ended };
}

const call = async (name: string, args: { [key: string]: unknown }, extensions = false) => {
  const res = await fetch(http.url, {
    method: "POST",
    headers: headers("tools/call", { "Mcp-Name": name, Accept: "application/json" }),
    body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name, arguments: args, _meta: meta(extensions) } }),
  });
  return (await res.json()) as { result: { [key: string]: unknown } };
};

describe("subscriptions/listen over stateless HTTP", () => {
  it("acknowledges first with the agreed filter, then tags list changes with the subscription id", async () => {
    const l = await listen(7, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true });
    expect(l.res.headers.get("x-accel-buffering")).toBe("no");
    const [ack] = await l.next(1);
    // The fixture serves no prompts or resources, so only tools/list_changed is agreed.
    expect(ack).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { [SUB]: 7 }, notifications: { toolsListChanged: true } },
    });
    server.notifyToolListChanged();
    server.notifyPromptListChanged();
    const frames = await l.next(2);
    expect(frames[1]).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUB]: 7 } } });
    l.close();
  });

  it("sends nothing the filter did not ask for", async () => {
    const l = await listen(8, { promptsListChanged: true });
    await l.next(1);
    server.notifyToolListChanged();
    await new Promise((r) => setTimeout(r, 200));
    expect(l.frames.map((f) => f.method)).toEqual(["notifications/subscriptions/acknowledged"]);
    l.close();
  });

  it("task ids need the tasks extension (-32021, HTTP 400)", async () => {
    const l = await listen(9, { taskIds: ["x"] });
    expect(l.res.status).toBe(400);
    expect(((await l.res.json()) as { error: { code: number } }).error.code).toBe(-32021);
  });

  it("notifications/tasks carries the DetailedTask of a subscribed task, result inlined once completed", async () => {
    const created = await call("slow", { ms: 300 }, true);
    const taskId = created.result.taskId as string;
    expect(created.result.resultType).toBe("task");
    const l = await listen(10, { taskIds: [taskId] }, true);
    const [ack] = await l.next(1);
    expect(ack?.params).toEqual({ _meta: { [SUB]: 10 }, notifications: { taskIds: [taskId] } });
    const frames = await l.next(2);
    expect(frames[1]).toMatchObject({
      method: "notifications/tasks",
      params: { taskId, status: "completed", result: { content: [{ type: "text", text: "slow done" }] }, _meta: { [SUB]: 10 } },
    });
    l.close();
  });

  it("Toolwright's HTTP caller (2026-07-28) gets list changes through its own listen", async () => {
    const seen: string[] = [];
    const caller = createHttpCaller({ url: http.url, name: "listen", era: "2026-07-28", onNotification: (n) => void seen.push(n.method) });
    expect((await caller.connect()).ok).toBe(true);
    const deadline = Date.now() + 30_000;
    while (!seen.includes("notifications/tools/list_changed") && Date.now() < deadline) {
      server.notifyToolListChanged();
      await new Promise((r) => setTimeout(r, 100));
    }
    await caller.close();
    expect(seen).toContain("notifications/tools/list_changed");
  });

  it("endSubscriptions ends a listen gracefully with its empty result", async () => {
    const l = await listen(11, { toolsListChanged: true });
    await l.next(1);
    server.endSubscriptions();
    const frames = await l.next(2);
    expect(frames[1]).toEqual({ jsonrpc: "2.0", id: 11, result: { _meta: { [SUB]: 11 }, resultType: "complete" } });
  });
});

describe("subscriptions/listen on a single-channel (stdio-style) session", () => {
  it("several listens share the channel, told apart by subscription id; notifications/cancelled ends one", () => {
    const out: RpcMessage[] = [];
    const session = server.openSession({ send: (m) => void out.push(m) });
    const request = (id: number, notifications: { [key: string]: unknown }) =>
      session.receive({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta: meta(), notifications } });
    request(1, { toolsListChanged: true });
    request(2, { toolsListChanged: true });
    server.notifyToolListChanged();
    const tagged = (method: string) =>
      out
        .filter((m) => (m as { method?: string }).method === method)
        .map((m) => (m as unknown as { params: { _meta: { [SUB]: unknown } } }).params._meta[SUB]);
    expect(tagged("notifications/subscriptions/acknowledged")).toEqual([1, 2]);
    expect(tagged("notifications/tools/list_changed")).toEqual([1, 2]);
    session.receive({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    out.length = 0;
    server.notifyToolListChanged();
    expect(tagged("notifications/tools/list_changed")).toEqual([2]);
    // A cancelled listen is not answered (MCP: the receiver does not respond to a cancelled request).
    expect(out.some((m) => "id" in m && m.id === 1)).toBe(false);
    session.close();
    out.length = 0;
    server.notifyToolListChanged();
    expect(out).toEqual([]);
  });

  it("a malformed filter is -32602", async () => {
    const out: RpcMessage[] = [];
    const session = server.openSession({ send: (m) => void out.push(m) });
    session.receive({ jsonrpc: "2.0", id: 5, method: "subscriptions/listen", params: { _meta: meta(), notifications: { taskIds: "x" } } });
    await new Promise((r) => setImmediate(r));
    expect(out).toMatchObject([{ id: 5, error: { code: -32602 } }]);
    session.close();
  });
});
