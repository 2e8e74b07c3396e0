/**
 * Run policy: the limits a runtime enforces for one agent run (tool calls, failure streak, time
 * budget, per-call timeout), accepted in the runtime's names or the design's `runPolicy` names.
 */

/** Run limits, in the runtime's names. Durations are milliseconds. */
export interface RunPolicy {
  /** Calls sent to servers in one run; the next call fails with reason `max_tool_calls`. */
  readonly maxToolCalls?: number;
  /** Failed calls in a row; the next call fails with reason `max_consecutive_failures`. */
  readonly maxConsecutiveFailedToolCalls?: number;
  /** Active time for the run, from its first call; time spent waiting for a confirmation is not counted. */
  readonly timeBudgetMs?: number;
  /** Time allowed for one call (passed to the caller as `timeoutMs`, and enforced as a backstop). */
  readonly toolTimeoutMs?: number;
}

/** Run limits in the design's names (`agent(..., { runPolicy })`): `timeBudget`, `toolTimeout` in ms. */
export interface DesignRunPolicy {
  readonly maxToolCalls?: number;
  readonly maxConsecutiveFailedToolCalls?: number;
  readonly timeBudget?: number;
  readonly toolTimeout?: number;
}

function positive(value: unknown, name: string): number | undefined {
  if (value === undefined || value === 0) return undefined;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0)
    throw new TypeError(`run policy: ${name} must be a number >= 0 (0 = no limit), got ${JSON.stringify(value)}`);
  return value === Number.POSITIVE_INFINITY ? undefined : value;
}

/**
 * Normalizes a policy given in either naming (runtime `*Ms` names win over design names).
 * 0 or Infinity means no limit. Throws a TypeError naming the field on a negative or non-number limit.
 */
export function runPolicyFromDesign(policy: RunPolicy & DesignRunPolicy = {}): RunPolicy {
  const maxToolCalls = positive(policy.maxToolCalls, "maxToolCalls");
  const maxFailed = positive(policy.maxConsecutiveFailedToolCalls, "maxConsecutiveFailedToolCalls");
  const budget = positive(policy.timeBudgetMs, "timeBudgetMs") ?? positive(policy.timeBudget, "timeBudget");
  const timeout = positive(policy.toolTimeoutMs, "toolTimeoutMs") ?? positive(policy.toolTimeout, "toolTimeout");
  return {
    ...(maxToolCalls === undefined ? {} : { maxToolCalls: Math.floor(maxToolCalls) }),
    ...(maxFailed === undefined ? {} : { maxConsecutiveFailedToolCalls: Math.floor(maxFailed) }),
    ...(budget === undefined ? {} : { timeBudgetMs: budget }),
    ...(timeout === undefined ? {} : { toolTimeoutMs: timeout }),
  };
}

/** Counters of the current run. */
export interface RunUsage {
  /** Calls sent to a server. */
  readonly toolCalls: number;
  /** Failures in a row (any failure, sent or not; a success resets it). */
  readonly consecutiveFailures: number;
  /** Active milliseconds since the run's first call (0 before it), excluding confirmation waits. */
  readonly elapsedMs: number;
}

/** What stops the next call, if anything. */
export type PolicyStop =
  | { readonly reason: "max_tool_calls"; readonly message: string }
  | { readonly reason: "max_consecutive_failures"; readonly message: string }
  | { readonly reason: "time_budget"; readonly message: string };

/** Mutable bookkeeping for one run. */
export interface RunLedger {
  readonly policy: RunPolicy;
  usage(): RunUsage;
  /** Starts the clock at the first call. */
  touch(): void;
  /** The limit that forbids another call now, if any. */
  check(): PolicyStop | undefined;
  /** Time allowed for the next call: the tool timeout, cut to what is left of the budget. */
  callTimeout(requested: number | undefined): { readonly timeoutMs: number | undefined; readonly budgetBound: boolean };
  recordSent(): void;
  /** Pauses the budget clock while waiting on a person (confirmation); returns the resume function. */
  pause(): () => void;
  recordOutcome(ok: boolean): void;
  reset(): void;
}

/** Creates the ledger for `policy`. `now` is injectable for tests. */
export function createRunLedger(policy: RunPolicy, now: () => number = () => performance.now()): RunLedger {
  let startedAt: number | undefined;
  let toolCalls = 0;
  let streak = 0;
  let paused = 0; // ms excluded so far
  let waits = 0; // confirmations in progress
  let pausedAt = 0;
  const elapsed = () => (startedAt === undefined ? 0 : now() - startedAt - paused - (waits > 0 ? now() - pausedAt : 0));
  return {
    policy,
    usage: () => ({ toolCalls, consecutiveFailures: streak, elapsedMs: elapsed() }),
    touch() {
      startedAt ??= now();
    },
    check() {
      const { maxToolCalls, maxConsecutiveFailedToolCalls: maxFailed, timeBudgetMs } = policy;
      if (timeBudgetMs !== undefined && elapsed() >= timeBudgetMs)
        return { reason: "time_budget", message: `run time budget of ${timeBudgetMs} ms is used up; stop calling tools` };
      if (maxFailed !== undefined && streak >= maxFailed)
        return {
          reason: "max_consecutive_failures",
          message: `${streak} tool calls failed in a row (limit ${maxFailed}); stop calling tools`,
        };
      if (maxToolCalls !== undefined && toolCalls >= maxToolCalls)
        return {
          reason: "max_tool_calls",
          message: `the run may make at most ${maxToolCalls} tool calls and has made ${toolCalls}; stop calling tools`,
        };
      return undefined;
    },
    callTimeout(requested) {
      const limits = [requested, policy.toolTimeoutMs].filter((v): v is number => v !== undefined && v > 0);
      const tool = limits.length > 0 ? Math.min(...limits) : undefined;
      if (policy.timeBudgetMs === undefined) return { timeoutMs: tool, budgetBound: false };
      const left = Math.max(1, policy.timeBudgetMs - elapsed());
      return tool !== undefined && tool <= left ? { timeoutMs: tool, budgetBound: false } : { timeoutMs: left, budgetBound: true };
    },
    recordSent() {
      toolCalls++;
    },
    pause() {
      if (waits++ === 0) pausedAt = now();
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        if (--waits === 0) paused += now() - pausedAt;
      };
    },
    recordOutcome(ok) {
      streak = ok ? 0 : streak + 1;
    },
    reset() {
      startedAt = undefined;
      toolCalls = 0;
      streak = 0;
      paused = 0;
      waits = 0;
    },
  };
}
