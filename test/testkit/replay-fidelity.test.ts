/**
 * Transport failures replay as what they were: a session recorded through a real fault (the
 * kit's HTTP fault proxy in front of a real streamable-HTTP server, a stdio server that really
 * exits mid-call) is replayed with no process and no network, and every call fails with the same
 * `ToolFailure` the live call got (kind, recovery action, reason, message, status, exit code,
 * Retry-After), mapped by the runtime's own path; the bearer token is in none of them.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { CallResponse, ToolFailure } from "@toolwright/runtime";
import { createRecordingCaller, createReplayCaller, type FaultPlan, parseCassette, startFaultProxy } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { everythingServer, httpServer, type ToolLog } from "./fault-world.js";

const BEARER = "sk-live-0a1b2c3d4e5f60718293a4b5c6d7e8f9";
const require = createRequire(import.meta.url);
const tsxCli = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));
const script = fileURLToPath(new URL("./fixtures/faulty-stdio-server.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** What the planner acts on, and what it is told. */
function facts(response: CallResponse): Partial<ToolFailure> & { action?: string } {
  expect(response.ok).toBe(false);
  if (response.ok) return {};
  const f = response.failure;
  return {
    kind: f.kind,
    action: f.recovery.action,
    reason: f.reason,
    message: f.message,
    source: f.source,
    retryable: f.retryable,
    httpStatus: f.httpStatus,
    exitCode: f.exitCode,
    retryAfterMs: f.retryAfterMs,
    rpc: f.rpc,
  };
}

type Step = { readonly message: string };
const echo = (message: string) => ({ name: "echo", arguments: { message } });

/** Calls echo once per step, live through `caller`, and returns every response. */
async function session(caller: { callTool(r: ReturnType<typeof echo>): Promise<CallResponse> }, steps: readonly Step[]) {
  const out: CallResponse[] = [];
  for (const step of steps) out.push(await caller.callTool(echo(step.message)));
  return out;
}

async function recordAndReplay(record: Parameters<typeof createRecordingCaller>[0], steps: readonly Step[]) {
  const recording = createRecordingCaller(record, { server: "everything" });
  const live = await session(recording.caller, steps);
  const cassette = recording.cassette();
  await recording.close();
  const replay = createReplayCaller(cassette);
  closers.push(() => replay.close());
  const replayed = await session(replay, steps);
  expect(replay.replay.remaining()).toBe(0);
  return { live, replayed, cassette };
}

describe("HTTP transport failures replay as HTTP failures", () => {
  const cases: [string, FaultPlan, Partial<ToolFailure> & { action?: string }][] = [
    ["a reset socket mid-call", [{ tool: "echo", call: 1, fault: { kind: "crash" } }], { kind: "unavailable", action: "retry" }],
    [
      "404 session gone on every try (re-initialized once, live and replayed)",
      [
        { tool: "echo", call: 1, fault: { kind: "session-404" } },
        { tool: "echo", call: 2, fault: { kind: "session-404" } },
      ],
      { kind: "unavailable", action: "replan", httpStatus: 404 },
    ],
    [
      "401 with a Bearer challenge",
      [{ tool: "echo", call: 1, fault: { kind: "unauthorized" } }],
      { kind: "auth_required", action: "finish", httpStatus: 401 },
    ],
    [
      "503 with Retry-After",
      [{ tool: "echo", call: 1, fault: { kind: "http-status", status: 503, headers: { "retry-after": "7" }, body: "busy" } }],
      { kind: "rate_limited", action: "retry", httpStatus: 503, retryAfterMs: 7000 },
    ],
    [
      "500",
      [{ tool: "echo", call: 1, fault: { kind: "http-status", status: 500, body: "boom" } }],
      { kind: "unavailable", action: "retry", httpStatus: 500 },
    ],
  ];

  it.each(cases)("%s: the replayed failure equals the live one", async (_name, plan, expected) => {
    const log: ToolLog = { calls: [] };
    const server = await httpServer(everythingServer(log));
    closers.push(server.close);
    const proxy = await startFaultProxy({ target: server.url, plan });
    closers.push(proxy.close);
    const { live, replayed, cassette } = await recordAndReplay(
      { http: { url: proxy.url, name: "everything", era: "legacy", headers: { Authorization: `Bearer ${BEARER}` } } },
      [{ message: "first" }, { message: "second" }],
    );
    expect(proxy.faults.injected.length).toBeGreaterThan(0);
    const liveFacts = facts(live[0] as CallResponse);
    expect(liveFacts).toMatchObject(expected);
    expect(facts(replayed[0] as CallResponse)).toEqual(liveFacts);
    // The call after the fault: the same outcome (through the same session logic) both ways.
    expect(JSON.stringify(replayed[1])).toBe(JSON.stringify(live[1]));
    expect(JSON.stringify(replayed)).not.toContain(BEARER);
    expect(cassette).not.toContain(BEARER);
    // Recorded as what it was: a fault line, not a JSON-RPC answer.
    expect(parseCassette(cassette).events.some((e) => e.dir === "fault")).toBe(true);
  });
});

describe("a stdio server that exits mid-call replays as a process exit", () => {
  it("unavailable, retry, exit code 70, same message; the next call reconnects both ways", async () => {
    const plan: FaultPlan = [{ tool: "echo", call: 2, fault: { kind: "crash" } }];
    const { live, replayed, cassette } = await recordAndReplay(
      { stdio: { name: "everything", command: process.execPath, args: [tsxCli, script, JSON.stringify(plan)], cwd: root } },
      [{ message: "a" }, { message: "b" }, { message: "c" }],
    );
    expect(live[0]).toMatchObject({ ok: true });
    const liveFacts = facts(live[1] as CallResponse);
    expect(liveFacts).toMatchObject({ kind: "unavailable", action: "retry", exitCode: 70 });
    expect(facts(replayed[1] as CallResponse)).toEqual(liveFacts);
    expect(JSON.stringify(replayed[2])).toBe(JSON.stringify(live[2]));
    expect(live[2]).toMatchObject({ ok: true });
    expect(cassette).toMatch(/"dir":"fault","end":true,"fault":\{"code":"EXIT","exitCode":70/);
  });
});
