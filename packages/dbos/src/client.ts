/**
 * The side that starts runs and answers them, from any process: enqueue a run, wait for its
 * result, see the approval it waits for, send the decision. Uses DBOS's client, no launch needed.
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { Principal } from "@toolwright/runtime/caller";
import { APPROVAL_EVENT, type ApprovalDecision, type ApprovalRequest, ASK_EVENT, type AskRequest } from "@toolwright/runtime/durable";
import { RUN_QUEUE } from "./worker.js";

const FINISHED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** Options of `createDurableClient`. */
export interface DurableClientOptions {
  readonly databaseUrl: string;
  readonly appName: string;
  /** Version whose workers may run what this client enqueues. Default: the latest registered version. */
  readonly appVersion?: string;
}

/** A client of durable runs. */
export interface DurableClient {
  /**
   * Enqueues a run of agent `agent`; the run id makes it idempotent (a second enqueue returns the same run).
   * With `principal`, the run and every call it makes use that principal's registry (the agent's `runtimeFor`).
   */
  enqueue(
    agent: string,
    input: unknown,
    options: { readonly runId: string; readonly queue?: string; readonly principal?: Principal },
  ): Promise<void>;
  /** Waits for a run's result (the planner's return value); `undefined` after `timeoutMs`. */
  result<T>(runId: string, timeoutMs: number): Promise<T | undefined>;
  /** The DBOS status of a run (`ENQUEUED`, `PENDING`, `SUCCESS`, `ERROR`, ...), or undefined when unknown. */
  status(runId: string): Promise<string | undefined>;
  /** The worker that runs (or last ran) a run. */
  executorOf(runId: string): Promise<string | undefined>;
  /** The approval a run waits for now, if any (waits up to `timeoutMs` for one to appear). */
  pendingApproval(runId: string, timeoutMs?: number): Promise<ApprovalRequest | undefined>;
  /** Answers an approval request. Idempotent per request. */
  decide(request: Pick<ApprovalRequest, "runId" | "topic">, decision: ApprovalDecision): Promise<void>;
  /** The question a run waits on in `run.ask` (elicitation), if any (waits up to `timeoutMs` for one). */
  pendingQuestion(runId: string, timeoutMs?: number): Promise<AskRequest | undefined>;
  /** Answers a run's question. Idempotent per question. */
  answer(runId: string, topic: string, value: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Connects a client to the system database at `databaseUrl`. */
export async function createDurableClient(options: DurableClientOptions): Promise<DurableClient> {
  const client = await DBOSClient.create({ systemDatabaseUrl: options.databaseUrl, applicationName: options.appName });
  /** Reads an event until it is set (bounded by `timeoutMs`). */
  async function pollEvent<T>(runId: string, key: string, timeoutMs: number): Promise<T | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await client.getEvent<T | null>(runId, key, { timeoutSeconds: 0 });
      if (value) return value;
      if (Date.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now()))));
    }
  }
  return {
    async enqueue(agent, input, { runId, queue, principal }) {
      await client.enqueue(
        {
          workflowName: agent,
          queueName: queue ?? RUN_QUEUE,
          workflowID: runId,
          ...(options.appVersion === undefined ? {} : { appVersion: options.appVersion }),
        },
        input,
        // The workflow's second input: only the id, a JSON value a recovered run reads back.
        ...(principal === undefined ? [] : [principal.id]),
      );
    },
    async result<T>(runId: string, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = (await client.getWorkflow(runId))?.status;
        if (status !== undefined && FINISHED.has(status)) return (await client.retrieveWorkflow<T>(runId).getResult()) as T;
        if (Date.now() >= deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now()))));
      }
    },
    async status(runId) {
      return (await client.getWorkflow(runId))?.status;
    },
    async executorOf(runId) {
      return (await client.getWorkflow(runId))?.executorId;
    },
    pendingApproval: (runId, timeoutMs = 0) => pollEvent<ApprovalRequest>(runId, APPROVAL_EVENT, timeoutMs),
    pendingQuestion: (runId, timeoutMs = 0) => pollEvent<AskRequest>(runId, ASK_EVENT, timeoutMs),
    async answer(runId, topic, value) {
      await client.send(runId, value, topic, `${runId}:${topic}`);
    },
    async decide(request, decision) {
      await client.send(request.runId, decision, request.topic, `${request.runId}:${request.topic}`);
    },
    close: () => client.destroy(),
  };
}
