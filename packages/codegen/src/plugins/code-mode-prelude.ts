/**
 * The declarations every code-mode program sees before any toolset's: the `ToolError` a tool
 * function throws, with the runtime's failure kinds, reasons, recovery actions and field-issue constraints
 * spelled from the runtime's own lists, so the sandbox API can never drift from `ToolFailure`.
 * Printed once per generated module (identical text) so each module is self-contained; the type
 * checker loads it once.
 */
import { FAILURE_KINDS, FAILURE_REASONS, ISSUE_CONSTRAINTS_LIST, RECOVERY_ACTIONS } from "@toolwright/runtime/caller";
import { stringLiteral } from "../emit/literal.js";

/** Global names the code-mode declarations use; no toolset namespace or shared type may take one. */
export const CODE_MODE_GLOBALS: readonly string[] = Object.freeze([
  "ToolError",
  "ToolErrorKind",
  "ToolErrorReason",
  "ToolRecoveryAction",
  "ToolFieldIssue",
  "ToolRecovery",
  "Promise",
  "Array",
  "ReadonlyArray",
  "Record",
  "Error",
]);

/**
 * Lower-case value names the ES2023 library and the sandbox define globally. A toolset namespace is
 * camel-cased, so only these could collide with one (`console` would shadow the sandbox's).
 */
export const LOWER_CASE_GLOBALS: ReadonlySet<string> = new Set([
  "globalThis",
  "console",
  "parseInt",
  "parseFloat",
  "isNaN",
  "isFinite",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "unescape",
  "eval",
  "undefined",
  // Predefined type names: a namespace may not take them.
  "any",
  "unknown",
  "never",
  "string",
  "number",
  "boolean",
  "symbol",
  "bigint",
  "object",
]);

const union = (values: readonly string[]) => values.map((v) => stringLiteral(v)).join(" | ");

/** The prelude: `ToolError` and its kinds, reasons, recovery actions and field issues. */
export function codeModePrelude(): string {
  return [
    "/** Why a tool call failed. */",
    `type ToolErrorKind = ${union(FAILURE_KINDS)};`,
    "/** Why the runtime itself refused or stopped a call (policy, budget, approval, unknown tool). */",
    `type ToolErrorReason = ${union(FAILURE_REASONS)};`,
    "/** What to do next: fix the arguments (correct_call), try the same call again (retry), take another way (replan), or stop (finish). */",
    `type ToolRecoveryAction = ${union(RECOVERY_ACTIONS)};`,
    "/** One problem with one field of a payload or a result. */",
    "interface ToolFieldIssue {",
    "  /** Dotted path of the field, e.g. `items[2].name`; empty for the whole value. */",
    "  readonly field: string;",
    `  readonly constraint: ${union(ISSUE_CONSTRAINTS_LIST)};`,
    "  /** Allowed values, for enum issues. */",
    "  readonly allowed?: readonly unknown[];",
    "  /** What was expected, in words. */",
    "  readonly expected?: string;",
    "  /** The offending value, when it is small enough to show. */",
    "  readonly actual?: unknown;",
    "}",
    "/** What to do next, with the evidence for it (a ToolFailure's `recovery`). */",
    "interface ToolRecovery {",
    "  readonly action: ToolRecoveryAction;",
    "  readonly issues?: readonly ToolFieldIssue[];",
    "  /** The arguments that were rejected. */",
    "  readonly priorInput?: unknown;",
    "  /** A valid example payload, as JSON text. */",
    "  readonly exampleJson?: string;",
    "}",
    "/**",
    " * Thrown by a tool function when its call fails: catch it to recover. An uncaught one ends the",
    " * program and is returned as its failure.",
    " */",
    "declare class ToolError extends Error {",
    '  readonly name: "ToolError";',
    "  /** Why the call failed. */",
    "  readonly kind: ToolErrorKind;",
    "  /** What to do next: `recovery.action`. */",
    "  readonly recovery: ToolRecovery;",
    "  /** Field problems: the arguments that were wrong, or the result fields off its schema. */",
    "  readonly issues: readonly ToolFieldIssue[];",
    "  /** The tool that failed. */",
    "  readonly tool: string;",
    "  /** True when the same call may succeed if repeated. */",
    "  readonly retryable: boolean;",
    "  /** Set when the runtime itself refused or stopped the call (e.g. `max_tool_calls`, `not_approved`). */",
    "  readonly reason?: ToolErrorReason;",
    '  /** Closest known tool names, for `reason: "tool_unavailable"`. */',
    "  readonly suggestions?: readonly string[];",
    "}",
  ].join("\n");
}
