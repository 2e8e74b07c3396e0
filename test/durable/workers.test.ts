/**
 * Worker-level faults on real DBOS and PostgreSQL: a worker SIGKILLed with runs still queued,
 * two workers launching at once against a fresh database (DBOS's migrations race), a PostgreSQL
 * restart in the middle of runs, and per-server limits from mcp.json holding across workers.
 */
import { describe, expect, it } from "vitest";
import { useDurableCluster } from "./support/cluster.js";
import { readLedger, tally, waitFor } from "./support/harness.js";

const { scenario, cluster } = useDurableCluster();

type Outcome = { readonly tool: string; readonly ok: boolean; readonly reason?: string };

/** Waits for every run; returns how many finished (SUCCESS) and their outcomes. */
async function results(
  client: { result<T>(id: string, ms: number): Promise<T | undefined>; status(id: string): Promise<string | undefined> },
  ids: readonly string[],
  timeoutMs: number,
) {
  const outcomes = new Map<string, Outcome[]>();
  for (const id of ids) {
    const result = await client.result<Outcome[]>(id, timeoutMs);
    if (result && (await client.status(id)) === "SUCCESS") outcomes.set(id, result);
  }
  return outcomes;
}

/** Every outcome is a success or an unknown outcome (a call in flight when its worker died); nothing else. */
function onlyOkOrUnknown(outcomes: ReadonlyMap<string, readonly Outcome[]>) {
  const bad: string[] = [];
  let unknown = 0;
  for (const [id, list] of outcomes)
    for (const o of list) {
      if (o.reason === "outcome_unknown") unknown++;
      else if (!o.ok) bad.push(`${id}: ${JSON.stringify(o)}`);
    }
  return { bad, unknown };
}

describe("durable workers", () => {
  it("a worker dying with queued runs: its running runs are taken over and its queue drains elsewhere", async () => {
    await scenario("queued", { workers: 1, env: { TW_RUN_CONCURRENCY: "2" } }, async ({ client, workers, ledger, spawn }) => {
      const ids = Array.from({ length: 8 }, (_, i) => `queued-${i}`);
      const steps = [
        { tool: "append", text: "x" },
        { tool: "append", text: "y", hold_ms: 1500 },
        { tool: "read", text: "z" },
      ];
      for (const id of ids) await client.enqueue("script-agent", { steps }, { runId: id });
      await waitFor(
        "two runs in flight on worker a",
        30_000,
        () => readLedger(ledger).filter((e) => e.kind === "call" && e.text === "y").length >= 2,
      );
      const statuses = await Promise.all(ids.map((id) => client.status(id)));
      expect(statuses.filter((s) => s === "ENQUEUED").length).toBeGreaterThanOrEqual(4); // concurrency 2: the rest wait in the queue
      workers[0]?.kill("SIGKILL");
      const b = spawn("queued-b", { TW_RUN_CONCURRENCY: "4" });
      await b.ready;
      const done = await results(client, ids, 90_000);
      expect(done.size).toBe(ids.length); // 0 lost
      const { bad, unknown } = onlyOkOrUnknown(done);
      expect(bad).toEqual([]);
      expect(unknown).toBeLessThanOrEqual(2); // at most the two calls held open when a died
      expect(tally(readLedger(ledger)).duplicated).toEqual([]);
      expect(b.takeovers).toEqual(["queued-a"]);
    });
  }, 180_000);

  it("two workers launching at once against a fresh database both come up and share the work", async () => {
    for (let round = 0; round < 2; round++) {
      await scenario(`fresh${round}`, { workers: 0 }, async ({ client, workers, ledger, spawn }) => {
        // Both migrate at the same moment: the advisory lock and bounded retries keep them from deadlocking.
        const pair = [spawn(`fresh${round}-a`), spawn(`fresh${round}-b`)];
        await Promise.all(pair.map((w) => w.ready));
        const ids = Array.from({ length: 6 }, (_, i) => `fresh${round}-${i}`);
        for (const id of ids)
          await client.enqueue(
            "script-agent",
            {
              steps: [
                { tool: "append", text: id },
                { tool: "put", text: id },
              ],
            },
            { runId: id },
          );
        const done = await results(client, ids, 60_000);
        expect(done.size).toBe(ids.length);
        expect(onlyOkOrUnknown(done)).toEqual({ bad: [], unknown: 0 });
        expect(tally(readLedger(ledger)).duplicated).toEqual([]);
        expect(workers.every((w) => w.child.exitCode === null)).toBe(true);
      });
    }
  }, 180_000);

  it("a PostgreSQL restart in the middle of runs: workers ride it out, every run finishes, nothing is duplicated", async () => {
    await scenario("restart", {}, async ({ client, workers, ledger }) => {
      const ids = Array.from({ length: 10 }, (_, i) => `restart-${i}`);
      const steps = [
        { tool: "append", text: "1" },
        { tool: "read", text: "2", hold_ms: 300 },
        { tool: "append", text: "3" },
        { tool: "put", text: "4", hold_ms: 300 },
        { tool: "append", text: "5" },
      ];
      for (const id of ids) await client.enqueue("script-agent", { steps }, { runId: id });
      await waitFor("runs under way", 30_000, () => readLedger(ledger).filter((e) => e.kind === "call").length >= 6);
      const pg = cluster();
      await pg.stopServer();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await pg.start();
      const done = await results(client, ids, 120_000);
      expect(done.size).toBe(ids.length);
      const { bad } = onlyOkOrUnknown(done);
      expect(bad).toEqual([]);
      expect(tally(readLedger(ledger)).duplicated).toEqual([]);
      // A worker may have been fenced (exit 75) if it looked dead; at least one must have lived through it.
      expect(workers.some((w) => w.child.exitCode === null)).toBe(true);
    });
  }, 240_000);

  it("per-server limits from mcp.json hold across workers: at most `concurrency` calls in flight at once", async () => {
    const limits = JSON.stringify({ ledger: { concurrency: 1 } });
    await scenario("limits", { env: { TW_LIMITS: limits } }, async ({ client, ledger }) => {
      const ids = Array.from({ length: 6 }, (_, i) => `limits-${i}`);
      for (const id of ids) await client.enqueue("script-agent", { steps: [{ tool: "put", text: id, hold_ms: 150 }] }, { runId: id });
      const done = await results(client, ids, 60_000);
      expect(done.size).toBe(ids.length);
      expect(onlyOkOrUnknown(done)).toEqual({ bad: [], unknown: 0 });
      // The servers append to one file in real time order: with concurrency 1, calls never overlap.
      const events = readLedger(ledger).filter((e) => e.kind === "call" || e.kind === "answered");
      let inFlight = 0;
      let most = 0;
      for (const e of events) {
        inFlight += e.kind === "call" ? 1 : -1;
        most = Math.max(most, inFlight);
      }
      expect(events.filter((e) => e.kind === "call")).toHaveLength(6);
      expect(most).toBe(1);
    });
  }, 120_000);
});
