/**
 * The one place where wire facts become failures: JSON-RPC codes, HTTP statuses, transport errors,
 * `isError` results and local validation. One case per line; `failure-mapping.test.ts` walks a table.
 */
import type { FailureKind, FieldIssue, RecoveryAction, ToolFailure } from "./failure.js";
import type { WireFault } from "./protocol/wire-fault.js";

/** Kind, action and retryability for one mapped case. */
export interface Mapping {
  readonly kind: FailureKind;
  readonly action: RecoveryAction;
  readonly retryable: boolean;
}

const m = (kind: FailureKind, action: RecoveryAction, retryable: boolean): Mapping => ({ kind, action, retryable });

/** JSON-RPC error code → mapping. Codes not listed fall back to `mapRpcCode`'s ranges. */
export const RPC_CODE_MAP: ReadonlyMap<number, Mapping> = new Map([
  [-32700, m("invalid_call", "retry", true)], // parse error: our message was damaged in transit
  [-32600, m("invalid_call", "replan", false)], // invalid request
  [-32601, m("invalid_call", "replan", false)], // method or tool not found
  [-32602, m("invalid_call", "correct_call", false)], // invalid params / unknown tool
  [-32603, m("internal", "retry", true)], // server internal error
  [-32001, m("timeout", "retry", true)], // SDK-style request timeout
  [-32002, m("invalid_call", "correct_call", false)], // resource not found (legacy)
  [-32042, m("auth_required", "finish", false)], // URL elicitation required: needs the user
  [-32020, m("internal", "retry", true)], // header mismatch (2026): a client bug, retry after renegotiation
  [-32021, m("invalid_call", "replan", false)], // missing required client capability (2026)
  [-32022, m("unavailable", "retry", true)], // unsupported protocol version (2026)
]);

/** Maps a JSON-RPC error code, including server-defined codes outside the table. */
export function mapRpcCode(code: number): Mapping {
  const known = RPC_CODE_MAP.get(code);
  if (known) return known;
  if (code >= -32099 && code <= -32000) return m("internal", "retry", true); // implementation-defined server errors
  return m("internal", "replan", false); // application codes we cannot interpret
}

/** HTTP status → mapping. */
export function mapHttpStatus(status: number): Mapping {
  if (status === 400) return m("invalid_call", "replan", false);
  if (status === 401) return m("auth_required", "finish", false);
  if (status === 403) return m("auth_required", "finish", false);
  if (status === 404) return m("unavailable", "replan", false);
  if (status === 405) return m("unavailable", "replan", false);
  if (status === 408) return m("timeout", "retry", true);
  if (status === 409) return m("unavailable", "retry", true);
  if (status === 413) return m("invalid_call", "correct_call", false);
  if (status === 429) return m("rate_limited", "retry", true);
  if (status >= 500) return m("unavailable", "retry", true);
  return m("internal", "replan", false);
}

/** Transport error code → mapping. */
export function mapTransportCode(code: string): Mapping {
  if (code === "ENOENT" || code === "EACCES") return m("unavailable", "finish", false); // spawn: command missing or not executable
  if (code === "EOVERSIZE") return m("malformed_result", "replan", false);
  return m("unavailable", "retry", true); // ECONNREFUSED, ECONNRESET, EXIT, ECLOSED, EPIPE...
}

/** Where a failure happened. */
export interface FailureContext {
  readonly tool: string;
  readonly server: string;
}

/** Turns a wire fault into a failure. */
export function failureFromFault(fault: WireFault, context: FailureContext): ToolFailure {
  switch (fault.type) {
    case "rpc": {
      const map = mapRpcCode(fault.code);
      return {
        kind: map.kind,
        message: `${context.server}: ${fault.message} (JSON-RPC ${fault.code})`,
        recovery: { action: map.action },
        rpc: fault.data === undefined ? { code: fault.code } : { code: fault.code, data: fault.data },
        retryable: map.retryable,
        ...context,
      };
    }
    case "http": {
      const map = mapHttpStatus(fault.status);
      return {
        kind: map.kind,
        message: `${context.server}: HTTP ${fault.status} ${fault.message}`,
        recovery: { action: map.action },
        httpStatus: fault.status,
        retryable: map.retryable,
        ...(fault.retryAfterMs === undefined ? {} : { retryAfterMs: fault.retryAfterMs }),
        ...context,
      };
    }
    case "transport": {
      const map = mapTransportCode(fault.code);
      return {
        kind: map.kind,
        message: `${context.server}: ${fault.message}`,
        recovery: { action: map.action },
        retryable: map.retryable,
        ...(fault.exitCode === undefined ? {} : { exitCode: fault.exitCode }),
        ...(fault.stderrTail ? { stderrTail: fault.stderrTail } : {}),
        ...context,
      };
    }
    case "timeout":
      return {
        kind: fault.phase === "connect" ? "unavailable" : "timeout",
        message: `${context.server}: ${fault.phase === "connect" ? "connect" : "call"} timed out, ${fault.message}`,
        recovery: { action: "retry" },
        retryable: true,
        ...context,
      };
    case "canceled":
      return {
        kind: "canceled",
        message: `${context.server}: ${fault.message}`,
        recovery: { action: "finish" },
        retryable: false,
        ...context,
      };
  }
}

/** Turns an `isError: true` tool result into a domain rejection that keeps the content. */
export function failureFromToolError(content: readonly unknown[], context: FailureContext): ToolFailure {
  const text = content
    .filter((b): b is { type: "text"; text: string } => (b as { type?: unknown }).type === "text")
    .map((b) => b.text)
    .join("\n");
  return {
    kind: "domain_rejection",
    message: text || `${context.tool} reported an error`,
    recovery: { action: "replan" },
    retryable: false,
    content,
    ...context,
  };
}

/** A payload that failed local validation: nothing was sent. */
export function failureFromInvalidInput(
  issues: readonly FieldIssue[],
  input: unknown,
  exampleJson: string | undefined,
  context: FailureContext,
): ToolFailure {
  const summary = issues.map((i) => `${i.field || "(root)"}: ${i.constraint}`).join("; ");
  return {
    kind: "invalid_call",
    message: `invalid arguments for ${context.tool}: ${summary}`,
    recovery: { action: "correct_call", issues, priorInput: input, ...(exampleJson === undefined ? {} : { exampleJson }) },
    retryable: false,
    ...context,
  };
}

/** A result whose structured content does not match the declared output schema. */
export function failureFromInvalidOutput(issues: readonly FieldIssue[], content: readonly unknown[], context: FailureContext): ToolFailure {
  const summary = issues.map((i) => `${i.field || "(root)"}: ${i.constraint}`).join("; ");
  return {
    kind: "malformed_result",
    message: `${context.tool} returned a result that does not match its output schema: ${summary}`,
    recovery: { action: "replan", issues },
    retryable: false,
    content,
    ...context,
  };
}
