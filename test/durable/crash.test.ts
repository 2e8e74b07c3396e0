/**
 * Durable runs on real DBOS and a throwaway PostgreSQL, with worker processes killed by SIGKILL:
 * during a call, between calls, and while a run waits for an approval. The run always finishes on
 * the surviving worker, every side effect reaches the server once, and no process is left.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDurableClient, type DurableClient } from "@toolwright/dbos";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLedger, spawnWorker, stillRunning, stopWorkers, tally, type WorkerProcess, waitFor } from "./support/harness.js";

let pg: ThrowawayPostgres;
let dir: string;
const pids = new Set<number>();
let dbCount = 0;

beforeAll(async () => {
  pg = await startThrowawayPostgres();
  dir = mkdtempSync(join(tmpdir(), "tw-durable-"));
}, 60_000);

afterAll(async () => {
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh database and ledger, two workers, a client; everything stopped and checked at the end. */
async function scenario(
  name: string,
  body: (s: { client: DurableClient; workers: WorkerProcess[]; ledger: string; spawn: (id: string) => WorkerProcess }) => Promise<void>,
) {
  const databaseUrl = pg.url(`tw_${name}_${dbCount++}`);
  const ledger = join(dir, `${name}.jsonl`);
  const workers: WorkerProcess[] = [];
  const spawn = (id: string) => {
    const w = spawnWorker({ databaseUrl, executorId: id, ledgerFile: ledger });
    workers.push(w);
    pids.add(w.pid);
    return w;
  };
  let client: DurableClient | undefined;
  try {
    const first = spawn(`${name}-a`);
    await first.ready;
    spawn(`${name}-b`);
    await Promise.all(workers.map((w) => w.ready));
    client = await createDurableClient({ databaseUrl, appName: "toolwright-test" });
    await body({ client, workers, ledger, spawn });
  } finally {
    await client?.close();
    await stopWorkers(workers);
  }
  const { serverPids } = tally(readLedger(ledger));
  for (const pid of serverPids) pids.add(pid);
  expect(
    await waitFor("worker and server processes to exit", 10_000, () => stillRunning(pids).length === 0 || undefined).catch(() =>
      stillRunning(pids),
    ),
  ).toBe(true);
}

/** The worker that owns the server a ledger entry came from. */
const ownerOf = (workers: readonly WorkerProcess[], owner: string | undefined) => workers.find((w) => w.executorId === owner);

describe("durable runs survive SIGKILL", () => {
  it("crash during a non-idempotent call: the run finishes elsewhere, the call is not re-sent and surfaces as outcome_unknown", async () => {
    await scenario("during", async ({ client, workers, ledger }) => {
      const steps = [
        { tool: "append", text: "a" },
        { tool: "append", text: "b", hold_ms: 60_000 },
        { tool: "read", text: "c" },
        { tool: "append", text: "d" },
      ];
      await client.enqueue("script-agent", { steps }, { runId: "during-1" });
      const held = await waitFor("call b to reach the server", 30_000, () =>
        readLedger(ledger).find((e) => e.kind === "call" && e.text === "b"),
      );
      const victim = ownerOf(workers, held.owner);
      expect(victim).toBeDefined();
      victim?.kill("SIGKILL");
      const result = await client.result<{ tool: string; ok: boolean; reason?: string; value?: unknown }[]>("during-1", 60_000);
      expect(result).toEqual([
        { tool: "append", ok: true, value: "append:a" },
        { tool: "append", ok: false, kind: "internal", reason: "outcome_unknown" },
        { tool: "read", ok: true, value: "read:c" },
        { tool: "append", ok: true, value: "append:d" },
      ]);
      const { perKey, duplicated } = tally(readLedger(ledger));
      expect(duplicated).toEqual([]);
      expect(perKey.get("during-1/1")).toEqual({ tool: "append", count: 1 });
      expect([...perKey.keys()].sort()).toEqual(["during-1/0", "during-1/1", "during-1/2", "during-1/3"]);
      const survivor = workers.find((w) => w !== victim);
      expect(survivor?.takeovers).toEqual([victim?.executorId]);
    });
  }, 120_000);
});
