/**
 * The one failure type. A `ToolFailure` is a plain, serializable value that a planner can act on:
 * `kind` says why the call failed, `recovery.action` says what the planner may do next.
 */

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

/** A failed tool call, as a value. Never thrown. */
export interface ToolFailure {
  readonly kind: FailureKind;
  readonly message: string;
  readonly recovery: Recovery;
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
}
