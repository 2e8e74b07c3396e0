/**
 * The durable seam on the in-memory engine: replay never re-sends, an unknown outcome of a
 * non-idempotent call is reported (not re-sent), retries only for repeatable tools with durable
 * backoff, policy counters survive a crash, approvals are durable waits. Crashes are injected with
 * `engine.crash()` while a call is held open on the "server".
 */
import { describe, expect, it, vi } from "vitest";
import { objectDecoder } from "../../../../test/failures/fixtures.js";
import { type Caller, type CallOptions, type CallRequest, type CallResponse, callerFunc } from "../caller/caller.js";
import type { ToolResult, ToolSpec } from "../caller/tool-spec.js";
import { createRuntime } from "../core/runtime.js";
import { validateFailure } from "../failure/failure.js";
import { failureFromFault } from "../failure/failure-mapping.js";
import { IDEMPOTENCY_KEY_META } from "./durable.js";
import { createInMemoryDurableEngine, DurableCrashError } from "./durable-memory.js";
import { APPROVAL_EVENT, type ApprovalRequest, ASK_EVENT, createDurableRun, type DurableRun } from "./durable-run.js";

function spec(name: string, extra: Partial<ToolSpec> = {}): ToolSpec {
  return {
    id: `ledger.${name}`,
    toolset: "ledger",
    name,
    providerName: `ledger_${name}`,
    inputSchema: { type: "object" },
    decodePayload: objectDecoder({ text: "string" }, ["text"]),
    ...extra,
  };
}

const append = spec("append");
const read = spec("read", { annotations: { readOnly: true } });
const put = spec("put", { annotations: { idempotent: true } });
const wipe = spec("wipe", { annotations: { destructive: true } });

/** A fake server: records every request it receives; `hold` keeps the next matching call open until released. */
function setup(policy: Parameters<typeof createRuntime>[0] = {}) {
  const received: CallRequest[] = [];
  const failNext: CallResponse[] = [];
  let hold: { name: string; entered: () => void } | undefined;
  const caller = callerFunc("ledger-server", async (request) => {
    received.push(request);
    const failure = request.name === "put" || request.name === "append" ? failNext.shift() : undefined;
    if (failure) return failure;
    if (hold && hold.name === request.name) {
      hold.entered();
      await new Promise(() => undefined); // the worker "dies" while the call is open
    }
    return { ok: true, value: { content: [{ type: "text", text: `${request.name}:${String(request.arguments.text)}` }] } };
  });
  const runtime = createRuntime(policy);
  runtime.registerToolset({ toolset: "ledger", specs: [append, read, put, wipe], caller });
  const holdNext = (name: string) => new Promise<void>((entered) => (hold = { name, entered }));
  const release = () => (hold = undefined);
  return { runtime, received, failNext, holdNext, release };
}

const texts = (results: readonly ToolResult<unknown>[]) => results.map((r) => (r.ok ? r.value : `${r.failure.reason ?? r.failure.kind}`));

async function script(run: DurableRun, calls: readonly [string, string][]) {
  const out: ToolResult<unknown>[] = [];
  for (const [tool, text] of calls) out.push(await run.execute({ tool: `ledger.${tool}`, arguments: { text } }));
  return out;
}

describe("durable run on the in-memory engine", () => {
  it("replays recorded calls after a crash between calls and sends each once, with its idempotency key", async () => {
    const { runtime, received, holdNext, release } = setup();
    const engine = createInMemoryDurableEngine();
    const calls: [string, string][] = [
      ["append", "a"],
      ["read", "b"],
      ["append", "c"],
    ];
    const body = async (ctx: Parameters<Parameters<typeof engine.run>[1]>[0]) =>
      texts(await script(createDurableRun(ctx, { runtime }), calls));
    const held = holdNext("read");
    const first = engine.run("r1", body).catch((e: unknown) => e);
    await held; // call 0 recorded, call 1 open
    engine.crash("r1");
    expect(await first).toBeInstanceOf(DurableCrashError);
    release();
    expect(await engine.run("r1", body)).toEqual(["append:a", "read:b", "append:c"]);
    const appends = received.filter((r) => r.name === "append");
    expect(appends.map((r) => r.meta?.[IDEMPOTENCY_KEY_META])).toEqual(["r1/0", "r1/2"]);
    expect(received.filter((r) => r.name === "read")).toHaveLength(2); // read-only: sending again is fine
  });

  it("reports an unknown outcome for a non-idempotent call whose worker died mid-call, and does not re-send it", async () => {
    const { runtime, received, holdNext, release } = setup();
    const engine = createInMemoryDurableEngine({ executorId: "worker-a" });
    const body = async (ctx: Parameters<Parameters<typeof engine.run>[1]>[0]) =>
      script(createDurableRun(ctx, { runtime }), [
        ["append", "a"],
        ["read", "b"],
      ]);
    const held = holdNext("append");
    const first = engine.run("r2", body).catch((e: unknown) => e);
    await held;
    engine.crash("r2");
    await first;
    release();
    const [appended, readBack] = await engine.run("r2", body);
    expect(received.filter((r) => r.name === "append")).toHaveLength(1);
    if (appended?.ok !== false) throw new Error("expected the unknown outcome");
    expect(validateFailure(appended.failure)).toEqual([]);
    expect(appended.failure).toMatchObject({
      kind: "internal",
      reason: "outcome_unknown",
      recovery: { action: "replan" },
      retryable: false,
      durable: { runId: "r2", call: 0, idempotencyKey: "r2/0", sentBy: "worker-a", foundBy: "worker-a" },
    });
    expect(appended.failure.message).toContain("not sent again");
    expect(readBack).toMatchObject({ ok: true, value: "read:b" });
  });

  it("retries a retryable failure of an idempotent tool after a durable sleep of retryAfterMs, never a non-idempotent one", async () => {
    const { runtime, received, failNext } = setup();
    const engine = createInMemoryDurableEngine();
    const limited = failureFromFault({ type: "http", status: 429, message: "slow down", retryAfterMs: 30 }, { tool: "put", server: "s" });
    expect(limited).toMatchObject({ kind: "rate_limited", retryable: true, retryAfterMs: 30 });
    failNext.push({ ok: false, failure: limited });
    const put1 = await engine.run("r3", async (ctx) =>
      createDurableRun(ctx, { runtime, retry: { baseDelayMs: 5 } }).execute({ tool: "ledger.put", arguments: { text: "x" } }),
    );
    expect(put1).toMatchObject({ ok: true, value: "put:x" });
    expect(engine.journal("r3").map((e) => e.name)).toContain("sleep 30");
    failNext.push({ ok: false, failure: { ...limited, tool: "append" } });
    const append1 = await engine.run("r4", async (ctx) =>
      createDurableRun(ctx, { runtime }).execute({ tool: "ledger.append", arguments: { text: "y" } }),
    );
    expect(append1).toMatchObject({ ok: false, failure: { kind: "rate_limited" } });
    expect(received.filter((r) => r.name === "append")).toHaveLength(1);
    expect(received.filter((r) => r.name === "put").map((r) => r.meta?.[IDEMPOTENCY_KEY_META])).toEqual(["r3/0", "r3/0"]);
  });

  it("keeps the tool-call count across a crash: the cap holds for the whole run", async () => {
    const { runtime, received, holdNext, release } = setup({ policy: { maxToolCalls: 3 } });
    const engine = createInMemoryDurableEngine();
    const calls: [string, string][] = [
      ["append", "1"],
      ["append", "2"],
      ["read", "3"],
      ["append", "4"],
    ];
    const body = async (ctx: Parameters<Parameters<typeof engine.run>[1]>[0]) =>
      texts(await script(createDurableRun(ctx, { runtime }), calls));
    const held = holdNext("read");
    const first = engine.run("r5", body).catch((e: unknown) => e);
    await held;
    engine.crash("r5");
    await first;
    release();
    expect(await engine.run("r5", body)).toEqual(["append:1", "append:2", "read:3", "max_tool_calls"]);
    expect(received.filter((r) => r.name === "append")).toHaveLength(2);
  });

  it("waits durably for an approval of a destructive tool, across a crash, and runs it once approved", async () => {
    const { runtime, received } = setup();
    const engine = createInMemoryDurableEngine();
    const notified: ApprovalRequest[] = [];
    const body = async (ctx: Parameters<Parameters<typeof engine.run>[1]>[0]) =>
      texts(await script(createDurableRun(ctx, { runtime, confirmation: { onRequest: (r) => void notified.push(r) } }), [["wipe", "all"]]));
    const first = engine.run("r6", body).catch((e: unknown) => e);
    // Wait for the event, not for a time (a loaded machine can take longer than any fixed budget).
    await vi.waitFor(() => expect(engine.getEvent("r6", APPROVAL_EVENT)).toBeDefined(), { timeout: 30_000, interval: 5 });
    const pending = engine.getEvent("r6", APPROVAL_EVENT) as ApprovalRequest;
    expect(pending).toMatchObject({ runId: "r6", tool: "ledger.wipe", arguments: { text: "all" } });
    engine.crash("r6");
    await first;
    const second = engine.run("r6", body);
    engine.send("r6", pending.topic, { approved: true, by: "ops" });
    expect(await second).toEqual(["wipe:all"]);
    expect(notified).toHaveLength(1); // the request step ran once, not again on resume
    expect(received.filter((r) => r.name === "wipe")).toHaveLength(1);
    const denied = await engine.run("r7", async (ctx) => {
      const run = createDurableRun(ctx, { runtime, confirmation: { timeoutMs: 20 } });
      return run.execute({ tool: "ledger.wipe", arguments: { text: "x" } });
    });
    expect(denied).toMatchObject({ ok: false, failure: { reason: "confirmation_denied" } });
  });

  it("gives generated typed clients a durable caller", async () => {
    const { runtime, received } = setup();
    const engine = createInMemoryDurableEngine();
    const { invokeTool } = await import("../caller/invoke.js");
    const body = async (ctx: Parameters<Parameters<typeof engine.run>[1]>[0]) => {
      const run = createDurableRun(ctx, { runtime });
      const caller = run.caller("ledger");
      return [await invokeTool(caller, append, { text: "t" }), await invokeTool(caller, read, { text: "u" })];
    };
    const results = await engine.run("r8", body);
    expect(texts(results)).toEqual(["append:t", "read:u"]);
    expect(received.map((r) => r.meta?.[IDEMPOTENCY_KEY_META])).toEqual(["r8/0", "r8/1"]);
    await expect(engine.run("r9", async (ctx) => createDurableRun(ctx, { runtime }).caller("nope"))).rejects.toThrow(
      /no toolset named "nope"/,
    );
  });

  it("keeps the time budget across a crash: it is spent from recorded times, so a replay decides the same", async () => {
    const { runtime, received } = setup({ policy: { timeBudgetMs: 40 } });
    const engine = createInMemoryDurableEngine();
    const body = async (ctx: Parameters<Parameters<typeof engine.run>[1]>[0]) => {
      const run = createDurableRun(ctx, { runtime });
      const first = await run.execute({ tool: "ledger.append", arguments: { text: "1" } });
      await run.step("model: think", () => new Promise((resolve) => setTimeout(resolve, 60)));
      return [first, await run.execute({ tool: "ledger.append", arguments: { text: "2" } })];
    };
    const [first, late] = await engine.run("r10", body);
    expect(first).toMatchObject({ ok: true });
    expect(late).toMatchObject({ ok: false, failure: { reason: "time_budget", recovery: { action: "finish" } } });
    expect(received.filter((r) => r.name === "append")).toHaveLength(1);
  });

  it("asks durably (elicitation): the question is published, a crash does not lose it, the answer resumes the run", async () => {
    const { runtime } = setup();
    const engine = createInMemoryDurableEngine();
    const body = async (ctx: Parameters<Parameters<typeof engine.run>[1]>[0]) =>
      createDurableRun(ctx, { runtime }).ask<string>("colour", { question: "Which colour?" }, 10_000);
    const first = engine.run("r11", body).catch((e: unknown) => e);
    await vi.waitFor(() => expect(engine.getEvent("r11", ASK_EVENT)).toBeDefined(), { timeout: 30_000, interval: 5 });
    expect(engine.getEvent("r11", ASK_EVENT)).toEqual({ topic: "colour", prompt: { question: "Which colour?" } });
    engine.crash("r11");
    expect(await first).toBeInstanceOf(DurableCrashError);
    const second = engine.run("r11", body);
    engine.send("r11", "colour", "blue");
    expect(await second).toBe("blue");
    expect(engine.getEvent("r11", ASK_EVENT)).toBeNull();
  });

  it("records one step for a read-only call and intent + call for any other, by the spec execute resolved", async () => {
    const calls: CallRequest[] = [];
    const caller = callerFunc("echo-server", async (request) => {
      calls.push(request);
      return { ok: true, value: { content: [{ type: "text", text: "echoed" }] } };
    });
    const runtime = createRuntime();
    // Two specs over one wire name (as a bench does): the id decides the annotations, not the name.
    const readEcho = { ...spec("echo", { annotations: { readOnly: true } }), id: "ledger.read-echo", providerName: "ledger_read_echo" };
    const writeEcho = { ...spec("echo"), id: "ledger.write-echo", providerName: "ledger_write_echo" };
    runtime.registerToolset({ toolset: "ledger", specs: [readEcho, writeEcho], caller });
    const engine = createInMemoryDurableEngine();
    await engine.run("r12", async (ctx) => {
      const run = createDurableRun(ctx, { runtime });
      await run.execute({ tool: "ledger.read-echo", arguments: { text: "a" } });
      await run.execute({ tool: "ledger.write-echo", arguments: { text: "b" } });
    });
    expect(engine.journal("r12").map((e) => e.name)).toEqual([
      "run started",
      "call 0.0 ledger.read-echo",
      "call 1.0 ledger.write-echo intent",
      "call 1.0 ledger.write-echo",
    ]);
    expect(calls).toHaveLength(2);
  });
});

describe("durable run deadlines with a caller that ignores timeoutMs", () => {
  /** A caller that ignores `timeoutMs` and its signal: it answers only once released (the fault under test). */
  function deafCaller() {
    const seen: CallOptions[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const caller: Caller = {
      server: "deaf-server",
      async callTool(request, options = {}) {
        seen.push(options);
        await gate;
        return { ok: true, value: { content: [{ type: "text", text: `late:${String(request.arguments?.text)}` }] } };
      },
    };
    return { caller, seen, release };
  }

  it.each([
    { name: "tool timeout", policy: { toolTimeoutMs: 30 }, reason: "tool_timeout" },
    { name: "time budget", policy: { timeBudgetMs: 30 }, reason: "time_budget" },
  ])("$name: the run answers with runtime.execute's failure, and the late answer is never recorded", async ({ policy, reason }) => {
    const { caller, seen, release } = deafCaller();
    const plain = createRuntime({ policy });
    plain.registerToolset({ toolset: "ledger", specs: [append, put], caller });
    const durable = createRuntime({ policy });
    durable.registerToolset({ toolset: "ledger", specs: [append, put], caller });
    const engine = createInMemoryDurableEngine();
    const results = await engine.run("deaf", async (ctx) => {
      const run = createDurableRun(ctx, { runtime: durable, retry: { maxAttempts: 1 } });
      return [
        await run.execute({ tool: "ledger.append", arguments: { text: "a" } }),
        await run.execute({ tool: "ledger.put", arguments: { text: "b" } }),
      ];
    });
    const expected = [
      await plain.execute({ tool: "ledger.append", arguments: { text: "a" } }),
      await plain.execute({ tool: "ledger.put", arguments: { text: "b" } }),
    ];
    expect(expected.map((r) => (r.ok ? "ok" : r.failure.reason))).toEqual([reason, reason]); // the reference itself is a deadline failure
    const shape = (r: ToolResult<unknown>) =>
      r.ok ? r : { kind: r.failure.kind, reason: r.failure.reason, recovery: r.failure.recovery, retryable: r.failure.retryable };
    // Under the time budget the first call spends it, so the second one is stopped before it is sent, as runtime.execute does.
    expect(results.map(shape)).toEqual(expected.map(shape));
    for (const r of results) if (!r.ok) expect(validateFailure(r.failure)).toEqual([]);
    expect(seen.every((o) => o.signal?.aborted === true)).toBe(true); // the ignored call was told to stop too
    const journal = JSON.stringify(engine.journal("deaf"));
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.stringify(engine.journal("deaf"))).toBe(journal); // the late answers wrote nothing into the finished run
    expect(journal).not.toContain("late:");
  });
});
