/**
 * Load with crashes: 200 runs × 10 calls over 2 workers while a bounded number of random SIGKILLs
 * hit them (each killed worker is replaced by a new process). Every run must finish, no
 * side-effecting call may reach the server twice, and no process may be left.
 */
import { describe, expect, it } from "vitest";
import { useDurableCluster } from "./support/cluster.js";
import { readLedger, tally, type WorkerProcess, waitFor } from "./support/harness.js";

const { scenario } = useDurableCluster();

const RUNS = 200;
const CALLS = 10;
const KILLS = 4;
const TOOLS = ["append", "read", "put", "append", "read", "append", "put", "read", "append", "put"] as const;

type Outcome = { readonly tool: string; readonly ok: boolean; readonly reason?: string };

describe("durable load", () => {
  it(`${RUNS} runs × ${CALLS} calls over 2 workers with ${KILLS} random SIGKILLs: 0 lost, 0 duplicated`, async () => {
    await scenario("load", { env: { TW_RUN_CONCURRENCY: "16" } }, async ({ client, workers, ledger, spawn }) => {
      const started = Date.now();
      const ids = Array.from({ length: RUNS }, (_, i) => `load-${i}`);
      for (const id of ids) {
        const steps = TOOLS.map((tool, i) => ({ tool, text: `${id}.${i}`, ...(i === 4 ? { hold_ms: 20 } : {}) }));
        await client.enqueue("script-agent", { steps }, { runId: id });
      }
      // The killer: after some progress, SIGKILL a random live worker and start a replacement.
      let kills = 0;
      const live = () => workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
      for (let k = 0; k < KILLS; k++) {
        const target = Math.floor(((k + 1) * RUNS * CALLS) / (KILLS + 2));
        const reached = await waitFor(
          `progress ${target}`,
          120_000,
          () => readLedger(ledger).filter((e) => e.kind === "call").length >= target,
        );
        if (!reached) break;
        const alive = live();
        const victim = alive[Math.floor(Math.random() * alive.length)] as WorkerProcess;
        victim.kill("SIGKILL");
        await victim.exited;
        kills++;
        await spawn(`load-r${k}`, { TW_RUN_CONCURRENCY: "16" }).ready;
      }
      const outcomes = new Map<string, Outcome[]>();
      for (const id of ids) {
        const result = await client.result<Outcome[]>(id, 180_000);
        if (result && (await client.status(id)) === "SUCCESS") outcomes.set(id, result);
      }
      const lost = ids.filter((id) => !outcomes.has(id));
      let unknown = 0;
      const bad: string[] = [];
      for (const [id, list] of outcomes) {
        expect(list).toHaveLength(CALLS);
        for (const o of list) {
          if (o.reason === "outcome_unknown") unknown++;
          else if (!o.ok) bad.push(`${id}: ${JSON.stringify(o)}`);
        }
      }
      const { duplicated, perKey } = tally(readLedger(ledger));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `durable load: ${RUNS} runs, ${RUNS * CALLS} calls, ${kills} SIGKILLs, ${unknown} unknown outcomes, ${duplicated.length} duplicated, ${lost.length} lost, ${perKey.size} keys at the servers, ${seconds} s`,
      );
      expect(kills).toBe(KILLS);
      expect(lost).toEqual([]);
      expect(bad).toEqual([]);
      expect(duplicated).toEqual([]);
      expect(unknown).toBeLessThanOrEqual(KILLS * 16); // at most the calls in flight on the killed workers
    });
  }, 420_000);
});
