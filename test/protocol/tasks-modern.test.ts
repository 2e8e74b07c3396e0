/**
 * The 2026-07-28 tasks extension, client side, against the scripted HTTP server: the extension is
 * declared in every request's client capabilities, a `resultType: "task"` answer is polled with
 * `tasks/get` at the server's `pollIntervalMs`, the inlined result comes back as the call's result,
 * `inputRequests` are answered through `tasks/update`, failures and unknown tasks map to failure
 * kinds, and an abort sends `tasks/cancel`.
 */
import { createClientFeatures } from "@toolwright/runtime/client-features";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const servers: ScriptedHttpServer[] = [];
const callers: HttpCaller[] = [];
beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

/** A server whose `job` tool always makes a task; `tasks/get` walks the script for that task. */
async function setup(script: readonly object[]) {
  let polls = 0;
  const server = await startScriptedHttpServer({
    era: "2026-07-28",
    capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
    tools: { job: { run: () => ({ resultType: "task", taskId: "t-1", status: "working", ttlMs: 60_000, pollIntervalMs: 20 }) } },
    results: (method, params) => {
      if (method === "tasks/get") {
        if (params?.taskId !== "t-1") return undefined;
        const step = script[Math.min(polls++, script.length - 1)];
        return { resultType: "complete", taskId: "t-1", ttlMs: 60_000, pollIntervalMs: 20, ...step };
      }
      if (method === "tasks/update" || method === "tasks/cancel") return { resultType: "complete" };
      return undefined;
    },
  });
  servers.push(server);
  const features = createClientFeatures({ elicitation: { form: () => ({ action: "accept", content: { ok: true } }) } });
  const caller = createHttpCaller({
    url: server.url,
    name: "tasks",
    era: "2026-07-28",
    handlers: features.handlers,
    capabilities: features.capabilities,
  });
  callers.push(caller);
  return { server, caller };
}

it("declares the extension, polls to completion and returns the inlined result", async () => {
  const { server, caller } = await setup([
    { status: "working", statusMessage: "step 1" },
    { status: "completed", result: { content: [{ type: "text", text: "done" }] } },
  ]);
  const statuses: string[] = [];
  const r = await caller.callTool({ name: "job", arguments: {} }, { task: { onStatus: (s) => statuses.push(s.status) } });
  expect(r.ok && r.value.content).toEqual([{ type: "text", text: "done" }]);
  expect(statuses).toEqual(["working", "working"]);
  const call = server.rpc("tools/call")[0];
  expect(call?.body?.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions).toHaveProperty([
    "io.modelcontextprotocol/tasks",
  ]);
  expect(call?.body?.params?.task).toBeUndefined();
  expect(server.rpc("tasks/get")).toHaveLength(2);
});

it("input_required: inputRequests are answered by the handlers through tasks/update", async () => {
  const { server, caller } = await setup([
    {
      status: "input_required",
      inputRequests: {
        "in-1": { method: "elicitation/create", params: { message: "sure?", requestedSchema: { type: "object", properties: {} } } },
      },
    },
    { status: "completed", result: { content: [{ type: "text", text: "confirmed" }] } },
  ]);
  const r = await caller.callTool({ name: "job", arguments: {} });
  expect(r.ok && r.value.content[0]).toEqual({ type: "text", text: "confirmed" });
  const update = server.rpc("tasks/update")[0]?.body?.params;
  expect(update?.taskId).toBe("t-1");
  expect(update?.inputResponses?.["in-1"]).toMatchObject({ action: "accept" });
});

it("a failed task with an inlined error is that JSON-RPC error; without one, a task failure (domain_rejection)", async () => {
  const withError = await setup([{ status: "failed", error: { code: -32603, message: "job crashed" } }]);
  expect(await withError.caller.callTool({ name: "job", arguments: {} })).toMatchObject({
    ok: false,
    failure: { kind: "internal", rpc: { code: -32603 } },
  });
  const bare = await setup([{ status: "failed", statusMessage: "no luck" }]);
  const r = await bare.caller.callTool({ name: "job", arguments: {} });
  expect(r).toMatchObject({ ok: false, failure: { kind: "domain_rejection", recovery: { action: "replan" } } });
  if (!r.ok) expect(r.failure.message).toContain("no luck");
});

it("an abort while polling sends tasks/cancel and fails canceled", async () => {
  const { server, caller } = await setup([{ status: "working" }]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const r = await caller.callTool({ name: "job", arguments: {} }, { signal: controller.signal });
  expect(r).toMatchObject({ ok: false, failure: { kind: "canceled" } });
  expect(server.rpc("tasks/cancel")[0]?.body?.params?.taskId).toBe("t-1");
});

it("polls are bounded: a task that never ends fails as expired after maxPolls", async () => {
  const { caller } = await setup([{ status: "working" }]);
  const r = await caller.callTool({ name: "job", arguments: {} }, { task: { maxPolls: 3 } });
  expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", recovery: { action: "replan" } } });
});
