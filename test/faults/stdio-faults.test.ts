/**
 * Fault matrix over stdio: each test makes the scripted server misbehave for real and asserts what
 * the caller did, on the result and on the wire.
 */
import { createStdioCaller, type StdioCaller, type StdioCallerOptions } from "@toolwright/runtime/stdio";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLeakCheck, isAlive, type LeakCheck } from "../support/leak-check.js";
import { type ScriptedServer, type ScriptedServerOptions, scriptedServer } from "../support/scripted-stdio-server.js";

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

function open(serverOptions: ScriptedServerOptions = {}, callerOptions: Partial<StdioCallerOptions> = {}) {
  const server = scriptedServer(serverOptions);
  const noise: string[] = [];
  const caller = createStdioCaller({
    name: "scripted",
    command: server.command,
    args: server.args,
    env: server.env,
    timeoutMs: 10_000,
    connectTimeoutMs: 30_000,
    restartDelayMs: 10,
    closeGraceMs: 200,
    onNoise: (reason) => noise.push(reason),
    ...callerOptions,
  });
  opened.push({ caller, server });
  return { caller, server, noise };
}

const call = (caller: StdioCaller, name: string, args: Record<string, unknown> = {}, timeoutMs?: number) =>
  caller.callTool({ name, arguments: args }, timeoutMs === undefined ? {} : { timeoutMs });

async function expectEcho(caller: StdioCaller, tag: string) {
  const r = await call(caller, "echo", { tag });
  expect(r.ok && r.value.structuredContent).toEqual({ tag });
}

/** The wire id of the first tools/call for `tool`. */
function wireIdOf(server: ScriptedServer, tool: string) {
  return server.received("tools/call").find((e) => e.msg?.params?.name === tool)?.msg?.id;
}

describe("stdio server exits mid-call", () => {
  it("fails every in-flight call as unavailable with exit code and stderr tail, then restarts", async () => {
    const { caller, server } = open();
    await expectEcho(caller, "before");
    const firstPid = caller.pid;
    const hanging = call(caller, "hang");
    const dying = call(caller, "exit", { code: 42, stderr: "boom: the disk is on fire\n" });
    const [h, d] = await Promise.all([hanging, dying]);
    for (const r of [h, d]) {
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true, exitCode: 42, server: "scripted" });
      expect(r.failure.stderrTail).toContain("boom: the disk is on fire");
    }
    await expectEcho(caller, "after");
    expect(caller.pid).not.toBe(firstPid);
    expect(server.pids()).toHaveLength(2);
    expect(isAlive(firstPid as number)).toBe(false);
  });

  it("a server that closes stdout but keeps running is stopped: unavailable, not a timeout, then restarted", async () => {
    const { caller, server } = open({}, { closeGraceMs: 200 });
    await expectEcho(caller, "before");
    const firstPid = caller.pid as number;
    const r = await call(caller, "close_stdout", {}, 20_000);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true });
      expect(r.failure.message).toMatch(/closed stdout/);
    }
    expect(isAlive(firstPid)).toBe(false);
    await expectEcho(caller, "after");
    expect(server.pids()).toHaveLength(2);
  });

  it("keeps a process-group grandchild from outliving close", async () => {
    const { caller } = open();
    const r = await call(caller, "grandchild");
    const pid = r.ok ? (r.value.structuredContent as { pid: number }).pid : -1;
    expect(isAlive(pid)).toBe(true);
    await caller.close();
    for (let i = 0; i < 1500 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isAlive(pid)).toBe(false);
  });

  it("a command that is a directory, or that exits at once, is unavailable with the cause", async () => {
    const dir = createStdioCaller({ name: "dir", command: "/tmp" });
    const quits = createStdioCaller({
      name: "quits",
      command: process.execPath,
      args: ["-e", "process.stderr.write('bye'); process.exit(0)"],
    });
    const [a, b] = await Promise.all([call(dir, "echo"), call(quits, "echo")]);
    await Promise.all([dir.close(), quits.close()]);
    expect(a).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: false } });
    expect(b).toMatchObject({ ok: false, failure: { kind: "unavailable", exitCode: 0, stderrTail: "bye" } });
  });

  it("reports a missing command as unavailable without retry", async () => {
    const caller = createStdioCaller({ name: "missing", command: "/nonexistent/toolwright-no-such-server" });
    const r = await call(caller, "echo");
    await caller.close();
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "unavailable", retryable: false, server: "missing" });
  });
});

describe("stdio server hangs", () => {
  it("times the call out, sends notifications/cancelled for it, and later calls still work", async () => {
    const { caller, server } = open();
    const r = await call(caller, "hang", {}, 150);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "timeout", retryable: true });
    await expectEcho(caller, "after-hang");
    const id = wireIdOf(server, "hang");
    expect(id).toBeDefined();
    const cancels = server.received("notifications/cancelled");
    expect(cancels.map((c) => c.msg?.params?.requestId)).toEqual([id]);
    expect(server.pids()).toHaveLength(1);
  });

  it("progress keep-alives forever: resetTimeoutOnProgress is capped by maxTotalTimeoutMs, cancel is sent, later calls work", async () => {
    const { caller, server } = open();
    let seen = 0;
    const r = await caller.callTool(
      { name: "progress_forever", arguments: { everyMs: 20 } },
      {
        timeoutMs: 150,
        resetTimeoutOnProgress: true,
        maxTotalTimeoutMs: 600,
        onProgress: () => {
          seen++;
          // A throwing progress callback must not break the session either.
          if (seen === 2) throw new Error("planner bug in onProgress");
        },
      },
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "timeout", retryable: true });
    expect(seen).toBeGreaterThan(2);
    // Progress reset the 150 ms timeout, so the call ran on to the 600 ms total cap (far past 150 ms).
    const waited = r.ok ? 0 : Number(/within (\d+) ms/.exec(r.failure.message)?.[1]);
    expect(waited).toBeGreaterThan(550);
    const id = wireIdOf(server, "progress_forever");
    for (let i = 0; i < 3000 && server.received("notifications/cancelled").length === 0; i++)
      await new Promise((res) => setTimeout(res, 10));
    expect(server.received("notifications/cancelled").map((c) => c.msg?.params?.requestId)).toEqual([id]);
    await expectEcho(caller, "after-progress");
  });

  it("cancels on abort with notifications/cancelled on the wire", async () => {
    const { caller, server } = open();
    await caller.connect();
    const controller = new AbortController();
    const pending = caller.callTool({ name: "hang", arguments: {} }, { signal: controller.signal });
    for (let i = 0; i < 3000 && wireIdOf(server, "hang") === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const r = await pending;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("canceled");
    await expectEcho(caller, "after-abort");
    expect(server.received("notifications/cancelled").map((c) => c.msg?.params?.requestId)).toEqual([wireIdOf(server, "hang")]);
  });
});

describe("garbage on stdout", () => {
  it("ignores and reports non-JSON, partial and non-RPC lines; the session survives", async () => {
    const { caller, server, noise } = open();
    const lines = [
      "this is not json",
      '{"jsonrpc":"2.0","id":',
      "[1,2,3]",
      "42",
      "\u0000\u0001\u00ff binary",
      '{"foo":"bar"}',
      '{"jsonrpc":"2.0","id":{"nested":true},"result":{}}',
    ];
    const r = await call(caller, "garbage", { lines });
    expect(r.ok && r.value.structuredContent).toEqual({ survived: true });
    expect(noise.length).toBeGreaterThanOrEqual(lines.length);
    await expectEcho(caller, "after-garbage");
    expect(server.pids()).toHaveLength(1);
  });

  it("reassembles an answer written a few bytes at a time", async () => {
    const { caller } = open();
    const r = await call(caller, "dribble", { step: 3, payload: "ü€😀".repeat(20) });
    expect(r.ok && r.value.structuredContent).toEqual({ step: 3, payload: "ü€😀".repeat(20) });
  });
});

describe("a message over the size limit", () => {
  it("fails that call clearly, not by timeout, and the session survives or restarts cleanly", async () => {
    const { caller, noise } = open({}, { maxMessageBytes: 64 * 1024 });
    const concurrent = call(caller, "slow", { ms: 100, tag: "bystander" });
    const r = await call(caller, "oversize", { bytes: 4 * 1024 * 1024 }, 20_000);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure.kind).toBe("malformed_result");
      expect(r.failure.message).toMatch(/65536|64 ?KiB|size|larger/i);
    }
    expect(noise.some((n) => /larger than/.test(n))).toBe(true);
    const b = await concurrent;
    expect(b.ok && b.value.structuredContent).toEqual({ ms: 100, tag: "bystander" });
    await expectEcho(caller, "after-oversize");
  });
});

describe("stray responses", () => {
  it("ignores responses for unknown ids and resolves the real call with its own answer", async () => {
    const { caller, noise } = open();
    const r = await call(caller, "unknown_id", { tag: "mine" });
    expect(r.ok && r.value.structuredContent).toEqual({ tag: "mine" });
    expect(noise.filter((n) => /unknown id/.test(n))).toHaveLength(3);
  });

  it("takes the first of duplicate responses and never hands the second to another call", async () => {
    const { caller, noise } = open();
    const [dup, next] = await Promise.all([call(caller, "duplicate"), call(caller, "echo", { tag: "next" })]);
    expect(dup.ok && dup.value.content).toEqual([{ type: "text", text: "first" }]);
    expect(next.ok && next.value.structuredContent).toEqual({ tag: "next" });
    await expectEcho(caller, "after-duplicate");
    expect(noise.filter((n) => /unknown id/.test(n))).toHaveLength(1);
  });

  it("ignores a response that arrives after the call was cancelled", async () => {
    const { caller, server, noise } = open();
    const r = await call(caller, "late", {}, 100);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("timeout");
    for (let i = 0; i < 3000 && !noise.some((n) => /unknown id/.test(n)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(noise.filter((n) => /unknown id/.test(n))).toHaveLength(1);
    const next = await call(caller, "echo", { tag: "fresh" });
    expect(next.ok && next.value.structuredContent).toEqual({ tag: "fresh" });
    expect(server.received("notifications/cancelled")).toHaveLength(1);
  });
});

describe("server-to-client requests", () => {
  it("an argument JSON cannot carry fails that call alone: nothing is written, the same child serves the next call", async () => {
    const { caller, server } = open();
    await expectEcho(caller, "before");
    const pid = caller.pid;
    const r = await call(caller, "echo", { tag: 10n });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.message).toContain("BigInt");
    await expectEcho(caller, "after");
    expect(caller.pid).toBe(pid);
    expect(server.pids()).toHaveLength(1);
    expect(server.received("tools/call").map((e) => e.msg?.params?.arguments?.tag)).toEqual(["before", "after"]);
  });

  it("answers an unknown method with -32601", async () => {
    const { caller, server } = open();
    const r = await call(caller, "ask_client", { method: "toolwright/no-such-method" });
    const answer = r.ok ? (r.value.structuredContent as { id: string; error?: { code: number } }) : undefined;
    expect(answer?.error?.code).toBe(-32601);
    const wired = server.wire().find((e) => e.event === "in" && e.msg?.id === answer?.id && e.msg?.method === undefined);
    expect(wired?.msg).toMatchObject({ jsonrpc: "2.0", error: { code: -32601 } });
  });
});

describe("initialize faults", () => {
  it("a server that never answers initialize: connect timeout, unavailable, child killed, initialize never cancelled", async () => {
    // The deadline must fall after the child started and read initialize: 300 ms did not on a loaded machine.
    const { caller, server } = open({ init: "never" }, { connectTimeoutMs: 5_000 });
    const r = await call(caller, "echo");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ kind: "unavailable", retryable: true });
    const [pid] = server.pids();
    expect(pid).toBeDefined();
    // The failure answers at the deadline; stopping the child goes on in the background and close() waits for it.
    await caller.close();
    expect(isAlive(pid as number)).toBe(false);
    expect(server.received("initialize")).toHaveLength(1);
    expect(server.received("notifications/cancelled")).toHaveLength(0);
  });

  it("a server that exits on initialize: unavailable with exit code and stderr", async () => {
    const { caller } = open({ init: "exit" });
    const r = await call(caller, "echo");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure).toMatchObject({ kind: "unavailable", exitCode: 7 });
      expect(r.failure.stderrTail).toContain("refusing to initialize");
    }
  });
});
