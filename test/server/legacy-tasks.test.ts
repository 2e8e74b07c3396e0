// The 2025-11-25 experimental tasks, served by createToolServer and called by Toolwright's own
// callers over real stdio (a spawned tsx process) and streamable HTTP on 127.0.0.1: the capability,
// task-augmented tools/call, tasks/get, tasks/result (carrying the task's elicitation), tasks/cancel
// and tasks/list, plus the raw wire rules (taskSupport errors, related-task metadata, -32602s).
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientFeatures } from "../../packages/runtime/src/client-features.js";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "../../packages/runtime/src/http.js";
import { type HttpServerHandle, serveHttp } from "../../packages/runtime/src/server.js";
import { createStdioCaller, type StdioCaller } from "../../packages/runtime/src/stdio.js";
import { createTasksServer } from "./fixtures/tasks-server.js";

const require = createRequire(import.meta.url);
const tsxCli = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));
const script = fileURLToPath(new URL("./fixtures/serve-tasks.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

const features = () => createClientFeatures({ elicitation: { form: () => ({ action: "accept", content: { depth: "deep" } }) } });

let http: HttpServerHandle;
let cancels = 0;
type Caller = StdioCaller | HttpCaller;
const callers: { [transport: string]: Caller } = {};

beforeAll(async () => {
  http = await serveHttp(createTasksServer(() => cancels++));
  clearHttpEraCache();
  const f = features();
  callers.http = createHttpCaller({ url: http.url, name: "tasks", era: "legacy", handlers: f.handlers, capabilities: f.capabilities });
  const g = features();
  callers.stdio = createStdioCaller({
    name: "tasks",
    command: process.execPath,
    args: [tsxCli, script],
    cwd: root,
    connectTimeoutMs: 20_000,
    handlers: g.handlers,
    capabilities: g.capabilities,
  });
  for (const caller of Object.values(callers)) expect((await caller.connect()).ok).toBe(true);
});
afterAll(async () => {
  for (const caller of Object.values(callers)) await caller.close();
  await http.close();
});

describe.each(["stdio", "http"])("2025-11-25 tasks over %s, Toolwright client against Toolwright server", (transport) => {
  const caller = () => callers[transport] as Caller;

  it("declares the tasks capability and lists taskSupport", async () => {
    expect(caller().handshake?.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const listed = await caller().listTools();
    expect(listed.ok && listed.value.find((t) => t.name === "report")?.execution).toEqual({ taskSupport: "required" });
  });

  it("a required-task tool runs as a task; its elicitation arrives through tasks/result; the result comes back", async () => {
    const statuses: string[] = [];
    const r = await caller().callTool(
      { name: "report", arguments: { topic: "tides" } },
      { task: { onStatus: (s) => statuses.push(s.status), pollIntervalMs: 50 } },
    );
    expect(r.ok && r.value.content).toEqual([{ type: "text", text: "report on tides (deep)" }]);
    expect(statuses[0]).toBe("working");
  });

  it("handle mode: status, then the awaited result of an optional-task tool", async () => {
    const started = await caller().startToolTask({ name: "slow", arguments: { ms: 200 } });
    if (!started.ok) throw new Error(started.failure.message);
    expect(started.value.taskId).toEqual(expect.any(String));
    const status = await started.value.status();
    expect(status.ok && ["working", "completed"].includes(status.value.status)).toBe(true);
    const done = await started.value.result();
    expect(done.ok && done.value.content).toEqual([{ type: "text", text: "slow done" }]);
  });

  it("cancel stops the handler on the server", async () => {
    const before = cancels;
    const started = await caller().startToolTask({ name: "slow", arguments: {} });
    if (!started.ok) throw new Error(started.failure.message);
    expect((await started.value.cancel()).ok).toBe(true);
    const status = await started.value.status();
    expect(status.ok && status.value.status).toBe("cancelled");
    if (transport === "http") expect(cancels).toBe(before + 1); // the in-process server counts its cancels
  });

  it("an isError tool result makes a failed task (2025-11-25), reported as a task failure", async () => {
    const r = await caller().callTool({ name: "oops", arguments: {} }, { task: { augment: true, pollIntervalMs: 50 } });
    expect(r).toMatchObject({ ok: false, failure: { kind: expect.any(String) } });
    expect(!r.ok && r.failure.message).toMatch(/error/i);
  });
});

describe("2025-11-25 tasks, raw wire rules (HTTP)", () => {
  let session = "";
  let id = 0;
  const post = async (method: string, params: { [key: string]: unknown } = {}) => {
    const res = await fetch(http.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        ...(session ? { "Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25" } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    session ||= res.headers.get("mcp-session-id") ?? "";
    return (await res.json()) as { result?: { [key: string]: unknown }; error?: { code: number; message: string } };
  };

  beforeAll(async () => {
    const init = await post("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
    expect(init.result?.capabilities).toMatchObject({ tasks: { requests: { tools: { call: {} } } } });
  });

  it("taskSupport rules: required without task and forbidden with task are -32601", async () => {
    expect((await post("tools/call", { name: "report", arguments: {} })).error?.code).toBe(-32601);
    expect((await post("tools/call", { name: "plain", arguments: {}, task: {} })).error?.code).toBe(-32601);
    expect((await post("tools/call", { name: "plain", arguments: {} })).result?.content).toEqual([{ type: "text", text: "plain" }]);
  });

  it("CreateTaskResult, tasks/get, tasks/result with related-task metadata, tasks/list; cancel of a finished task is -32602", async () => {
    const created = await post("tools/call", { name: "slow", arguments: { ms: 10 }, task: { ttl: 5000 } });
    const task = created.result?.task as { taskId: string; status: string; ttl: number; pollInterval: number; createdAt: string };
    expect(task).toMatchObject({ status: "working", ttl: 5000, pollInterval: expect.any(Number), createdAt: expect.any(String) });
    const result = await post("tasks/result", { taskId: task.taskId });
    expect(result.result).toEqual({
      content: [{ type: "text", text: "slow done" }],
      _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } },
    });
    expect((await post("tasks/get", { taskId: task.taskId })).result).toMatchObject({ taskId: task.taskId, status: "completed" });
    const listed = (await post("tasks/list")).result?.tasks as { taskId: string }[];
    expect(listed.map((t) => t.taskId)).toContain(task.taskId);
    expect((await post("tasks/cancel", { taskId: task.taskId })).error?.code).toBe(-32602);
    expect((await post("tasks/get", { taskId: "nope" })).error?.code).toBe(-32602);
  });

  it("a 2025-06-18 session gets no tasks capability and runs required-task tools normally", async () => {
    const res = await fetch(http.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "old", version: "1" } },
      }),
    });
    const body = (await res.json()) as { result: { capabilities: { [key: string]: unknown } } };
    expect(body.result.capabilities.tasks).toBeUndefined();
  });
});
