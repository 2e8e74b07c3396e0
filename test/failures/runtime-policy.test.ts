/**
 * The runtime registry and its run policy: tool-call cap, failure streak, time budget, tool timeout,
 * confirmation hook, cancellation. Every failure is checked with the validator.
 */
import { type CallOptions, createInMemoryCaller, createRuntime, type RuntimeEvent, type ToolResult } from "@toolwright/runtime";
import { callContext, callerFunc, createHostedCaller, failureFromFault, validateFailure } from "@toolwright/runtime/caller";
import type { CallToolResult } from "@toolwright/runtime/protocol";
import { createToolServer } from "@toolwright/runtime/server";
import { type FaultPlan, withFaults } from "@toolwright/testkit";
import { describe, expect, it } from "vitest";
import { spec } from "./fixtures.js";

/** A real tool server with `tools` (each answers "ok"), in memory, with the testkit's faults on top. */
function faultyCaller(server: string, tools: readonly string[], plan: FaultPlan) {
  const host = createToolServer({
    name: server,
    version: "1.0.0",
    tools: tools.map((name) => ({ name, inputSchema: { type: "object" }, handler: () => ({ content: [{ type: "text", text: "ok" }] }) })),
  });
  return createHostedCaller({ name: server, host: withFaults(host, plan) });
}

const ok = (text: string): CallToolResult => ({ content: [{ type: "text", text }] });
const echo = spec("util", "echo", { text: "string" }, { exampleJson: '{"text":"hi"}', annotations: { readOnly: true } });
const fail = spec("util", "fail", { text: "string" });
const wipe = spec("util", "wipe", { text: "string" }, { annotations: { destructive: true } });
const guarded = spec("util", "guarded", { text: "string" }, { requiresConfirmation: true });
const specs = [echo, fail, wipe, guarded];

function setup(options: Parameters<typeof createRuntime>[0] = {}) {
  const caller = createInMemoryCaller("mem", {
    echo: (args) => ok(String(args.text)),
    fail: () => ({ content: [{ type: "text", text: "nope" }], isError: true }),
    wipe: () => ok("wiped"),
    guarded: () => ok("guarded"),
  });
  const runtime = createRuntime(options);
  runtime.registerToolset({ toolset: "util", specs, caller });
  return { runtime, caller };
}

function failureOf(result: ToolResult<unknown>) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  expect(validateFailure(result.failure)).toEqual([]);
  return result.failure;
}

describe("registry", () => {
  it("finds tools by id, provider-safe name and unique wire name", async () => {
    const { runtime } = setup();
    expect(runtime.lookup("util.echo")?.spec).toBe(echo);
    expect(runtime.lookup("util_echo")?.spec).toBe(echo);
    expect(runtime.lookup("echo")?.spec).toBe(echo);
    const r = await runtime.execute({ tool: "util_echo", arguments: { text: "hi" } });
    expect(r).toMatchObject({ ok: true, value: "hi" });
  });

  it("does not resolve a wire name two toolsets share", () => {
    const { runtime } = setup();
    runtime.registerToolset({
      toolset: "other",
      specs: [spec("other", "echo", { text: "string" })],
      caller: createInMemoryCaller("o", {}),
    });
    expect(runtime.lookup("echo")).toBeUndefined();
    expect(runtime.lookup("other.echo")?.spec.toolset).toBe("other");
  });

  it("an unknown tool is a tool_unavailable failure with suggestions, never an exception", async () => {
    const { runtime, caller } = setup();
    const f = failureOf(await runtime.execute({ tool: "util.ecco", arguments: {} }));
    expect(f).toMatchObject({ kind: "invalid_call", reason: "tool_unavailable", recovery: { action: "replan" } });
    expect(f.suggestions?.[0]).toBe("util_echo");
    expect(caller.calls).toHaveLength(0);
  });

  it("isError is a domain_rejection value that keeps the content", async () => {
    const { runtime } = setup();
    const f = failureOf(await runtime.execute({ tool: "util.fail", arguments: { text: "x" } }));
    expect(f).toMatchObject({ kind: "domain_rejection", content: [{ type: "text", text: "nope" }] });
  });

  it("rejects an invalid policy with a TypeError naming the field", () => {
    expect(() => createRuntime({ policy: { maxToolCalls: -1 } })).toThrow(/maxToolCalls must be a number >= 0/);
    expect(() => createRuntime({ policy: { toolTimeout: -5 } })).toThrow(/toolTimeout/);
    expect(() => createRuntime({ policy: { timeBudget: "5m" as unknown as number } })).toThrow(/timeBudget.*"5m"/);
    expect(createRuntime({ policy: { maxToolCalls: 0, timeBudget: Number.POSITIVE_INFINITY } }).policy).toEqual({});
  });

  it("accepts the design's runPolicy names", () => {
    const runtime = createRuntime({ policy: { maxToolCalls: 3, maxConsecutiveFailedToolCalls: 2, timeBudget: 5000, toolTimeout: 100 } });
    expect(runtime.policy).toEqual({ maxToolCalls: 3, maxConsecutiveFailedToolCalls: 2, timeBudgetMs: 5000, toolTimeoutMs: 100 });
  });
});

describe("run policy", () => {
  it("maxToolCalls: the call after the limit is refused with finish and not sent", async () => {
    const { runtime, caller } = setup({ policy: { maxToolCalls: 2 } });
    for (let i = 0; i < 2; i++) expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
    const f = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(f).toMatchObject({ kind: "canceled", reason: "max_tool_calls", recovery: { action: "finish" }, retryable: false });
    expect(caller.calls).toHaveLength(2);
    expect(runtime.usage().toolCalls).toBe(2);
    runtime.resetRun();
    expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
  });

  it("calls refused before sending do not count as tool calls", async () => {
    const { runtime } = setup({ policy: { maxToolCalls: 1 } });
    failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: 5 } }));
    failureOf(await runtime.execute({ tool: "nothing", arguments: {} }));
    expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
  });

  it("the failure streak stops the run; a success resets it", async () => {
    const { runtime, caller } = setup({ policy: { maxConsecutiveFailedToolCalls: 2 } });
    failureOf(await runtime.execute({ tool: "util.fail", arguments: { text: "x" } }));
    expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
    failureOf(await runtime.execute({ tool: "util.fail", arguments: { text: "x" } }));
    failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: 1 } })); // invalid call counts too
    expect(runtime.usage().consecutiveFailures).toBe(2);
    const f = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(f).toMatchObject({ reason: "max_consecutive_failures", recovery: { action: "finish" } });
    expect(caller.calls).toHaveLength(3);
  });

  it("time budget: after the budget, calls are refused with timeout / finish", async () => {
    let clock = 1000;
    const { runtime, caller } = setup({ policy: { timeBudgetMs: 500 }, now: () => clock });
    expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
    clock += 600;
    const f = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(f).toMatchObject({ kind: "timeout", reason: "time_budget", recovery: { action: "finish" } });
    expect(caller.calls).toHaveLength(1);
  });

  it("time spent waiting for a confirmation does not count against the time budget", async () => {
    let clock = 0;
    const { runtime, caller } = setup({
      policy: { timeBudgetMs: 1000 },
      now: () => clock,
      confirm: async () => {
        clock += 5000; // a person takes five seconds to answer
        return true;
      },
    });
    expect((await runtime.execute({ tool: "util.wipe", arguments: { text: "a" } })).ok).toBe(true);
    expect(runtime.usage().elapsedMs).toBe(0);
    clock += 400;
    expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
    clock += 700;
    expect(failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).reason).toBe("time_budget");
    expect(caller.calls).toHaveLength(2);
  });

  it("tool timeout: passed to the caller as timeoutMs with the run's facts; the caller's own timeout is built as tool_timeout", async () => {
    const seen: CallOptions[] = [];
    // A third-party caller that times out by itself, before the runtime's backstop, and builds its
    // failure the documented way: with the call's context (arguments and the facts handed down).
    const caller = callerFunc("slow", (request, options) => {
      seen.push(options);
      return new Promise((resolve) => {
        setTimeout(() => {
          const failure = failureFromFault(
            { type: "timeout", phase: "request", message: "no answer" },
            callContext("slow", request, options.facts),
          );
          resolve({ ok: false, failure });
        }, options.timeoutMs);
      });
    });
    const runtime = createRuntime({ policy: { toolTimeoutMs: 30 } });
    runtime.registerToolset({ toolset: "util", specs: [echo], caller });
    const f = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(seen[0]?.timeoutMs).toBe(30);
    expect(seen[0]?.facts).toMatchObject({ tool: "util.echo", deadline: "tool_timeout" });
    expect(f).toMatchObject({ kind: "timeout", reason: "tool_timeout", recovery: { action: "retry" }, tool: "util.echo" });
    expect(f.message).toBe("slow: call timed out, no answer");
  });

  it("a caller that throws: the local reason caller_failed, its message redacted; not safe to repeat on a tool that may have run", async () => {
    const caller = callerFunc("thrower", () => {
      throw new Error("socket died, token=tw-abc-123");
    });
    const runtime = createRuntime();
    runtime.registerToolset({ toolset: "util", specs: [echo, fail], caller });
    const readOnly = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(readOnly).toMatchObject({
      kind: "internal",
      reason: "caller_failed",
      source: "local",
      recovery: { action: "retry" },
      tool: "util.echo",
    });
    expect(readOnly.message).toBe("thrower: the caller threw: socket died, token=[redacted]");
    expect(readOnly.rpc).toBeUndefined();
    const unsafe = failureOf(await runtime.execute({ tool: "util.fail", arguments: { text: "a" } }));
    expect(unsafe).toMatchObject({ reason: "caller_failed", recovery: { action: "replan" }, tool: "util.fail" });
    expect(unsafe.message).toMatch(/not safe to repeat as is: util\.fail/);
  });

  it("validates a payload once per call: the runtime checks it before confirmation and the typed path does not check it again", async () => {
    let decodes = 0;
    const counted = { ...echo, decodePayload: (v: unknown) => (decodes++, echo.decodePayload(v)) };
    const runtime = createRuntime();
    runtime.registerToolset({ toolset: "util", specs: [counted], caller: createInMemoryCaller("mem", { echo: () => ({ content: [] }) }) });
    expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
    expect(decodes).toBe(1);
    const bad = await runtime.execute({ tool: "util.echo", arguments: { text: 1 } });
    expect(bad.ok || bad.failure.recovery.action).toBe("correct_call");
    expect(decodes).toBe(2);
  });

  it("tool timeout backstop: a caller that ignores timeoutMs and the signal still yields a timeout", async () => {
    const caller = callerFunc("stuck", () => new Promise(() => {}));
    const runtime = createRuntime({ policy: { toolTimeoutMs: 20 } });
    runtime.registerToolset({ toolset: "util", specs: [echo], caller });
    const f = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(f).toMatchObject({ kind: "timeout", reason: "tool_timeout", server: "stuck" });
  });

  it("with resetTimeoutOnProgress the backstop waits for maxTotalTimeoutMs, not the per-answer timeout", async () => {
    const seen: CallOptions[] = [];
    const caller = callerFunc("progressive", (_req, options) => {
      seen.push(options);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ ok: true, value: ok("done") }), 200);
        options.signal?.addEventListener("abort", () => clearTimeout(timer)); // no timer left behind
      });
    });
    const runtime = createRuntime({ policy: { toolTimeoutMs: 20 } });
    runtime.registerToolset({ toolset: "util", specs: [echo], caller });
    const r = await runtime.execute(
      { tool: "util.echo", arguments: { text: "a" } },
      { resetTimeoutOnProgress: true, maxTotalTimeoutMs: 5000 },
    );
    expect(r).toMatchObject({ ok: true, value: "done" });
    expect(seen[0]).toMatchObject({ timeoutMs: 20, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 5000 });
    const cut = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(cut).toMatchObject({ kind: "timeout", reason: "tool_timeout" });
  });

  it("a timed-out call to a tool not declared read-only or idempotent is replan, not retry", async () => {
    const caller = callerFunc("stuck", () => new Promise(() => {}));
    const runtime = createRuntime({ policy: { toolTimeoutMs: 20 } });
    const send = spec("util", "send_mail", { to: "string" });
    const put = spec("util", "put", { key: "string" }, { annotations: { idempotent: true } });
    runtime.registerToolset({ toolset: "util", specs: [send, put], caller });
    const f = failureOf(await runtime.execute({ tool: "util.send_mail", arguments: { to: "a" } }));
    expect(f).toMatchObject({ kind: "timeout", reason: "tool_timeout", recovery: { action: "replan" }, retryable: false });
    expect(f.message).toMatch(/not safe to repeat/);
    const g = failureOf(await runtime.execute({ tool: "util.put", arguments: { key: "a" } }));
    expect(g).toMatchObject({ kind: "timeout", recovery: { action: "retry" }, retryable: true });
  });

  it("a server internal error (-32603) on a non-idempotent tool is replan; on a read-only tool it stays retry", async () => {
    const runtime = createRuntime();
    runtime.registerToolset({
      toolset: "util",
      specs: [spec("util", "send_mail", { to: "string" }), { ...echo, name: "echo" }],
      caller: faultyCaller(
        "mem",
        ["send_mail", "echo"],
        [{ tool: "*", fault: { kind: "rpc-error", code: -32603, message: "database exploded" } }],
      ),
    });
    const f = failureOf(await runtime.execute({ tool: "util.send_mail", arguments: { to: "a" } }));
    expect(f).toMatchObject({ kind: "internal", rpc: { code: -32603 }, recovery: { action: "replan" }, retryable: false });
    const g = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(g).toMatchObject({ kind: "internal", recovery: { action: "retry" }, retryable: true });
  });

  it("a budget shorter than the tool timeout cuts the call and ends the run", async () => {
    const caller = callerFunc("stuck", () => new Promise(() => {}));
    const runtime = createRuntime({ policy: { toolTimeoutMs: 60_000, timeBudgetMs: 20 } });
    runtime.registerToolset({ toolset: "util", specs: [echo], caller });
    const f = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(f).toMatchObject({ kind: "timeout", reason: "time_budget", recovery: { action: "finish" } });
  });

  it("the caller's abort signal cancels the call as canceled / finish", async () => {
    // A real server session whose every call hangs (testkit fault), not a hand-made promise that never settles.
    const caller = faultyCaller("stuck", ["echo"], [{ tool: "*", fault: { kind: "hang" } }]);
    const runtime = createRuntime();
    runtime.registerToolset({ toolset: "util", specs: [echo], caller });
    const controller = new AbortController();
    const pending = runtime.execute({ tool: "util.echo", arguments: { text: "a" } }, { signal: controller.signal });
    controller.abort();
    expect(failureOf(await pending)).toMatchObject({ kind: "canceled", recovery: { action: "finish" } });
  });
});

describe("boundaries", () => {
  it("maxToolCalls holds under parallel calls, even across an async confirmation hook", async () => {
    const { runtime, caller } = setup({ policy: { maxToolCalls: 3 }, confirm: async () => true });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => runtime.execute({ tool: i % 2 ? "util.wipe" : "util.echo", arguments: { text: "a" } })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(results.filter((r) => !r.ok).map((r) => failureOf(r).reason)).toEqual(Array(7).fill("max_tool_calls"));
    expect(caller.calls).toHaveLength(3);
  });

  it("an impossible failure from a third-party caller becomes a valid internal / replan failure", async () => {
    const caller = callerFunc("bad", () => ({
      ok: false,
      failure: {
        kind: "invalid_call",
        message: "fix it",
        recovery: { action: "finish", priorInput: { a: 1 } },
        tool: "x",
        server: "bad",
        retryable: true,
      },
    }));
    const runtime = createRuntime();
    runtime.registerToolset({ toolset: "util", specs: [echo], caller });
    const f = failureOf(await runtime.execute({ tool: "util.echo", arguments: { text: "a" } }));
    expect(f).toMatchObject({ kind: "internal", recovery: { action: "replan" }, tool: "util.echo", server: "bad" });
    expect(f.message).toMatch(/invalid failure \(fix it\).*finish carries no correction data/);
  });
});

describe("confirmation hook", () => {
  it("is asked before destructive tools; denial is canceled / replan and nothing is sent", async () => {
    const asked: unknown[] = [];
    const { runtime, caller } = setup({
      confirm: (s, payload) => {
        asked.push([s.id, payload]);
        return false;
      },
    });
    const f = failureOf(await runtime.execute({ tool: "util.wipe", arguments: { text: "all" } }));
    expect(f).toMatchObject({ kind: "canceled", reason: "confirmation_denied", recovery: { action: "replan" } });
    expect(asked).toEqual([["util.wipe", { text: "all" }]]);
    expect(caller.calls).toHaveLength(0);
    expect((await runtime.execute({ tool: "util.echo", arguments: { text: "a" } })).ok).toBe(true);
    expect(asked).toHaveLength(1);
  });

  it("approval runs the tool; a throwing hook counts as denial", async () => {
    let answer: () => Promise<boolean> = async () => true;
    const { runtime, caller } = setup({ confirm: () => answer() });
    expect(await runtime.execute({ tool: "util.guarded", arguments: { text: "a" } })).toMatchObject({ ok: true, value: "guarded" });
    answer = async () => {
      throw new Error("ui closed");
    };
    expect(failureOf(await runtime.execute({ tool: "util.guarded", arguments: { text: "a" } })).reason).toBe("confirmation_denied");
    expect(caller.calls).toHaveLength(1);
  });

  it("without a hook: destructive tools run, requiresConfirmation tools are denied", async () => {
    const { runtime } = setup();
    expect((await runtime.execute({ tool: "util.wipe", arguments: { text: "a" } })).ok).toBe(true);
    expect(failureOf(await runtime.execute({ tool: "util.guarded", arguments: { text: "a" } })).message).toMatch(/no confirmation hook/);
  });
});

describe("telemetry events", () => {
  it("emits started then finished or failed, with durations, server, tool and kind", async () => {
    const events: RuntimeEvent[] = [];
    const { runtime } = setup({
      onEvent: (e) => {
        events.push(e);
        throw new Error("a broken listener must not break calls");
      },
    });
    await runtime.execute({ tool: "util.echo", arguments: { text: "a" }, callId: "c1" });
    await runtime.execute({ tool: "util.fail", arguments: { text: "a" } });
    await runtime.execute({ tool: "ghost", arguments: {} });
    expect(events.map((e) => e.type)).toEqual([
      "call_started",
      "call_finished",
      "call_started",
      "call_failed",
      "call_started",
      "call_failed",
    ]);
    expect(events[1]).toMatchObject({ tool: "util.echo", toolset: "util", server: "mem", callId: "c1" });
    expect(events[3]).toMatchObject({ tool: "util.fail", kind: "domain_rejection", action: "replan", sent: true });
    expect(events[5]).toMatchObject({ tool: "ghost", server: "", kind: "invalid_call", reason: "tool_unavailable", sent: false });
    for (const e of events) if (e.type !== "call_started") expect(e.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("accepts the listener grouped under telemetry too", async () => {
    const events: RuntimeEvent[] = [];
    const { runtime } = setup({ telemetry: { onEvent: (e) => events.push(e) } });
    await runtime.execute({ tool: "util.echo", arguments: { text: "a" } });
    expect(events.map((e) => e.type)).toEqual(["call_started", "call_finished"]);
  });
});
