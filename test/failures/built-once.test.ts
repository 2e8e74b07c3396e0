/**
 * A failure is built once, where the facts are: the stdio caller puts the request arguments and the
 * facts the typed path hands down (tool id, example, repeatable, run deadline) into the failure
 * context, against a real scripted server process. Nothing remaps the failure afterwards.
 */
import { createRuntime, type ToolFailure } from "@toolwright/runtime";
import { validateFailure } from "@toolwright/runtime/caller";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { type ScriptedServer, scriptedServer } from "../support/scripted-stdio-server.js";
import { spec } from "./fixtures.js";

let leaks: LeakCheck;
const opened: { caller: StdioCaller; server: ScriptedServer }[] = [];
beforeAll(() => {
  leaks = createLeakCheck();
});
afterEach(async () => {
  for (const { caller, server } of opened.splice(0)) {
    await caller.close();
    leaks.track(server.pids());
    server.dispose();
  }
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

function open(): StdioCaller {
  const server = scriptedServer();
  const caller = createStdioCaller({ name: "scripted", command: server.command, args: server.args, env: server.env, timeoutMs: 10_000 });
  opened.push({ caller, server });
  return caller;
}

function failureOf(result: { readonly ok: boolean; readonly failure?: ToolFailure }): ToolFailure {
  expect(result.ok).toBe(false);
  const failure = result.failure as ToolFailure;
  expect(validateFailure(failure)).toEqual([]);
  return failure;
}

// `fail` answers a JSON-RPC error with the code and message it is given.
const failing = spec("scripted", "fail", { code: "integer", message: "string" }, { exampleJson: '{"code":1,"message":"m"}' });
const failingReadOnly = { ...failing, id: "scripted.fail-ro", providerName: "scripted_fail_ro", annotations: { readOnly: true } };
const hanging = spec("scripted", "hang", {});

describe("failures built by the stdio caller with the call's context", () => {
  it("a direct call: the server's -32602 is correct_call with the arguments that were sent, named by its wire name", async () => {
    const caller = open();
    const args = { code: -32602, message: "depth must be positive" };
    const f = failureOf(await caller.callTool({ name: "fail", arguments: args }));
    expect(f).toMatchObject({ kind: "invalid_call", source: "rpc", rpc: { code: -32602 }, tool: "fail", server: "scripted" });
    expect(f.recovery).toEqual({ action: "correct_call", priorInput: args });
  });

  it("through the runtime: the tool id and the example come with it, and it is the one failure (no second mapping)", async () => {
    const runtime = createRuntime();
    runtime.registerToolset({ toolset: "scripted", specs: [failing], caller: open() });
    const args = { code: -32602, message: "depth must be positive" };
    const f = failureOf(await runtime.execute({ tool: "scripted.fail", arguments: args }));
    expect(f).toMatchObject({ tool: "scripted.fail", source: "rpc", message: "scripted: depth must be positive (JSON-RPC -32602)" });
    expect(f.recovery).toEqual({ action: "correct_call", priorInput: args, exampleJson: '{"code":1,"message":"m"}' });
  });

  it("a server error on a tool not declared read-only or idempotent is replan (it may have run); on a read-only one it stays retry", async () => {
    const runtime = createRuntime();
    runtime.registerToolset({ toolset: "scripted", specs: [failing, failingReadOnly], caller: open() });
    const args = { code: -32603, message: "database exploded" };
    const unsafe = failureOf(await runtime.execute({ tool: "scripted.fail", arguments: args }));
    expect(unsafe).toMatchObject({ kind: "internal", source: "rpc", recovery: { action: "replan" }, retryable: false });
    expect(unsafe.message).toBe(
      "scripted: database exploded (JSON-RPC -32603); not safe to repeat as is: scripted.fail is not declared read-only or idempotent and may have run",
    );
    const safe = failureOf(await runtime.execute({ tool: "scripted.fail-ro", arguments: args }));
    expect(safe).toMatchObject({ kind: "internal", recovery: { action: "retry" }, retryable: true });
    expect(safe.message).toBe("scripted: database exploded (JSON-RPC -32603)");
  });

  it("the tool timeout: a hanging server's call is a timeout tagged tool_timeout, replan on a non-idempotent tool", async () => {
    const runtime = createRuntime({ policy: { toolTimeoutMs: 200 } });
    runtime.registerToolset({ toolset: "scripted", specs: [hanging], caller: open() });
    const f = failureOf(await runtime.execute({ tool: "scripted.hang", arguments: {} }));
    expect(f).toMatchObject({
      kind: "timeout",
      reason: "tool_timeout",
      source: "transport",
      tool: "scripted.hang",
      recovery: { action: "replan" },
    });
    expect(f.message).toMatch(/not safe to repeat as is/);
  });

  it("the time budget: a call cut by the run's budget is time_budget / finish", async () => {
    const runtime = createRuntime({ policy: { timeBudgetMs: 300, toolTimeoutMs: 10_000 } });
    runtime.registerToolset({ toolset: "scripted", specs: [hanging], caller: open() });
    const f = failureOf(await runtime.execute({ tool: "scripted.hang", arguments: {} }));
    expect(f).toMatchObject({ kind: "timeout", reason: "time_budget", source: "local", recovery: { action: "finish" } });
    expect(f.message).toBe("the run time budget ran out during scripted.hang; stop calling tools");
  });
});
