// The 2026-07-28 tasks extension end to end with Toolwright on both sides: createToolServer tools
// with execution.taskSupport, called through createHttpCaller, which declares the extension, polls
// tasks/get, answers input through tasks/update and cancels on abort.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createClientFeatures } from "../../packages/runtime/src/client-features.js";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "../../packages/runtime/src/http.js";
import { createToolServer, type HttpServerHandle, serveHttp } from "../../packages/runtime/src/server.js";

let http: HttpServerHandle;
let caller: HttpCaller;
let cancelled = 0;

beforeAll(async () => {
  const server = createToolServer({
    name: "tasks",
    version: "1.0.0",
    tools: [
      {
        name: "report",
        inputSchema: { type: "object", properties: { topic: { type: "string" } } },
        execution: { taskSupport: "required" },
        handler: async (args: { topic?: string }, ctx) => {
          const answer = (await ctx.input("depth", "elicitation/create", {
            message: "How deep?",
            requestedSchema: { type: "object", properties: { depth: { type: "string" } } },
          })) as { content?: { depth?: string } };
          await new Promise((r) => setTimeout(r, 100));
          return { content: [{ type: "text", text: `report on ${args.topic} (${answer.content?.depth})` }] };
        },
      },
      {
        name: "forever",
        inputSchema: { type: "object" },
        execution: { taskSupport: "optional" },
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener("abort", () => {
              cancelled++;
              resolve({ content: [] });
            });
          }),
      },
    ],
  });
  http = await serveHttp(server);
  clearHttpEraCache();
  const features = createClientFeatures({ elicitation: { form: () => ({ action: "accept", content: { depth: "deep" } }) } });
  caller = createHttpCaller({
    url: http.url,
    name: "tasks",
    era: "2026-07-28",
    handlers: features.handlers,
    capabilities: features.capabilities,
  });
});
afterAll(async () => {
  await caller.close();
  await http.close();
});

describe("tasks extension, Toolwright client against Toolwright server", () => {
  it("a required-task tool becomes a task; its input is answered through tasks/update; the inlined result comes back", async () => {
    const statuses: string[] = [];
    const r = await caller.callTool(
      { name: "report", arguments: { topic: "tides" } },
      { task: { onStatus: (s) => statuses.push(s.status) } },
    );
    expect(r.ok && r.value.content).toEqual([{ type: "text", text: "report on tides (deep)" }]);
    expect(statuses).toContain("input_required");
  });

  it("without the extension a required-task tool is -32021 (invalid_call, replan)", async () => {
    const plain = createHttpCaller({ url: http.url, name: "tasks", era: "2026-07-28", tasks: false });
    const r = await plain.callTool({ name: "report", arguments: { topic: "x" } });
    await plain.close();
    expect(r).toMatchObject({ ok: false, failure: { kind: "invalid_call", recovery: { action: "replan" }, rpc: { code: -32021 } } });
  });

  it("handle mode: startToolTask answers at once with the task; status, result and cancel come later", async () => {
    const started = await caller.startToolTask({ name: "report", arguments: { topic: "later" } });
    if (!started.ok) throw new Error(started.failure.message);
    expect(started.value.taskId).toEqual(expect.any(String));
    const status = await started.value.status();
    expect(status.ok && ["working", "input_required"]).toContain(status.ok && status.value.status);
    const result = await started.value.result();
    expect(result.ok && result.value.content).toEqual([{ type: "text", text: "report on later (deep)" }]);
    const long = await caller.startToolTask({ name: "forever", arguments: {} });
    if (!long.ok) throw new Error(long.failure.message);
    const before = cancelled;
    expect(await long.value.cancel()).toEqual({ ok: true, value: undefined });
    // Wait for the event, not for a time: at load 8 on 2 cores the cancel can take seconds to land.
    await vi.waitFor(() => expect(cancelled).toBe(before + 1), { timeout: 30_000, interval: 10 });
  });

  it("an abort cancels the task on the server", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await caller.callTool({ name: "forever", arguments: {} }, { signal: controller.signal });
    expect(r).toMatchObject({ ok: false, failure: { kind: "canceled" } });
    await vi.waitFor(() => expect(cancelled).toBeGreaterThan(0), { timeout: 30_000, interval: 10 });
  });
});
