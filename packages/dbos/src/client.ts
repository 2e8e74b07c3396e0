/**
 * The side that starts runs and answers them, from any process: enqueue a run, wait for its
 * result, see the approval it waits for, send the decision. Uses DBOS's client, no launch needed.
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { APPROVAL_EVENT, type ApprovalDecision, type ApprovalRequest } from "@toolwright/runtime/durable";
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
  /** Enqueues a run of agent `agent`; the run id makes it idempotent (a second enqueue returns the same run). */
  enqueue(agent: string, input: unknown, options: { readonly runId: string; readonly queue?: string }): Promise<void>;
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
  close(): Promise<void>;
}

/** Connects a client to the system database at `databaseUrl`. */
export async function createDurableClient(options: DurableClientOptions): Promise<DurableClient> {
  const client = await DBOSClient.create({ systemDatabaseUrl: options.databaseUrl, applicationName: options.appName });
  return {
    async enqueue(agent, input, { runId, queue }) {
      await client.enqueue(
        {
          workflowName: agent,
          queueName: queue ?? RUN_QUEUE,
          workflowID: runId,
          ...(options.appVersion === undefined ? {} : { appVersion: options.appVersion }),
        },
        input,
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
    async pendingApproval(runId, timeoutMs = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const request = await client.getEvent<ApprovalRequest | null>(runId, APPROVAL_EVENT, { timeoutSeconds: 0 });
        if (request) return request;
        if (Date.now() >= deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now()))));
      }
    },
    async decide(request, decision) {
      await client.send(request.runId, decision, request.topic, `${request.runId}:${request.topic}`);
    },
    close: () => client.destroy(),
  };
}
