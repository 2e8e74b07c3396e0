/**
 * MCP tasks (2025-11-25) against the real server-everything over stdio, Streamable HTTP and SSE:
 * `simulate-research-query` (taskSupport "required") is called through a task automatically, polled
 * and fetched, its clarification elicited through tasks/result; an abort cancels it; the
 * `trigger-*-async` tools (listed because the client declares task support) make the server run
 * sampling and elicitation as client-side tasks that it polls.
 */
import type { ChildProcess } from "node:child_process";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createClientFeatures } from "@toolwright/runtime/client-features";
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingFeaturesCatalogue } from "../../examples/catalogues/src/gen/everything-features/index.js";
import { EVERYTHING, startEverything, stopEverything } from "../support/everything-server.js";
import { createLeakCheck } from "../support/leak-check.js";

const leaks = createLeakCheck();
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  for (const [what, found] of Object.entries(report)) expect(found, what).toEqual([]);
});

const texts = (content: readonly unknown[]) =>
  content.filter((b): b is { type: "text"; text: string } => (b as { type?: string }).type === "text").map((b) => b.text);

describe.each(["stdio", "streamableHttp", "sse"] as const)("server-everything tasks over %s", (transport) => {
  let child: ChildProcess | undefined;
  let caller: SessionCaller;
  const elicited: string[] = [];
  const sampled: string[] = [];
  beforeAll(async () => {
    clearHttpEraCache();
    const features = createClientFeatures({
      elicitation: {
        form: (request) => {
          elicited.push(request.message);
          const field = Object.keys(request.requestedSchema.properties)[0] ?? "value";
          const schema = request.requestedSchema.properties[field] as { oneOf?: { const: string }[] };
          return { action: "accept", content: { [field]: schema.oneOf?.[0]?.const ?? "toolwright" } };
        },
      },
      sampling: {
        createMessage: async (request) => {
          sampled.push(JSON.stringify(request.messages));
          await new Promise((r) => setTimeout(r, 50));
          return { role: "assistant", content: { type: "text", text: "sampled as a task" }, model: "fake", stopReason: "endTurn" };
        },
      },
    });
    const common = { name: "everything", handlers: features.handlers, capabilities: features.capabilities };
    if (transport === "stdio") caller = createStdioCaller({ ...common, command: process.execPath, args: [EVERYTHING, "stdio"] });
    else {
      const started = await startEverything(transport, (pids) => leaks.track(pids));
      child = started.child;
      caller = createHttpCaller({ ...common, url: `http://127.0.0.1:${started.port}/${transport === "sse" ? "sse" : "mcp"}` });
    }
  });
  afterAll(async () => {
    await caller.close();
    await stopEverything(child);
  });

  it("lists simulate-research-query (task required) and the async tools the task capability unlocks", async () => {
    // The conditional tools arrive with a list_changed right after connect.
    let names: string[] = [];
    for (let i = 0; i < 600 && !names.includes("trigger-sampling-request-async"); i++) {
      const listed = await caller.listTools();
      names = listed.ok ? listed.value.map((t) => t.name) : [];
      if (!names.includes("trigger-sampling-request-async")) await new Promise((r) => setTimeout(r, 50));
    }
    expect(names).toEqual(
      expect.arrayContaining(["simulate-research-query", "trigger-sampling-request-async", "trigger-elicitation-request-async"]),
    );
    // Every other tool listed here is in the pulled features catalogue, whose generated clients
    // call all of them over this transport too (catalogue-everything(-features).test.ts).
    const async = ["trigger-elicitation-request-async", "trigger-sampling-request-async"];
    expect(names.filter((n) => !async.includes(n) && !Object.hasOwn(everythingFeaturesCatalogue.tools, n))).toEqual([]);
  });

  it("simulate-research-query runs through a task: statuses polled, the report fetched", async () => {
    const statuses: string[] = [];
    const r = await caller.callTool(
      { name: "simulate-research-query", arguments: { topic: "tides" } },
      { timeoutMs: 30_000, task: { onStatus: (s) => statuses.push(s.status) } },
    );
    if (!r.ok) throw new Error(r.failure.message);
    expect(texts(r.value.content).join("\n")).toContain("Research Report: tides");
    expect(statuses[0]).toBe("working");
    expect(statuses.length).toBeGreaterThan(1);
  });

  it("an ambiguous query asks for clarification through the task: the elicitation handler answers", async () => {
    const before = elicited.length;
    const r = await caller.callTool(
      { name: "simulate-research-query", arguments: { topic: "python", ambiguous: true } },
      { timeoutMs: 30_000 },
    );
    if (!r.ok) throw new Error(r.failure.message);
    expect(elicited.length).toBe(before + 1);
    expect(texts(r.value.content).join("\n")).toContain("Clarification");
  });

  it("handle mode: startToolTask hands back the task; the planner polls and fetches the report later", async () => {
    const started = await caller.startToolTask({ name: "simulate-research-query", arguments: { topic: "handles" } }, { timeoutMs: 30_000 });
    if (!started.ok) throw new Error(started.failure.message);
    expect(started.value.taskId).toEqual(expect.any(String));
    const status = await started.value.status();
    expect(status.ok && status.value.status).toBe("working");
    const result = await started.value.result();
    expect(result.ok && texts(result.value.content).join("\n")).toContain("Research Report: handles");
  });

  it("an abort while the task runs cancels it: canceled, finish", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const r = await caller.callTool({ name: "simulate-research-query", arguments: { topic: "abort" } }, { signal: controller.signal });
    expect(r).toMatchObject({ ok: false, failure: { kind: "canceled", recovery: { action: "finish" } } });
    if (!r.ok) expect(r.failure.message).toMatch(/task .* cancelled/);
  });

  it("trigger-sampling-request-async: the server runs sampling as a client task and polls it to completion", async () => {
    const r = await caller.callTool({ name: "trigger-sampling-request-async", arguments: { prompt: "hello" } }, { timeoutMs: 30_000 });
    if (!r.ok) throw new Error(r.failure.message);
    const text = texts(r.value.content).join("\n");
    expect(text).toContain("sampled as a task");
    expect(text).not.toContain("[SYNC]");
    expect(sampled.length).toBeGreaterThan(0);
  });

  it("trigger-elicitation-request-async: the server runs elicitation as a client task", async () => {
    const before = elicited.length;
    const r = await caller.callTool({ name: "trigger-elicitation-request-async", arguments: {} }, { timeoutMs: 30_000 });
    if (!r.ok) throw new Error(r.failure.message);
    expect(texts(r.value.content).join("\n")).not.toContain("[SYNC]");
    expect(elicited.length).toBe(before + 1);
  });
});
