/**
 * A planner's run expressed once against the durable seam: every tool call a checkpointed step,
 * retries with durable sleeps, run-policy counters and time budget rebuilt from recorded steps,
 * confirmations as durable waits. Any engine that implements `DurableContext` runs it.
 */

import { type Caller, type CallOptions, type CallResponse, markPropagating } from "../caller/caller.js";
import { invokeValidated } from "../caller/invoke.js";
import type { Principal } from "../caller/principal.js";
import { toolUnavailable } from "../caller/tool-request.js";
import type { ToolResult, ToolSpec } from "../caller/tool-spec.js";
import { createRunLedger, type RunLedger, type RunPolicy, type RunUsage } from "../core/policy.js";
import { type ExecuteRequest, type Runtime, repeatable } from "../core/runtime.js";
import type { ToolFailure } from "../failure/failure.js";
import { failureFromInvalidInput, failureFromLocal } from "../failure/failure-mapping.js";
import { type CallRecord, type DurableCall, type DurableContext, runCallSteps, sendCall } from "./durable.js";

/** The event a run publishes while it waits for an approval (`null` when it waits for none). */
export const APPROVAL_EVENT = "toolwright.approval";

/** The event a run publishes while it waits for an answer to `run.ask` (`{ topic, prompt }`, `null` when answered). */
export const ASK_EVENT = "toolwright.ask";

/** What a run waiting in `run.ask` publishes under `ASK_EVENT`. */
export interface AskRequest {
  /** Send the answer to the run on this topic. */
  readonly topic: string;
  readonly prompt: unknown;
}

/** What a run waiting for an approval publishes under `APPROVAL_EVENT`. */
export interface ApprovalRequest {
  readonly runId: string;
  /** Send the decision to the run on this topic. */
  readonly topic: string;
  readonly call: number;
  readonly tool: string;
  readonly server: string;
  readonly arguments: unknown;
  readonly requestedAt: number;
}

/** The message that answers an `ApprovalRequest`. */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly by?: string;
}

/** Retry policy for retryable failures of read-only or idempotent tools. */
export interface DurableRetryPolicy {
  /** Attempts per call, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** First backoff; doubles per attempt. A failure's `retryAfterMs` wins when longer. Default 200 ms. */
  readonly baseDelayMs?: number;
  /** Longest backoff. Default 30 s. */
  readonly maxDelayMs?: number;
}

/** Options of `createDurableRun`. */
export interface DurableRunOptions {
  /** The registry (filled by generated `register*Toolset` helpers); its policy is the run's policy. */
  readonly runtime: Runtime;
  readonly retry?: DurableRetryPolicy;
  /**
   * Who the run is made for. Default: the runtime's own principal (a `PrincipalManager`'s runtime
   * has one). Every call of the run records its id (`DurableCall.principal`) and carries it.
   */
  readonly principal?: Principal;
  /** Confirmation of destructive and `requiresConfirmation` tools, as a durable wait. */
  readonly confirmation?: {
    /** Tools that run without asking. Default: none. */
    readonly autoApprove?: (spec: ToolSpec) => boolean;
    /** How long to wait for a decision; no decision is a denial. Default 24 h. */
    readonly timeoutMs?: number;
    /** Called once per request (a step), e.g. to notify a person; the decision arrives as a message. */
    readonly onRequest?: (request: ApprovalRequest) => Promise<void> | void;
  };
}

/** One durable run. Create it inside the engine's workflow body; all its methods are deterministic on replay. */
export interface DurableRun {
  readonly runId: string;
  readonly policy: RunPolicy;
  /** `runtime.execute`, durably. Never throws for bad input. */
  execute(request: ExecuteRequest, options?: CallOptions): Promise<ToolResult<unknown>>;
  /** A caller for a toolset's generated typed client (`create<Toolset>Client(run.caller("memory"))`). */
  caller(toolset: string): Caller;
  /** Runs a non-deterministic planner step (a model call) once; replays return its record. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Publishes `prompt` under `event` and waits durably for the answer on `topic` (elicitation). */
  ask<T>(topic: string, prompt: unknown, timeoutMs: number, event?: string): Promise<T | undefined>;
  /** Sleeps durably. */
  sleep(ms: number): Promise<void>;
  usage(): RunUsage;
}

const needsConfirmation = (spec: ToolSpec) => spec.requiresConfirmation === true || spec.annotations?.destructive === true;

/** One durable call: the spec, the caller it goes to, the arguments and the caller's timeout. */
type DurableCallFn = (
  spec: ToolSpec,
  caller: Caller,
  args: { readonly [key: string]: unknown },
  timeoutMs?: number,
) => Promise<CallResponse>;

/** A caller whose every call goes through `call` for the spec `specOf` picks (undefined: unknown tool). */
function durableCaller(
  call: DurableCallFn,
  server: string,
  target: Caller,
  specOf: (name: string) => ToolSpec | undefined,
  known: readonly ToolSpec[],
): Caller {
  return {
    server,
    async callTool(request, callOptions = {}) {
      const spec = specOf(request.name);
      if (!spec) return { ok: false, failure: toolUnavailable(request.name, known) };
      try {
        return await call(spec, target, request.arguments, callOptions.timeoutMs);
      } catch (error) {
        throw markPropagating(error); // the engine's interruption ends the run; it is no tool failure
      }
    },
  };
}

/** Attempt `attempt` of call `index` as the engine records it; `limits` are the run's deadlines for it. */
function durableCallOf(
  runId: string,
  index: number,
  attempt: number,
  server: string,
  spec: ToolSpec,
  args: { readonly [key: string]: unknown },
  limits: { readonly timeoutMs: number | undefined; readonly deadline: DurableCall["deadline"]; readonly budgetEndsAt: number | undefined },
  principal: string | undefined,
): DurableCall {
  return {
    runId,
    index,
    attempt,
    server,
    tool: spec.id,
    name: spec.name,
    arguments: args,
    // The same key on every attempt: a server that dedupes sees one logical call.
    idempotencyKey: `${runId}/${index}`,
    repeatable: repeatable(spec),
    ...(spec.exampleJson === undefined ? {} : { exampleJson: spec.exampleJson }),
    ...(limits.timeoutMs === undefined ? {} : { timeoutMs: limits.timeoutMs }),
    ...(limits.deadline === undefined ? {} : { deadline: limits.deadline }),
    ...(limits.budgetEndsAt === undefined ? {} : { budgetEndsAt: limits.budgetEndsAt }),
    ...(principal === undefined ? {} : { principal }),
  };
}

/** What waiting for an approval needs from the run. */
interface ApprovalWait {
  readonly ctx: DurableContext;
  readonly options: DurableRunOptions;
  readonly ledger: RunLedger;
  readonly recorded: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
}

/** Asks for an approval of call `index` (unless auto-approved) and waits for the decision, durably. */
async function approved(run: ApprovalWait, index: number, spec: ToolSpec, server: string, args: unknown): Promise<boolean> {
  const { ctx, options, ledger, recorded } = run;
  if (options.confirmation?.autoApprove?.(spec) === true) return true;
  // One topic per call index: a late decision for an earlier call cannot approve this one.
  const topic = `toolwright.approval.${index}`;
  // A step, so onRequest (a notification to a person) runs once, not again on every replay.
  const request = await recorded(`approval ${index} requested`, async () => {
    const req: ApprovalRequest = {
      runId: ctx.runId,
      topic,
      call: index,
      tool: spec.id,
      server,
      arguments: args,
      requestedAt: Date.now(),
    };
    await options.confirmation?.onRequest?.(req);
    return req;
  });
  const resume = ledger.pause(); // waiting on a person does not spend the time budget
  await ctx.setEvent(APPROVAL_EVENT, request);
  const decision = await ctx.recv<ApprovalDecision>(topic, options.confirmation?.timeoutMs ?? 24 * 3600_000);
  // Records when the decision came, so the clock (and the time budget) moves the same way on replay.
  await recorded(`approval ${index} decided`, async () => null);
  resume();
  await ctx.setEvent(APPROVAL_EVENT, null);
  return decision?.approved === true;
}

/** Creates the run for `ctx`. Call it at the start of the workflow body, so replays rebuild the same state. */
export function createDurableRun(ctx: DurableContext, options: DurableRunOptions): DurableRun {
  const { runtime } = options;
  const principalId = (options.principal ?? (runtime as { readonly principal?: Principal }).principal)?.id;
  const maxAttempts = Math.max(1, Math.floor(options.retry?.maxAttempts ?? 3));
  const baseDelayMs = options.retry?.baseDelayMs ?? 200;
  const maxDelayMs = options.retry?.maxDelayMs ?? 30_000;
  // The clock only moves with recorded times, so the budget decides the same way on every replay.
  let clock = 0;
  const advance = (at: number) => {
    if (at > clock) clock = at;
  };
  const ledger = createRunLedger(runtime.policy, () => clock);
  let calls = 0;
  let started: Promise<void> | undefined;
  /** The first call records the run's start time; parallel first calls share that one step. */
  const start = () => {
    started ??= recorded("run started", async () => undefined);
    return started;
  };

  async function recorded<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const { value, at } = await ctx.step(name, async () => ({ value: await fn(), at: Date.now() }));
    advance(at);
    return value;
  }

  /** One call, durably: policy, confirmation, attempts. Returns the raw response for `invokeTool` to map. */
  async function call(
    spec: ToolSpec,
    caller: Caller,
    args: { readonly [key: string]: unknown },
    timeoutMs?: number,
  ): Promise<CallResponse> {
    // Taken before any await: replays hand out the same indexes in the same order, which keeps step
    // names and idempotency keys stable.
    const index = calls++;
    const context = { tool: spec.id, server: caller.server };
    await start();
    const refuse = (failure: ToolFailure, counts: boolean): CallResponse => {
      if (counts) ledger.recordOutcome(false);
      return { ok: false, failure };
    };
    ledger.touch();
    const stop = ledger.check();
    if (stop) return refuse(failureFromLocal(stop.reason, stop.message, context), false);
    if (needsConfirmation(spec) && !(await approved({ ctx, options, ledger, recorded }, index, spec, caller.server, args)))
      return refuse(
        failureFromLocal("confirmation_denied", `${spec.id} was not run: the approval was denied or did not arrive`, context),
        true,
      );
    let response: CallResponse | undefined;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const late = ledger.check();
      // A stop after an attempt failed ends that failing call (it counts); a stop before any attempt does not.
      if (late) return refuse(failureFromLocal(late.reason, late.message, context), attempt > 0);
      ledger.recordSent();
      const budget = ledger.callTimeout(timeoutMs);
      // The run's own deadlines go with the call and are enforced where it is sent (`sendCall`), as
      // `runtime.execute` enforces them: a caller that ignores `timeoutMs` cannot outlast them.
      const deadline = budget.budgetBound ? "time_budget" : budget.timeoutMs === undefined ? undefined : "tool_timeout";
      const budgetMs = runtime.policy.timeBudgetMs;
      const budgetEndsAt = budgetMs === undefined ? undefined : clock + budgetMs - ledger.usage().elapsedMs;
      const limits = { timeoutMs: budget.timeoutMs, deadline, budgetEndsAt } as const;
      const durableCall = durableCallOf(ctx.runId, index, attempt, caller.server, spec, args, limits, principalId);
      const record: CallRecord = ctx.dispatch
        ? await ctx.dispatch(durableCall)
        : await runCallSteps(ctx, durableCall, (c) => sendCall(caller, c));
      advance(record.endedAt);
      response = record.response;
      // Only read-only or idempotent tools are retried here: another attempt of any other tool could run it twice.
      if (response.ok || !response.failure.retryable || !repeatable(spec) || attempt === maxAttempts - 1) break;
      const delay = Math.min(maxDelayMs, Math.max(response.failure.retryAfterMs ?? 0, baseDelayMs * 2 ** attempt));
      const left =
        runtime.policy.timeBudgetMs === undefined ? Number.POSITIVE_INFINITY : runtime.policy.timeBudgetMs - ledger.usage().elapsedMs;
      // A backoff that would outlast the time budget is not slept: the last failure is the answer.
      if (delay >= left) break;
      await ctx.sleep(delay);
      advance(clock + delay);
    }
    const final = response as CallResponse;
    // An isError result is a failed call for the failure streak, though it came back as a result.
    const ok = final.ok && final.value.isError !== true;
    ledger.recordOutcome(ok);
    // Built with the facts (repeatable, example): a non-repeatable tool's failure already says replan.
    return final;
  }

  const durableCallers = new Map<string, Caller>();
  function callerFor(toolset: string): Caller {
    const existing = durableCallers.get(toolset);
    if (existing) return existing;
    const entries = runtime.specs().filter((s) => s.toolset === toolset);
    const first = entries[0] ? runtime.lookup(entries[0].id) : undefined;
    if (!first) throw new TypeError(`durable run: no toolset named ${JSON.stringify(toolset)} is registered in the runtime`);
    const byName = new Map(entries.map((s) => [s.name, s]));
    const durable = durableCaller(call, first.caller.server, first.caller, (name) => byName.get(name), entries);
    durableCallers.set(toolset, durable);
    return durable;
  }

  return {
    runId: ctx.runId,
    policy: runtime.policy,
    async execute(request, callOptions = {}) {
      if (request.rejection) {
        ledger.recordOutcome(false);
        return { ok: false, failure: request.rejection };
      }
      let entry = runtime.lookup(request.tool);
      if (!entry) {
        // A principal's registry whose server could not be connected (e.g. the grant was revoked,
        // as a run taken over by another worker finds out) says so: `auth_required` naming the server.
        const why = await runtime.unavailable?.(request.tool);
        entry = why ? undefined : runtime.lookup(request.tool);
        if (!entry) {
          ledger.recordOutcome(false);
          return { ok: false, failure: why ?? toolUnavailable(request.tool, runtime.specs()) };
        }
      }
      const decoded = entry.spec.decodePayload(request.arguments);
      if (!decoded.ok) {
        ledger.recordOutcome(false);
        const at = { tool: entry.spec.id, server: entry.caller.server };
        return { ok: false, failure: failureFromInvalidInput(decoded.issues, request.arguments, entry.spec.exampleJson, at) };
      }
      // The spec is already resolved: the call goes through it, whatever its wire name is shared with.
      const one = durableCaller(call, entry.caller.server, entry.caller, () => entry.spec, [entry.spec]);
      return invokeValidated(one, entry.spec, request.arguments, callOptions);
    },
    caller: callerFor,
    step: recorded,
    async ask<T>(topic: string, prompt: unknown, timeoutMs: number, event = ASK_EVENT) {
      // Published before waiting, so whoever answers can find the topic; cleared (null) once answered.
      await ctx.setEvent(event, { topic, prompt });
      const resume = ledger.pause();
      const answer = await ctx.recv<T>(topic, timeoutMs);
      await recorded(`ask ${topic} answered`, async () => null);
      resume();
      await ctx.setEvent(event, null);
      return answer;
    },
    async sleep(ms) {
      await ctx.sleep(ms);
      advance(clock + ms);
    },
    usage: () => ledger.usage(),
  };
}
