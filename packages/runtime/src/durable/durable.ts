/**
 * The durable seam: what an engine (in-memory, DBOS, Temporal...) gives one run — checkpointed
 * steps, durable sleep, durable waits — and how one tool call becomes steps on it. Engine-neutral.
 */
import type { Caller, CallResponse } from "../caller/caller.js";
import { isCallerClosedError } from "../caller/caller.js";
import type { ToolFailure } from "../failure/failure.js";
import { callContext, failureFrom, failureFromFault, failureFromLocal } from "../failure/failure-mapping.js";

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
  /** Time allowed for the answer: the tool timeout, cut to what was left of the run's time budget. */
  readonly timeoutMs?: number;
  /** Which run deadline `timeoutMs` is: its failure says tool timeout or time budget, as `runtime.execute`'s does. */
  readonly deadline?: "tool_timeout" | "time_budget";
  /**
   * When the run's time budget ends (epoch ms, the run's recorded clock). Where the call is sent
   * (maybe later, after a queue wait, on another worker) its timeout is cut to what is left then.
   */
  readonly budgetEndsAt?: number;
  /**
   * The id of the principal the run is made for (see `Principal`): recorded with the call, so a
   * worker that sends it (now, on retry, after a takeover) sends it with that principal's
   * credentials and no one else's.
   */
  readonly principal?: string;
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

/** Grace after a call's timeout before the run answers for the caller, so a caller's own (more precise) timeout failure normally wins. */
const BACKSTOP_GRACE_MS = 50;

/**
 * Sends one call through `caller` with the idempotency key in `_meta`, under the run's deadline:
 * the answer is a timeout failure when it does not come in time, even from a caller that ignores
 * `timeoutMs` and its signal (its late answer is dropped, never recorded). Never throws except for
 * a closed caller.
 */
export async function sendCall(caller: Caller, call: DurableCall): Promise<CallResponse> {
  let timeoutMs = call.timeoutMs;
  let deadline = call.deadline;
  if (call.budgetEndsAt !== undefined) {
    // Time spent since the run computed the timeout (a queue wait, a slow planner) is budget spent too.
    const left = Math.max(0, call.budgetEndsAt - Date.now());
    if (timeoutMs === undefined || left < timeoutMs) {
      timeoutMs = left;
      deadline = "time_budget";
    }
  }
  // The call's facts travel with it (possibly to another worker): its failures are built with them.
  const facts = {
    tool: call.tool,
    repeatable: call.repeatable,
    ...(call.exampleJson === undefined ? {} : { exampleJson: call.exampleJson }),
    ...(deadline === undefined ? {} : { deadline }),
  };
  const request = { name: call.name, arguments: call.arguments, meta: { [IDEMPOTENCY_KEY_META]: call.idempotencyKey } };
  const context = callContext(caller.server, request, facts);
  const expired = (ms: number): CallResponse => ({
    ok: false,
    failure: failureFromFault({ type: "timeout", phase: "request", message: `no answer within ${ms} ms` }, context),
  });
  // Nothing is sent once the budget is gone: the server would only do work nobody waits for.
  if (timeoutMs !== undefined && timeoutMs <= 0) return expired(0);
  const controller = new AbortController();
  const options = { signal: controller.signal, facts, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  const sent = (async (): Promise<CallResponse> => {
    try {
      const response = await caller.callTool(request, options);
      if (!response.ok && response.failure.tool !== call.tool) return { ok: false, failure: { ...response.failure, tool: call.tool } };
      return response;
    } catch (error) {
      if (isCallerClosedError(error)) throw error;
      return { ok: false, failure: failureFrom(error, context) };
    }
  })();
  if (timeoutMs === undefined) return sent;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const backstop = new Promise<CallResponse>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("tool timeout")); // a caller that honours its signal stops the call now
      resolve(expired(timeoutMs));
    }, timeoutMs + BACKSTOP_GRACE_MS);
  });
  try {
    // The race settles the step; the loser's late answer (or rejection) goes nowhere.
    return await Promise.race([sent, backstop]);
  } finally {
    clearTimeout(timer);
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
