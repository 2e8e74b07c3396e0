/**
 * Durable agents on DBOS: `defineDurableAgent` registers a planner's run as a DBOS workflow (before
 * launch), `launchDurableWorker` migrates once, launches DBOS on 127.0.0.1 with an explicit
 * application version and no admin server, registers the run and per-server queues, and heartbeats.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { Runtime } from "@toolwright/runtime";
import type { Principal } from "@toolwright/runtime/caller";
import {
  type CallRecord,
  createDurableRun,
  type DurableCall,
  type DurableContext,
  type DurableRun,
  type DurableRunOptions,
  runCallSteps,
  sendCall,
} from "@toolwright/runtime/durable";
import pg from "pg";
import { createAgentCallers, type RuntimeFor } from "./agent-callers.js";
import { migrateSystemDatabase } from "./migrate.js";
import { type ServerLimits, serverQueueName } from "./queues.js";
import { type Heartbeat, startHeartbeat, type Takeover } from "./takeover.js";

/** The queue runs are enqueued on unless a client names another. */
export const RUN_QUEUE = "toolwright-runs";
/** The workflow that runs one call on a server's queue. */
const CALL_WORKFLOW = "toolwright.call";

/** A durable agent: a named workflow around a planner's run. */
export interface DurableAgent<I, O> {
  readonly name: string;
  /** Starts a run on this worker (outside a queue); the run id makes it idempotent. */
  /** Starts a run; with `principal`, every call of it goes through that principal's registry (`runtimeFor`). */
  start(
    input: I,
    options: { readonly runId: string; readonly principal?: Principal },
  ): Promise<{ readonly runId: string; result(): Promise<O> }>;
}

/** Options of `defineDurableAgent`. */
export interface DurableAgentOptions<I, O> extends Omit<DurableRunOptions, "runtime"> {
  /** Workflow name; clients enqueue runs under it. */
  readonly name: string;
  /** This worker's registry (generated `register*Toolset` helpers, live callers). */
  readonly runtime: Runtime;
  /**
   * The registry of one principal on this worker (e.g. `(p) => manager.forPrincipal(p).then((m) => m.runtime)`):
   * runs started with a `principal` use it, and so does every call they make, wherever it is sent.
   */
  readonly runtimeFor?: RuntimeFor;
  /** The planner: everything non-deterministic goes through `run` (tool calls, `run.step` for model calls). */
  readonly run: (run: DurableRun, input: I) => Promise<O>;
}

interface WorkerState {
  heartbeat: Heartbeat | undefined;
  limits: ReadonlyMap<string, string>;
}

const state: WorkerState = { heartbeat: undefined, limits: new Map() };
/** Each agent's own callers: a call goes through its agent's, never another agent's for the same server name. */
const agents = createAgentCallers();

/** The engine context of a run of `agent` (`undefined` for a call workflow, which dispatches nothing). */
function dbosContext(agent: string | undefined): DurableContext {
  const runId = DBOS.workflowID;
  if (runId === undefined) throw new Error("toolwright/dbos: a durable run must execute inside a DBOS workflow");
  const ctx: DurableContext = {
    runId,
    executorId: DBOS.executorID,
    step: (name, fn) => DBOS.runStep(fn, { name }),
    sleep: (ms) => DBOS.sleep(ms),
    recv: async <T>(topic: string, timeoutMs: number) => ((await DBOS.recv<T>(topic, timeoutMs / 1000)) ?? undefined) as T | undefined,
    setEvent: (key, value) => DBOS.setEvent(key, value),
    fence: () => state.heartbeat?.fence() ?? Promise.resolve(),
  };
  if (agent === undefined) return ctx;
  return {
    ...ctx,
    async dispatch(call: DurableCall): Promise<CallRecord> {
      const queueName = state.limits.get(call.server);
      if (queueName === undefined) {
        const caller = await agents.callerForCall(agent, call);
        return runCallSteps(ctx, call, (c) => sendCall(caller, c));
      }
      // The server's limits hold across workers: the call is a child workflow on the server's queue.
      // The agent's name goes with it, so whichever worker runs it (now, on retry, after a takeover)
      // sends it through that agent's caller.
      const workflowID = `${call.runId}/call/${call.index}.${call.attempt}`;
      const handle = await DBOS.startWorkflow(callWorkflow, { workflowID, queueName })(call, agent);
      return handle.getResult();
    },
  };
}

const callWorkflow = DBOS.registerWorkflow(
  async (call: DurableCall, agent?: string): Promise<CallRecord> => {
    // Resolved before any step: a worker without this agent's caller records and sends nothing, and
    // the call (and with it the run) fails naming the agent and the server.
    const caller = await agents.callerForCall(agent, call);
    return runCallSteps(dbosContext(undefined), call, (c) => sendCall(caller, c));
  },
  { name: CALL_WORKFLOW },
);

/** Registers a durable agent. Call it before `launchDurableWorker`, the same way on every worker. */
export function defineDurableAgent<I, O>(options: DurableAgentOptions<I, O>): DurableAgent<I, O> {
  const { name, runtime, run, runtimeFor, ...runOptions } = options;
  if (agents.has(name)) throw new TypeError(`toolwright/dbos: a durable agent named ${JSON.stringify(name)} is already defined`);
  const workflow = DBOS.registerWorkflow(
    // The principal's id (a JSON value) is the workflow's second input, so a recovered run knows it too.
    async (input: I, principalId?: string): Promise<O> => {
      const principal = principalId === undefined ? undefined : { id: principalId };
      const own = await agents.runtimeOf(name, principal);
      return run(createDurableRun(dbosContext(name), { ...runOptions, runtime: own, ...(principal ? { principal } : {}) }), input);
    },
    { name },
  );
  agents.add(name, runtime, runtimeFor);
  return {
    name,
    async start(input, { runId, principal }) {
      const handle = await DBOS.startWorkflow(workflow, { workflowID: runId })(input, principal?.id);
      return { runId, result: () => handle.getResult() };
    },
  };
}

/** Options of `launchDurableWorker`. */
export interface DurableWorkerOptions {
  /** The DBOS system database, e.g. `postgresql://user@127.0.0.1:5432/app_dbos`. */
  readonly databaseUrl: string;
  /** Application name: scopes workflows, queues and workers in the system database. */
  readonly appName: string;
  /** Explicit version: recovery and dequeueing only match workflows of the same version. */
  readonly appVersion: string;
  /** Unique per process. Default `<host>-<pid>-<random>`. */
  readonly executorId?: string;
  /** Runs this worker executes at once from the run queue. Default 10. */
  readonly runConcurrency?: number;
  /** Per-server limits (see `serverLimitsFromMcpConfig`): each becomes a DBOS queue shared by all workers. */
  readonly serverLimits?: { readonly [server: string]: ServerLimits };
  /** Queue polling interval. Default 100 ms. */
  readonly pollingIntervalMs?: number;
  /** Default 1000 ms. */
  readonly heartbeatMs?: number;
  /** A worker whose heartbeat is older is taken over. Default 10 s. */
  readonly deadAfterMs?: number;
  /** Called when another worker took this one over. Default: exit the process with code 75. */
  readonly onFenced?: () => void;
  readonly onTakeover?: (takeover: Takeover) => void;
  /** DBOS log level. Default "warn". */
  readonly logLevel?: string;
}

/** A launched worker. */
export interface DurableWorker {
  readonly executorId: string;
  readonly takeovers: readonly Takeover[];
  /** Stops DBOS and the heartbeat; what was running here is taken over by a live worker. */
  shutdown(): Promise<void>;
}

/** Launches this process as a worker. Agents must be defined first. */
export async function launchDurableWorker(options: DurableWorkerOptions): Promise<DurableWorker> {
  const executorId = options.executorId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const deadAfterMs = options.deadAfterMs ?? 10_000;
  const polling = options.pollingIntervalMs ?? 100;
  await migrateSystemDatabase(options.databaseUrl);
  DBOS.setConfig({
    name: options.appName,
    systemDatabaseUrl: options.databaseUrl,
    applicationVersion: options.appVersion,
    executorID: executorId,
    runAdminServer: false, // no HTTP listener at all (DBOS 5 removed it; kept explicit for older SDKs)
    runMigrations: false, // done once above, under a lock
    logLevel: options.logLevel ?? "warn",
  });
  await DBOS.launch();
  const limits = new Map<string, string>();
  try {
    await DBOS.registerQueue(RUN_QUEUE, { workerConcurrency: options.runConcurrency ?? 10, minPollingIntervalMs: polling });
    for (const [server, limit] of Object.entries(options.serverLimits ?? {})) {
      const name = serverQueueName(server);
      await DBOS.registerQueue(name, {
        minPollingIntervalMs: polling,
        ...(limit.concurrency === undefined ? {} : { globalConcurrency: limit.concurrency }),
        ...(limit.workerConcurrency === undefined ? {} : { workerConcurrency: limit.workerConcurrency }),
        ...(limit.rateLimit === undefined
          ? {}
          : { rateLimit: { limitPerPeriod: limit.rateLimit.calls, periodSec: limit.rateLimit.periodMs / 1000 } }),
      });
      limits.set(server, name);
    }
    state.limits = limits;
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
    pool.on("error", () => undefined); // a restarting server drops idle clients; the next beat reconnects
    state.heartbeat = await startHeartbeat({
      pool,
      appName: options.appName,
      appVersion: options.appVersion,
      executorId,
      heartbeatMs,
      deadAfterMs,
      onFenced: options.onFenced ?? (() => process.exit(75)),
      ...(options.onTakeover ? { onTakeover: options.onTakeover } : {}),
      log: (message) => DBOS.logger.info(message),
    });
    const heartbeat = state.heartbeat;
    return {
      executorId,
      get takeovers() {
        return heartbeat.takeovers;
      },
      async shutdown() {
        await heartbeat.stop(); // nothing more is sent from here
        await DBOS.shutdown();
        await heartbeat.handOver();
        await pool.end().catch(() => undefined);
        state.heartbeat = undefined;
      },
    };
  } catch (error) {
    await DBOS.shutdown();
    throw error;
  }
}
