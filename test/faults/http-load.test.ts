/**
 * Load under random faults over Streamable HTTP, in both eras: 10,000 calls, 64 in flight, the server answers
 * about one call in 500 with a 503 and drops the connection of about one in 500. Every call
 * resolves once, as a result or as a retryable failure that then succeeds on retry.
 */
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { startScriptedHttpServer } from "../support/scripted-http-server.js";

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
  clearHttpEraCache();
});

afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  leaks.dispose();
});

it.each(["legacy", "2026-07-28"] as const)(
  "%s era: 10,000 calls with 64 in flight against a server with random 503s and dropped connections: none lost",
  async (era) => {
    clearHttpEraCache();
    let injected503 = 0;
    let injectedDrops = 0;
    const server = await startScriptedHttpServer({
      era,
      tools: { echo: { run: (args) => ({ content: [{ type: "text", text: "ok" }], structuredContent: args }) } },
      // The JSON-RPC requests are recorded before the directive is taken; only tools/call is hit.
      chaos: (request) => {
        if (request.body?.method !== "tools/call") return undefined;
        const roll = Math.random();
        if (roll < 1 / 500) {
          injected503++;
          return { status: 503, body: "overloaded" };
        }
        if (roll < 2 / 500) {
          injectedDrops++;
          return { destroy: true };
        }
        return undefined;
      },
    });
    const caller = createHttpCaller({ name: "chaos-http", url: server.url, era, timeoutMs: 15_000, maxSockets: IN_FLIGHT });
    const successes = new Array<number>(CALLS).fill(0);
    const unexpected: string[] = [];
    let attempts = 0;
    let resolutions = 0;
    let retried = 0;
    let next = 0;

    async function one(i: number): Promise<void> {
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        attempts++;
        const r = await caller.callTool({ name: "echo", arguments: { i, attempt } });
        resolutions++;
        if (r.ok) {
          const got = r.value.structuredContent as { i: number; attempt: number };
          if (got.i !== i || got.attempt !== attempt) unexpected.push(`call ${i} got the answer for ${JSON.stringify(got)}`);
          successes[i] = (successes[i] as number) + 1;
          return;
        }
        if (!r.failure.retryable || (r.failure.kind !== "unavailable" && r.failure.kind !== "rate_limited")) {
          unexpected.push(`call ${i}: ${r.failure.kind} ${r.failure.message}`);
          return;
        }
        retried++;
      }
      unexpected.push(`call ${i}: still failing after ${MAX_ATTEMPTS} attempts`);
    }

    try {
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < CALLS) await one(next++);
        }),
      );
    } finally {
      await caller.close();
      await server.close();
    }
    const report = await leaks.check();
    console.info(
      `[http-load ${era}] calls=${CALLS} attempts=${attempts} faults injected=${injected503 + injectedDrops} (503=${injected503}, dropped=${injectedDrops}) retried=${retried} lost=${successes.filter((s) => s !== 1).length} leaked=${report.processes.length + report.handles.length + report.listeners.length}`,
    );
    expect(unexpected).toEqual([]);
    expect(successes.every((s) => s === 1)).toBe(true);
    expect(resolutions).toBe(attempts);
    expect(injected503 + injectedDrops).toBeGreaterThan(0);
    expect(retried).toBe(injected503 + injectedDrops);
    expect(unhandled).toEqual([]);
    expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
  },
  60_000,
);
