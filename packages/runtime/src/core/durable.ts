/**
 * The durable seam: what an engine (in-memory, DBOS, Temporal...) gives one run — checkpointed
 * steps, durable sleep, durable waits — and how one tool call becomes steps on it. Engine-neutral.
 */
import type { Caller, CallResponse } from "../caller/caller.js";
import { isCallerClosedError } from "../caller/caller.js";
import type { ToolFailure } from "../failure/failure.js";
import { callContext, failureFrom, failureFromLocal } from "../failure/failure-mapping.js";

/** The `_meta` key carrying a call's idempotency key: the same for every attempt and replay of one call. */
export const IDEMPOTENCY_KEY_META = "toolwright.dev/idempotency-key";

/**
 * What a durable engine gives one run. Step results, messages and events must be JSON values.
 * A replayed run gets recorded step results back in the same order without running the steps.
 */
export interface DurableContext {
  /** Stable id of the run (the workflow id). */
  readonly runId: string;
  /** The worker executing the run now, for evidence. */
  readonly executorId: string;
  /** Runs `fn` once and records its result; on replay returns the record and does not call `fn`. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Sleeps durably: a run resumed elsewhere waits only for what is left. */
  sleep(ms: number): Promise<void>;
  /** Waits durably for a message sent to this run on `topic`; `undefined` after `timeoutMs`. */
  recv<T>(topic: string, timeoutMs: number): Promise<T | undefined>;
  /** Publishes a value about this run (e.g. the approval it waits for) that other processes can read. */
  setEvent(key: string, value: unknown): Promise<void>;
  /**
   * Resolves while this worker may still act for the run. An engine whose worker lost its claim
   * (another worker took its runs over) never resolves it, so a stale worker sends nothing.
   */
  fence?(): Promise<void>;
  /**
   * Runs one call under the engine's limits, possibly on another worker (a per-server queue).
   * Without it, the call runs here through `runCallSteps`.
   */
  dispatch?(call: DurableCall): Promise<CallRecord>;
}

/** One tool call as plain data, so an engine can record it or run it on another worker. */
export interface DurableCall {
  readonly runId: string;
  /** The call's number in the run (0-based), stable across replays. */
  readonly index: number;
  /** Attempt number of this call (retries of retryable failures of repeatable tools). */
  readonly attempt: number;
  readonly server: string;
  /** Tool id (`toolset.tool`). */
  readonly tool: string;
  /** Wire name. */
  readonly name: string;
  readonly arguments: { readonly [key: string]: unknown };
  readonly idempotencyKey: string;
  /** Declared read-only or idempotent: safe to send again when the outcome is unknown. */
  readonly repeatable: boolean;
  /** A valid example payload (JSON text), evidence for a failure that asks to correct the call. */
  readonly exampleJson?: string;
  readonly timeoutMs?: number;
}

/** What a call step records: the caller's response (result or failure value) and when it ran. */
export interface CallRecord {
  readonly response: CallResponse;
  readonly startedAt: number;
  readonly endedAt: number;
  /** The worker that sent it (or found it unfinished). */
  readonly executorId: string;
  /** Set when the call was not sent again because its earlier outcome is unknown. */
  readonly unknownOutcome?: true;
}

/** Sends one call through `caller` with the idempotency key in `_meta`. Never throws except for a closed caller. */
export async function sendCall(caller: Caller, call: DurableCall): Promise<CallResponse> {
  // The call's facts travel with it (possibly to another worker): its failures are built with them.
  const facts = {
    tool: call.tool,
    repeatable: call.repeatable,
    ...(call.exampleJson === undefined ? {} : { exampleJson: call.exampleJson }),
  };
  const request = { name: call.name, arguments: call.arguments, meta: { [IDEMPOTENCY_KEY_META]: call.idempotencyKey } };
  try {
    const response = await caller.callTool(request, call.timeoutMs === undefined ? { facts } : { timeoutMs: call.timeoutMs, facts });
    if (!response.ok && response.failure.tool !== call.tool) return { ok: false, failure: { ...response.failure, tool: call.tool } };
    return response;
  } catch (error) {
    if (isCallerClosedError(error)) throw error;
    return { ok: false, failure: failureFrom(error, callContext(caller.server, request, facts)) };
  }
}

/** The failure for a non-repeatable call whose worker stopped after sending it and before recording a result. */
export function unknownOutcomeFailure(
  call: DurableCall,
  intent: { readonly at: number; readonly by: string },
  foundBy: string,
): ToolFailure {
  const message =
    `outcome unknown: the worker ${intent.by} stopped during ${call.tool} (call ${call.index} of run ${call.runId}, ` +
    `idempotency key ${call.idempotencyKey}) before recording a result; it was not sent again because ${call.tool} is not ` +
    "declared read-only or idempotent. Check whether it took effect before calling it again";
  const base = failureFromLocal("outcome_unknown", message, { tool: call.tool, server: call.server });
  const durable = {
    runId: call.runId,
    call: call.index,
    idempotencyKey: call.idempotencyKey,
    sentAt: intent.at,
    sentBy: intent.by,
    foundBy,
  };
  return { ...base, durable };
}

/** Keeps only JSON: engines store step results as JSON, so the live value must equal the replayed one. */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * One call as steps. A repeatable call is one step. Any other call first records its intent; a
 * replay that finds the intent but no result does not send again and records an unknown outcome.
 */
export async function runCallSteps(
  ctx: DurableContext,
  call: DurableCall,
  send: (call: DurableCall) => Promise<CallResponse>,
): Promise<CallRecord> {
  const name = `call ${call.index}.${call.attempt} ${call.tool}`;
  let fresh = call.repeatable;
  let intent = { at: 0, by: ctx.executorId };
  if (!call.repeatable) {
    intent = await ctx.step(`${name} intent`, async () => {
      fresh = true; // runs only the first time: a replay gets the record and leaves `fresh` false
      return { at: Date.now(), by: ctx.executorId };
    });
  }
  return ctx.step(name, async () => {
    if (!fresh) {
      const failure = unknownOutcomeFailure(call, intent, ctx.executorId);
      return {
        response: { ok: false, failure },
        startedAt: intent.at,
        endedAt: Date.now(),
        executorId: ctx.executorId,
        unknownOutcome: true,
      };
    }
    await ctx.fence?.();
    const startedAt = Date.now();
    const response = asJson(await send(call));
    return { response, startedAt, endedAt: Date.now(), executorId: ctx.executorId } satisfies CallRecord;
  });
}
