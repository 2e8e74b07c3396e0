/**
 * One throwaway PostgreSQL per test file and a `scenario` runner: a fresh database and ledger,
 * worker processes, a client; afterwards every worker and MCP server process must be gone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDurableClient, type DurableClient } from "@toolwright/dbos";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import { afterAll, beforeAll, expect } from "vitest";
import { readLedger, spawnWorker, stillRunning, stopWorkers, tally, type WorkerProcess, waitFor } from "./harness.js";

/** What a scenario body gets. */
export interface Scenario {
  readonly client: DurableClient;
  readonly workers: WorkerProcess[];
  readonly ledger: string;
  readonly databaseUrl: string;
  /** Spawns one more worker (tracked and stopped at the end). */
  spawn(id: string, env?: { readonly [key: string]: string }): WorkerProcess;
}

/** Options of one scenario. */
export interface ScenarioOptions {
  /** Workers started before the body, one after the other. Default 2. */
  readonly workers?: number;
  /** Extra worker environment. */
  readonly env?: { readonly [key: string]: string };
}

/** Registers the file's cluster hooks; returns the scenario runner and the cluster. */
export function useDurableCluster() {
  let pg: ThrowawayPostgres | undefined;
  let dir = "";
  let count = 0;
  const pids = new Set<number>();
  beforeAll(async () => {
    pg = await startThrowawayPostgres();
    dir = mkdtempSync(join(tmpdir(), "tw-durable-"));
  }, 90_000);
  afterAll(async () => {
    const postmaster = pg?.pid();
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(postmaster, "the cluster's postmaster pid").toBeGreaterThan(0);
    expect(stillRunning([postmaster as number]), "PostgreSQL left running").toEqual([]);
  });

  async function scenario(name: string, options: ScenarioOptions, body: (s: Scenario) => Promise<void>): Promise<void> {
    if (!pg) throw new Error("the cluster did not start");
    const databaseUrl = pg.url(`tw_${name}_${count++}`);
    const ledger = join(dir, `${name}-${count}.jsonl`);
    const workers: WorkerProcess[] = [];
    const spawn = (id: string, env: { readonly [key: string]: string } = {}) => {
      const w = spawnWorker({ databaseUrl, executorId: id, ledgerFile: ledger, env: { ...options.env, ...env } });
      workers.push(w);
      pids.add(w.pid);
      return w;
    };
    let client: DurableClient | undefined;
    try {
      // One at a time: the first migrates; concurrent launches have their own test.
      for (let i = 0; i < (options.workers ?? 2); i++) await spawn(`${name}-${String.fromCharCode(97 + i)}`).ready;
      client = await createDurableClient({ databaseUrl, appName: "toolwright-test" });
      await body({ client, workers, ledger, databaseUrl, spawn });
    } finally {
      await client?.close();
      await stopWorkers(workers);
    }
    for (const pid of tally(readLedger(ledger)).serverPids) pids.add(pid);
    const left = await waitFor("worker and server processes to exit", 10_000, () => stillRunning(pids).length === 0).catch(() =>
      stillRunning(pids),
    );
    expect(left, "processes left behind").toBe(true);
  }

  return { scenario, cluster: () => pg as ThrowawayPostgres };
}
