/**
 * Code mode over the real server-memory and server-filesystem (stdio), through the clients generated
 * from their pulled catalogues: programs in the QuickJS wasm sandbox whose every call goes through
 * `runtime.execute`. Validation, the run policy, per-call confirmation, hidden tools and telemetry
 * are checked on what reached the servers (the memory server's own file, the runtime's events).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { context, type Span, trace } from "@opentelemetry/api";
import { createCodeMode } from "@toolwright/code-mode";
import { createRuntime, type RuntimeEvent, type RuntimeOptions, type ToolSpec, type TracerLike } from "@toolwright/runtime";
import { validateFailure } from "@toolwright/runtime/caller";
import { afterEach, describe, expect, it } from "vitest";
import { filesystemCodeMode } from "../../examples/catalogues/src/gen/filesystem/code-mode.gen.js";
import { memoryCodeMode } from "../../examples/catalogues/src/gen/memory/code-mode.gen.js";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";
import { alsContextManager } from "../support/otel-context.js";

let servers: RealServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

function start(options: RuntimeOptions = {}): { servers: RealServers; events: RuntimeEvent[] } {
  const events: RuntimeEvent[] = [];
  servers = startRealServers({ ...options, onEvent: (e) => events.push(e) });
  return { servers, events };
}

/** The entities the memory server has written to its own file: the server's side of the story. */
function storedEntities(s: RealServers): string[] {
  const file = join(dirname(s.root), "memory.jsonl");
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type: string; name?: string })
    .filter((e) => e.type === "entity")
    .map((e) => e.name as string)
    .sort();
}

const sentCalls = (events: RuntimeEvent[]) =>
  events.filter((e) => e.type === "call_finished" || (e.type === "call_failed" && e.sent)).map((e) => e.tool);

describe("code mode over real MCP servers", () => {
  it("runs a multi-step program across both servers; only the final value comes back", async () => {
    const { servers: s, events } = start();
    const mode = createCodeMode({ runtime: s.runtime });
    expect(Object.keys(mode.apis).sort()).toEqual(["filesystem", "memory"]);
    expect(mode.apis.memory?.createEntities).toBe("memory.create_entities");
    const notes = join(s.root, "notes.txt");
    const program = `
      const file = await filesystem.readTextFile({ path: ${JSON.stringify(notes)} });
      const lines = file.content.split("\\n").filter((l) => l !== "");
      console.log("read", lines.length, "lines");
      await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: lines }] });
      const graph = await memory.readGraph({});
      return { entities: graph.entities.map((e) => e.name), observations: graph.entities[0].observations.length };`;
    const result = await mode.run(program);
    expect(result).toMatchObject({ ok: true, value: { entities: ["Ada"], observations: 2 } });
    expect(result.console).toEqual([{ level: "log", text: "read 2 lines" }]);
    expect(result.calls.map((c) => c.tool)).toEqual(["filesystem.read_text_file", "memory.create_entities", "memory.read_graph"]);
    // Every call went through runtime.execute (its events) and reached the server once.
    expect(sentCalls(events)).toEqual(["filesystem.read_text_file", "memory.create_entities", "memory.read_graph"]);
    expect(storedEntities(s)).toEqual(["Ada"]);
  });

  it("with the generated APIs, TypeScript is checked first: a type error sends nothing; a typed program runs", async () => {
    const { servers: s, events } = start();
    const mode = createCodeMode({ runtime: s.runtime, apis: [memoryCodeMode, filesystemCodeMode] });
    expect(mode.apis.memory?.createEntities).toBe("memory.create_entities");
    const wrong = await mode.run(`await memory.createEntities({ entities: [{ name: "Ada", entityType: 7, observations: [] }] });
      await memory.deleteEverything({});`);
    expect(wrong.ok).toBe(false);
    if (wrong.ok) return;
    expect(wrong.failure).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call" } });
    expect((wrong.failure as { diagnostics?: { line: number }[] }).diagnostics?.map((d) => d.line)).toEqual([1, 2]);
    expect(wrong.calls).toEqual([]);
    expect(events).toEqual([]); // nothing reached the runtime, so nothing reached a server
    const typed = await mode.run(`
      const entities: memory.CreateEntitiesPayload["entities"] = [{ name: "Ada", entityType: "person", observations: ["wrote"] }];
      const made: memory.CreateEntitiesResult = await memory.createEntities({ entities });
      const graph = await memory.readGraph();
      return { made: made.entities.length, names: graph.entities.map((e) => e.name) };`);
    expect(typed).toMatchObject({ ok: true, value: { made: 1, names: ["Ada"] } });
    expect(storedEntities(s)).toEqual(["Ada"]);
  });

  it("validates arguments locally: a wrong field type is a catchable ToolError with issues, and nothing is sent", async () => {
    const { servers: s, events } = start();
    const mode = createCodeMode({ runtime: s.runtime });
    const result = await mode.run(`
      try {
        await memory.createEntities({ entities: [{ name: "Ada", entityType: 7, observations: [] }] });
        return "sent";
      } catch (e) {
        return { name: e.name, kind: e.kind, action: e.recovery.action, fields: e.issues.map((i) => i.field), isToolError: e instanceof ToolError };
      }`);
    expect(result).toMatchObject({
      ok: true,
      value: { name: "ToolError", kind: "invalid_call", action: "correct_call", isToolError: true },
    });
    expect((result.ok && (result.value as { fields: string[] }).fields)?.[0]).toMatch(/entityType/);
    expect(sentCalls(events)).toEqual([]);
    expect(events.filter((e) => e.type === "call_failed").map((e) => (e.type === "call_failed" ? e.sent : true))).toEqual([false]);
    expect(storedEntities(s)).toEqual([]);
  });

  it("an uncaught ToolError ends the program and comes back as the call's own ToolFailure", async () => {
    const { servers: s } = start();
    const mode = createCodeMode({ runtime: s.runtime });
    const result = await mode.run(`await memory.openNodes({ names: "Ada" }); return "unreached";`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toMatchObject({ kind: "invalid_call", tool: "memory.open_nodes", recovery: { action: "correct_call" } });
    expect(validateFailure(result.failure)).toEqual([]);
    // A program's own mistake is a ToolFailure too, with the source as evidence for correct_call.
    const thrown = await mode.run(`const x = undefined; return x.y;`);
    expect(thrown.ok).toBe(false);
    if (thrown.ok) return;
    expect(thrown.failure).toMatchObject({ kind: "invalid_call", tool: "code_mode", recovery: { action: "correct_call" } });
    expect(thrown.failure.message).toMatch(/TypeError.*line 1/);
    expect(validateFailure(thrown.failure)).toEqual([]);
  });

  it("asks for approval per call: approving the program does not approve each destructive call in it", async () => {
    const asked: string[] = [];
    const { servers: s } = start({
      confirm: (spec, payload) => {
        const names = (payload as { entityNames: string[] }).entityNames;
        asked.push(`${spec.id} ${names.join(",")}`);
        return !names.includes("Babbage"); // a person (or policy) says no to this one call only
      },
    });
    const mode = createCodeMode({ runtime: s.runtime });
    await mode.run(
      `await memory.createEntities({ entities: ["Ada", "Babbage", "Lovelace"].map((name) => ({ name, entityType: "person", observations: [] })) });`,
    );
    expect(storedEntities(s)).toEqual(["Ada", "Babbage", "Lovelace"]);
    const result = await mode.run(`
      const outcomes = [];
      for (const name of ["Ada", "Babbage", "Lovelace"]) {
        try { await memory.deleteEntities({ entityNames: [name] }); outcomes.push(name + ":deleted"); }
        catch (e) { outcomes.push(name + ":" + e.reason); }
      }
      return outcomes;`);
    expect(result).toMatchObject({ ok: true, value: ["Ada:deleted", "Babbage:confirmation_denied", "Lovelace:deleted"] });
    expect(asked).toEqual(["memory.delete_entities Ada", "memory.delete_entities Babbage", "memory.delete_entities Lovelace"]);
    expect(storedEntities(s)).toEqual(["Babbage"]);
  });

  it("the run policy counts calls made from code: the budget stops the fourth call", async () => {
    const { servers: s, events } = start({ policy: { maxToolCalls: 3 } });
    const mode = createCodeMode({ runtime: s.runtime });
    const result = await mode.run(`
      const seen = [];
      for (let i = 0; i < 5; i++) {
        try { await memory.readGraph({}); seen.push("ok"); } catch (e) { seen.push(e.reason); }
      }
      return seen;`);
    expect(result).toMatchObject({ ok: true, value: ["ok", "ok", "ok", "max_tool_calls", "max_tool_calls"] });
    expect(s.runtime.usage().toolCalls).toBe(3);
    expect(sentCalls(events)).toHaveLength(3);
  });

  it("hidden (app-only) tools do not exist in the sandbox and cannot be reached", async () => {
    const { servers: s } = start();
    // The same server, with delete_entities marked app-only (MCP Apps `_meta.ui.visibility`).
    const runtime = createRuntime();
    const specs = s.runtime.specs().filter((spec) => spec.toolset === "memory");
    const hidden = specs.map(
      (spec): ToolSpec => (spec.name === "delete_entities" ? { ...spec, meta: { ui: { visibility: ["app"] } } } : spec),
    );
    runtime.registerToolset({ toolset: "memory", specs: hidden, caller: s.memory });
    const mode = createCodeMode({
      runtime,
      apis: { memory: { deleteEntities: "memory.delete_entities", createEntities: "memory.create_entities" } },
    });
    expect(mode.apis).toEqual({ memory: { createEntities: "memory.create_entities" } });
    await mode.run(`await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });`);
    const result = await mode.run(`return [typeof memory.deleteEntities, Object.isFrozen(memory)];`);
    expect(result).toMatchObject({ ok: true, value: ["undefined", true] });
    const attempt = await mode.run(`memory.deleteEntities = async () => 1; await memory.deleteEntities({ entityNames: ["Ada"] });`);
    expect(attempt.ok).toBe(false);
    expect(attempt.ok ? "" : attempt.failure.message).toMatch(/TypeError/);
    expect(storedEntities(s)).toEqual(["Ada"]);
  });

  it("opens a span per program, with each call's tools/call span nested under it", async () => {
    const spans: { name: string; parent: unknown; self: Span }[] = [];
    const tracer: TracerLike = {
      startSpan(name) {
        const span = { setAttribute: () => span, setStatus: () => span, end: () => {} } as unknown as Span;
        spans.push({ name, parent: trace.getActiveSpan(), self: span });
        return span;
      },
    };
    context.setGlobalContextManager(alsContextManager());
    try {
      const { servers: s } = start({ tracer });
      const mode = createCodeMode({ runtime: s.runtime, tracer });
      const result = await mode.run(
        `await memory.readGraph({}); await Promise.all([memory.readGraph({}), filesystem.listAllowedDirectories({})]); return 1;`,
      );
      expect(result.ok).toBe(true);
      const program = spans.find((x) => x.name === "code_mode program");
      const calls = spans.filter((x) => x.name.startsWith("tools/call"));
      expect(calls.map((c) => c.name).sort()).toEqual([
        "tools/call filesystem.list_allowed_directories",
        "tools/call memory.read_graph",
        "tools/call memory.read_graph",
      ]);
      for (const call of calls) expect(call.parent).toBe(program?.self);
    } finally {
      context.disable();
    }
  });
});
