/**
 * The one failure type. A `ToolFailure` is a plain, serializable value that a planner can act on:
 * `kind` says why the call failed, `recovery.action` says what the planner may do next.
 */

import { redactValuesIn, registeredSecretValues } from "./redact.js";

export {
  REDACTED,
  redactSecrets,
  redactText,
  redactValues,
  redactValuesIn,
  registeredSecretValues,
  registerSecretValues,
  toJsonValue,
} from "./redact.js";

/** Why a call failed. A closed set. */
export type FailureKind =
  | "invalid_call"
  | "domain_rejection"
  | "unavailable"
  | "rate_limited"
  | "timeout"
  | "canceled"
  | "malformed_result"
  | "auth_required"
  | "internal";

/** What a planner may do next. A closed set. */
export type RecoveryAction = "correct_call" | "retry" | "replan" | "finish";

/** Every failure kind, in declaration order. */
export const FAILURE_KINDS: readonly FailureKind[] = Object.freeze([
  "invalid_call",
  "domain_rejection",
  "unavailable",
  "rate_limited",
  "timeout",
  "canceled",
  "malformed_result",
  "auth_required",
  "internal",
]);

/** Every recovery action, in declaration order. */
export const RECOVERY_ACTIONS: readonly RecoveryAction[] = Object.freeze(["correct_call", "retry", "replan", "finish"]);

/** The constraint a field issue reports. */
export type IssueConstraint =
  | "missing_field"
  | "invalid_enum_value"
  | "invalid_format"
  | "invalid_pattern"
  | "invalid_range"
  | "invalid_length"
  | "invalid_field_type"
  | "unknown_field";

/** One problem with one field of a payload or result. */
export interface FieldIssue {
  /** JSON-pointer-like dotted path of the field, e.g. `items[2].name`; empty for the root. */
  readonly field: string;
  readonly constraint: IssueConstraint;
  /** Allowed values, for enum issues. */
  readonly allowed?: readonly unknown[];
  /** What was expected, in words (a type, a format, a bound). */
  readonly expected?: string;
  /** The offending value, when it is small enough to show. */
  readonly actual?: unknown;
}

/** What a planner may do next, with the evidence it needs. */
export interface Recovery {
  readonly action: RecoveryAction;
  readonly issues?: readonly FieldIssue[];
  /** The rejected input, so a model can correct it. */
  readonly priorInput?: unknown;
  /** An example of a valid payload, as JSON text. */
  readonly exampleJson?: string;
}

/**
 * Which layer's facts a failure was built from, set where it is built: `transport` (process,
 * socket, deadline), `http` (a status), `rpc` (a JSON-RPC error), `tool` (the tool's own result:
 * `isError`, a malformed or off-schema result, a failed task) or `local` (the runtime decided).
 */
export type FailureSource = "transport" | "http" | "rpc" | "tool" | "local";

/** Every failure source, in declaration order. */
export const FAILURE_SOURCES: readonly FailureSource[] = Object.freeze(["transport", "http", "rpc", "tool", "local"]);

/** A failed tool call, as a value. Never thrown. */
export interface ToolFailure {
  readonly kind: FailureKind;
  readonly message: string;
  readonly recovery: Recovery;
  /** Where the failure was built; absent only on failures a third-party caller built by hand. */
  readonly source?: FailureSource;
  /** JSON-RPC error code and data, kept verbatim. */
  readonly rpc?: { readonly code: number; readonly data?: unknown };
  readonly httpStatus?: number;
  readonly exitCode?: number | null;
  readonly stderrTail?: string;
  /** Tool id or wire name the call was for. */
  readonly tool: string;
  /** Server the call went to. */
  readonly server: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  /** Content blocks kept from the server (domain rejections and malformed results). */
  readonly content?: readonly unknown[];
  /** Set when the runtime itself refused or stopped the call (policy, unknown tool). */
  readonly reason?: FailureReason;
  /** Closest known tool names, for `reason: "tool_unavailable"`. */
  readonly suggestions?: readonly string[];
  /** Durable-run evidence, for `reason: "outcome_unknown"`: which call, when it was sent, by which worker. */
  readonly durable?: DurableEvidence;
}

/** Where and when a durable call was last sent, for a failure whose outcome is unknown. */
export interface DurableEvidence {
  readonly runId: string;
  /** The call's number in the run (0-based). */
  readonly call: number;
  /** The `_meta` idempotency key the call carried. */
  readonly idempotencyKey: string;
  /** When the worker recorded its intent to send (ms since epoch). */
  readonly sentAt: number;
  /** The worker that recorded the intent and then stopped without recording a result. */
  readonly sentBy: string;
  /** The worker that found the unfinished call. */
  readonly foundBy: string;
}

/** Why the runtime itself refused or stopped a call (a `local` failure). A closed set. */
export type FailureReason =
  | "tool_unavailable"
  | "max_tool_calls"
  | "max_consecutive_failures"
  | "time_budget"
  | "tool_timeout"
  | "confirmation_denied"
  | "outcome_unknown"
  | "tool_hidden"
  | "tool_held"
  | "not_approved"
  | "server_disabled"
  | "server_not_configured"
  | "manager_stopped"
  | "caller_failed"
  | "invalid_failure"
  | "config_rejected"
  | "config_write_failed";

/** Every failure reason, in declaration order. */
export const FAILURE_REASONS: readonly FailureReason[] = Object.freeze([
  "tool_unavailable",
  "max_tool_calls",
  "max_consecutive_failures",
  "time_budget",
  "tool_timeout",
  "confirmation_denied",
  "outcome_unknown",
  "tool_hidden",
  "tool_held",
  "not_approved",
  "server_disabled",
  "server_not_configured",
  "manager_stopped",
  "caller_failed",
  "invalid_failure",
  "config_rejected",
  "config_write_failed",
]);

/** Every field-issue constraint, in declaration order (code mode's `ToolError` declaration mirrors it). */
export const ISSUE_CONSTRAINTS_LIST: readonly IssueConstraint[] = Object.freeze([
  "missing_field",
  "invalid_enum_value",
  "invalid_format",
  "invalid_pattern",
  "invalid_range",
  "invalid_length",
  "invalid_field_type",
  "unknown_field",
]);

const ISSUE_CONSTRAINTS: ReadonlySet<string> = new Set(ISSUE_CONSTRAINTS_LIST);

/** Actions each kind may take. `correct_call` only where the caller's input is at fault. */
const ACTIONS_BY_KIND: { readonly [K in FailureKind]: readonly RecoveryAction[] } = {
  invalid_call: ["correct_call", "replan", "finish"],
  domain_rejection: ["correct_call", "replan", "finish"],
  unavailable: ["retry", "replan", "finish"],
  rate_limited: ["retry", "replan", "finish"],
  timeout: ["retry", "replan", "finish"],
  canceled: ["replan", "finish"],
  malformed_result: ["retry", "replan", "finish"],
  auth_required: ["retry", "replan", "finish"],
  internal: ["retry", "replan", "finish"],
};

const isObject = (v: unknown): v is { readonly [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

// A failure must round-trip through JSON unchanged: NaN, a Date, a Map or a class instance would
// be lost or altered on the way to a planner, a log or a store.
function jsonProblem(value: unknown, path: string, depth = 0): string | undefined {
  if (depth > 64) return `${path} is nested too deeply`;
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${path} is not a finite number`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = jsonProblem(value[i], `${path}[${i}]`, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  if (isObject(value) && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      const p = jsonProblem(v, `${path}.${k}`, depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  return `${path} is not a JSON value (${typeof value})`;
}

/** Checks that `f` is a well-formed, possible failure. Returns the problems found; empty means valid. */
export function validateFailure(f: unknown): string[] {
  if (!isObject(f)) return ["failure is not an object"];
  const problems: string[] = [];
  const kind = f.kind as FailureKind;
  const recovery = f.recovery;
  if (!(FAILURE_KINDS as readonly unknown[]).includes(kind)) problems.push(`unknown kind ${JSON.stringify(f.kind)}`);
  if (typeof f.message !== "string" || f.message === "") problems.push("message must be a non-empty string");
  if (typeof f.tool !== "string") problems.push("tool must be a string");
  if (typeof f.server !== "string") problems.push("server must be a string");
  if (typeof f.retryable !== "boolean") problems.push("retryable must be a boolean");
  // The checks below all read recovery: stop here rather than report its absence many times over.
  if (!isObject(recovery)) return [...problems, "recovery must be an object"];
  const action = recovery.action as RecoveryAction;
  if (!(RECOVERY_ACTIONS as readonly unknown[]).includes(action)) problems.push(`unknown action ${JSON.stringify(recovery.action)}`);
  const allowed = ACTIONS_BY_KIND[kind];
  if (allowed && RECOVERY_ACTIONS.includes(action) && !allowed.includes(action)) problems.push(`kind ${kind} cannot take action ${action}`);
  // retryable mirrors action === "retry"; two fields that could disagree would let a retry loop and a
  // planner act differently on the same failure.
  if (typeof f.retryable === "boolean" && f.retryable !== (action === "retry"))
    problems.push(f.retryable ? `retryable failure must have action retry, not ${action}` : "action retry requires retryable: true");
  const issues = recovery.issues;
  if (issues !== undefined) {
    if (!Array.isArray(issues) || issues.length === 0) problems.push("recovery.issues must be a non-empty array when present");
    else
      issues.forEach((issue: unknown, i) => {
        if (!isObject(issue) || typeof issue.field !== "string" || !ISSUE_CONSTRAINTS.has(String(issue.constraint)))
          problems.push(`recovery.issues[${i}] is not a field issue`);
      });
  }
  // Presence, not value: the rejected input may itself be null or false.
  const hasInput = Object.hasOwn(recovery, "priorInput");
  const hasExample = recovery.exampleJson !== undefined;
  if (action === "correct_call" && !hasInput && issues === undefined)
    problems.push("correct_call needs evidence: issues or the rejected priorInput");
  if (action !== "correct_call" && (hasInput || hasExample))
    problems.push(`${action} carries no correction data (priorInput, exampleJson)`);
  // malformed_result keeps its issues on replan: they describe what the server sent, not what to correct.
  if (action !== "correct_call" && issues !== undefined && kind !== "malformed_result")
    problems.push(`${action} carries no issues (only correct_call and malformed_result do)`);
  if (action === "finish" && issues !== undefined) problems.push("finish carries no evidence");
  if (hasExample) {
    if (typeof recovery.exampleJson !== "string") problems.push("exampleJson must be JSON text");
    else
      try {
        JSON.parse(recovery.exampleJson);
      } catch {
        problems.push("exampleJson is not valid JSON");
      }
  }
  if (f.retryAfterMs !== undefined) {
    if (typeof f.retryAfterMs !== "number" || !Number.isFinite(f.retryAfterMs) || f.retryAfterMs < 0)
      problems.push("retryAfterMs must be a finite number >= 0");
    if (f.retryable !== true) problems.push("retryAfterMs only makes sense on a retryable failure");
  }
  if (f.httpStatus !== undefined && (!Number.isInteger(f.httpStatus) || (f.httpStatus as number) < 100 || (f.httpStatus as number) > 599))
    problems.push("httpStatus must be an HTTP status code");
  if (f.rpc !== undefined && (!isObject(f.rpc) || !Number.isInteger(f.rpc.code))) problems.push("rpc.code must be an integer");
  if (f.exitCode !== undefined && f.exitCode !== null && !Number.isInteger(f.exitCode))
    problems.push("exitCode must be an integer or null");
  if (f.stderrTail !== undefined && typeof f.stderrTail !== "string") problems.push("stderrTail must be a string");
  if (f.content !== undefined && !Array.isArray(f.content)) problems.push("content must be an array");
  if (f.source !== undefined && !(FAILURE_SOURCES as readonly unknown[]).includes(f.source))
    problems.push(`unknown source ${JSON.stringify(f.source)}`);
  if (f.reason !== undefined && !(FAILURE_REASONS as readonly unknown[]).includes(f.reason))
    problems.push(`unknown reason ${JSON.stringify(f.reason)}`);
  if (f.suggestions !== undefined && (!Array.isArray(f.suggestions) || f.suggestions.some((s) => typeof s !== "string")))
    problems.push("suggestions must be an array of strings");
  if (f.durable !== undefined && (!isObject(f.durable) || typeof f.durable.idempotencyKey !== "string"))
    problems.push("durable must be an object with an idempotencyKey");
  const json = jsonProblem(f, "failure");
  if (json) problems.push(json);
  return problems;
}

/** True when `value` is a valid `ToolFailure`. */
export function isToolFailure(value: unknown): value is ToolFailure {
  return validateFailure(value).length === 0;
}

// One parallel failure that says finish must stop the run; retry is the weakest because any other
// answer already covers trying again differently.
const STRENGTH: { readonly [A in RecoveryAction]: number } = { retry: 0, replan: 1, correct_call: 2, finish: 3 };

/** The strongest of several actions: finish > correct_call > replan > retry. */
export function strongestAction(actions: readonly RecoveryAction[]): RecoveryAction | undefined {
  let best: RecoveryAction | undefined;
  for (const a of actions) if (best === undefined || STRENGTH[a] > STRENGTH[best]) best = a;
  return best;
}

/** Combines parallel failures: the strongest action wins; `failure` is the first failure that carries it. */
export function combineFailures(
  failures: readonly ToolFailure[],
): { readonly action: RecoveryAction; readonly failure: ToolFailure; readonly failures: readonly ToolFailure[] } | undefined {
  const action = strongestAction(failures.map((f) => f.recovery.action));
  const failure = failures.find((f) => f.recovery.action === action);
  return action === undefined || failure === undefined ? undefined : { action, failure, failures };
}

/** A failure with `values` removed from every string it carries: message, stderr, rpc data, content, evidence. */
export function redactFailureValues(failure: ToolFailure, values: readonly string[]): ToolFailure {
  return redactValuesIn(failure, values);
}

/** A failure scrubbed of every registered secret value, in every string it carries. */
export function redactFailure(failure: ToolFailure): ToolFailure {
  return redactFailureValues(failure, registeredSecretValues());
}
