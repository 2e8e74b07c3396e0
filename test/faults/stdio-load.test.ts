/**
 * Load under random crashes over stdio: 10,000 calls, 64 in flight, the server exits on about one
 * call in 500. Every call resolves once, as a result or as a retryable `unavailable` that then
 * succeeds on retry; nothing is lost or cross-wired, and nothing is left behind.
 */
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { scriptedServer } from "../support/scripted-stdio-server.js";

const CALLS = 10_000;
const IN_FLIGHT = 64;
const MAX_ATTEMPTS = 25;

let leaks: LeakCheck;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(() => {
  // Our own listener goes in first so the leak check's baseline includes it.
  process.on("unhandledRejection", onUnhandled);
  leaks = createLeakCheck();
});

afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  leaks.dispose();
});

it("10,000 calls with 64 in flight against a server that crashes at random: none lost", async () => {
  const server = scriptedServer({ crashRate: 1 / 500 });
  const caller = createStdioCaller({
    name: "crashy",
    command: server.command,
    args: server.args,
    env: server.env,
    timeoutMs: 15_000,
    connectTimeoutMs: 10_000,
    restartDelayMs: 5,
    maxRestartDelayMs: 50,
    closeGraceMs: 200,
  });
  const resolutions = new Array<number>(CALLS).fill(0);
  const successes = new Array<number>(CALLS).fill(0);
  const unexpected: string[] = [];
  let attempts = 0;
  let unavailable = 0;
  const reasons = new Map<string, number>();
  let next = 0;

  async function one(i: number): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      attempts++;
      const r = await caller.callTool({ name: "echo", arguments: { i, attempt } });
      resolutions[i] = (resolutions[i] as number) + 1;
      if (r.ok) {
        const got = r.value.structuredContent as { i: number; attempt: number };
        if (got.i !== i || got.attempt !== attempt) unexpected.push(`call ${i} got the answer for ${JSON.stringify(got)}`);
        successes[i] = (successes[i] as number) + 1;
        return;
      }
      if (r.failure.kind !== "unavailable" || !r.failure.retryable) {
        unexpected.push(`call ${i}: ${r.failure.kind} ${r.failure.message}`);
        return;
      }
      unavailable++;
      const reason = r.failure.message.replace(/\d+/g, "N");
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    unexpected.push(`call ${i}: still unavailable after ${MAX_ATTEMPTS} attempts`);
  }

  async function worker(): Promise<void> {
    while (next < CALLS) await one(next++);
  }

  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await caller.close();
  }
  const pids = server.pids();
  leaks.track(pids);
  const crashes = pids.length - 1;
  const report = await leaks.check();
  server.dispose();

  console.info(
    `[stdio-load] calls=${CALLS} attempts=${attempts} crashes(faults injected)=${crashes} unavailable-then-retried=${unavailable} lost=${successes.filter((s) => s !== 1).length} leaked=${report.processes.length + report.handles.length + report.listeners.length}`,
  );
  if (successes.some((n) => n !== 1)) console.info("[stdio-load] retry reasons", [...reasons]);
  expect(unexpected.slice(0, 5)).toEqual([]);
  expect(successes.every((s) => s === 1)).toBe(true);
  // Each attempt resolved exactly once: attempts counted when issued equal resolutions counted when settled.
  expect(resolutions.reduce((a, b) => a + b, 0)).toBe(attempts);
  expect(crashes).toBeGreaterThan(0);
  expect(unavailable).toBeGreaterThan(0);
  expect(unhandled).toEqual([]);
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});
