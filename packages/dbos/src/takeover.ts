/**
 * Dead-worker takeover without DBOS's managed service. DBOS recovers a workflow by the executor id
 * that ran it, so each worker heartbeats a row in `toolwright.workers`; a live worker atomically
 * claims the row of one whose heartbeat is older than `deadAfterMs` and re-enqueues that executor's
 * pending workflows through DBOS's recovery API. A worker whose own row was claimed is fenced.
 */
import { DBOSExecutor } from "@dbos-inc/dbos-sdk/internal/dbos-executor";
import type pg from "pg";

/** One takeover this worker did. */
export interface Takeover {
  readonly executorId: string;
  readonly recovered: readonly string[];
  readonly at: number;
}

/** Options of `startHeartbeat`. */
export interface HeartbeatOptions {
  readonly pool: pg.Pool;
  readonly appName: string;
  readonly appVersion: string;
  readonly executorId: string;
  readonly heartbeatMs: number;
  readonly deadAfterMs: number;
  /** Called once when another worker claimed this one (it must stop acting). */
  readonly onFenced: () => void;
  readonly onTakeover?: (takeover: Takeover) => void;
  readonly log?: (message: string) => void;
}

/** The heartbeat of one worker. */
export interface Heartbeat {
  /** Resolves while the claim is fresh; waits while the database is unreachable; never resolves once fenced. */
  fence(): Promise<void>;
  readonly takeovers: readonly Takeover[];
  /** True once another worker claimed this one. */
  readonly fenced: boolean;
  /** Stops beating and acting: `fence()` no longer resolves. */
  stop(): Promise<void>;
  /** After `stop()` and the engine's shutdown: marks the row so a live worker takes over what is left right away. */
  handOver(): Promise<void>;
}

/** Registers the worker and starts beating; the first beat happens before this resolves. */
export async function startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const { pool, appName, appVersion, executorId, heartbeatMs, deadAfterMs } = options;
  const takeovers: Takeover[] = [];
  let lastBeat = performance.now();
  // Claims need this worker's own beats to have landed for a full dead-after period: after a
  // database outage every worker looks stale, and the first one back must not claim the others.
  let healthySince = performance.now();
  let lastTickFailed = false;
  let fenced = false;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const waiting = new Set<() => void>();

  await pool.query(
    `INSERT INTO toolwright.workers (app_name, executor_id, app_version, pid) VALUES ($1, $2, $3, $4)
     ON CONFLICT (app_name, executor_id) DO UPDATE SET heartbeat_at = now(), state = 'alive', app_version = $3, pid = $4`,
    [appName, executorId, appVersion, process.pid],
  );

  const fence = (why: string) => {
    if (fenced) return;
    fenced = true;
    options.log?.(`toolwright/dbos: worker ${executorId} was taken over (${why}); it stops acting`);
    options.onFenced();
  };

  async function tick(): Promise<void> {
    const beat = await pool.query(
      "UPDATE toolwright.workers SET heartbeat_at = now() WHERE app_name = $1 AND executor_id = $2 AND state = 'alive'",
      [appName, executorId],
    );
    if (beat.rowCount === 0) return fence("its row is no longer alive");
    lastBeat = performance.now();
    if (lastTickFailed) healthySince = lastBeat;
    lastTickFailed = false;
    for (const wake of [...waiting]) wake();
    if (lastBeat - healthySince < deadAfterMs) return;
    // Claim every worker of this app version whose heartbeat is stale; the UPDATE gives each row to one claimer.
    const claimed = await pool.query<{ executor_id: string }>(
      `UPDATE toolwright.workers SET state = 'taken_over', taken_over_by = $2, taken_over_at = now()
       WHERE app_name = $1 AND app_version = $3 AND state = 'alive' AND executor_id <> $2
         AND heartbeat_at < now() - make_interval(secs => $4::double precision / 1000)
       RETURNING executor_id`,
      [appName, executorId, appVersion, deadAfterMs],
    );
    for (const row of claimed.rows) {
      let recovered: string[];
      try {
        const executor = DBOSExecutor.globalInstance;
        if (!executor) throw new Error("DBOS is not launched");
        recovered = (await executor.recoverPendingWorkflows([row.executor_id])).map((h) => h.workflowID);
      } catch (error) {
        // Give the claim back so this or another worker claims it again on a later beat.
        await pool.query(
          "UPDATE toolwright.workers SET state = 'alive', taken_over_by = NULL WHERE app_name = $1 AND executor_id = $2 AND taken_over_by = $3",
          [appName, row.executor_id, executorId],
        );
        throw error;
      }
      await pool.query("UPDATE toolwright.workers SET recovered = $3 WHERE app_name = $1 AND executor_id = $2", [
        appName,
        row.executor_id,
        recovered.length,
      ]);
      const takeover = { executorId: row.executor_id, recovered, at: Date.now() };
      takeovers.push(takeover);
      options.log?.(`toolwright/dbos: ${executorId} took over ${row.executor_id} and re-enqueued ${recovered.length} pending workflows`);
      options.onTakeover?.(takeover);
    }
  }

  await tick();
  const timer = setInterval(() => {
    if (stopped || fenced) return;
    running = running.then(tick).catch(() => {
      lastTickFailed = true; // database away: the claim ages until it is back
    });
  }, heartbeatMs);
  timer.unref();

  return {
    get takeovers() {
      return takeovers;
    },
    get fenced() {
      return fenced;
    },
    async fence() {
      // A claim older than half the dead-after time may already be someone else's: wait for a beat.
      while (!fenced && !stopped && performance.now() - lastBeat > deadAfterMs / 2) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiting.delete(wake);
            resolve();
          };
          waiting.add(wake);
          setTimeout(wake, heartbeatMs).unref();
        });
      }
      if (fenced || stopped) await new Promise<never>(() => undefined);
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    async handOver() {
      if (fenced) return;
      await pool
        .query("UPDATE toolwright.workers SET heartbeat_at = to_timestamp(0) WHERE app_name = $1 AND executor_id = $2", [
          appName,
          executorId,
        ])
        .catch(() => undefined);
    },
  };
}
