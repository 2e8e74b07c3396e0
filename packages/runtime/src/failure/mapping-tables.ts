/**
 * The mapping tables: wire facts (JSON-RPC codes, HTTP statuses, transport codes, timeouts, task
 * statuses) and local reasons to kind, action and retryability. failure-mapping.ts builds failures
 * from these rows and re-exports them.
 */

import type { FailureKind, FailureReason, RecoveryAction, ToolFailure } from "./failure.js";

/** Kind, action and retryability for one mapped case. */
export interface Mapping {
  readonly kind: FailureKind;
  readonly action: RecoveryAction;
  readonly retryable: boolean;
}

/** One mapping row; only `retry` is retryable, so the two can never disagree. */
export const mapping = (kind: FailureKind, action: RecoveryAction): Mapping => ({ kind, action, retryable: action === "retry" });
const m = mapping;

/** JSON-RPC error code → mapping. Codes not listed fall back to `mapRpcCode`'s ranges. */
export const RPC_CODE_MAP: ReadonlyMap<number, Mapping> = new Map([
  [-32700, m("internal", "retry")], // parse error: the server could not parse what we sent (damaged in transit)
  [-32600, m("invalid_call", "replan")], // invalid request: this request cannot succeed as sent
  [-32601, m("invalid_call", "replan")], // method not found: the server does not offer it
  [-32602, m("invalid_call", "correct_call")], // invalid params: fix the arguments (needs the rejected input)
  [-32603, m("internal", "retry")], // internal error on the server
  [-32000, m("unavailable", "retry")], // connection closed (SDK convention)
  [-32001, m("timeout", "retry")], // request timeout (SDK convention); in an HTTP 404 body ("Session not found") the 404 decides
  [-32002, m("invalid_call", "correct_call")], // resource not found: fix the URI (needs the rejected input)
  [-32042, m("auth_required", "finish")], // URL elicitation required: only the user can continue
  [-32020, m("internal", "retry")], // 2026 header mismatch: renegotiate and retry
  [-32021, m("invalid_call", "replan")], // 2026 missing required client capability (e.g. a task-required tool without the tasks extension)
  [-32022, m("unavailable", "retry")], // 2026 unsupported protocol version: fall back and retry
]);

/** Maps a JSON-RPC error code, including server-defined codes outside the table. */
export function mapRpcCode(code: number): Mapping {
  const known = RPC_CODE_MAP.get(code);
  if (known) return known;
  if (code >= -32099 && code <= -32000) return m("internal", "replan"); // other implementation-defined server errors
  if (code >= -32768 && code <= -32000) return m("internal", "replan"); // reserved range, unknown meaning
  return m("domain_rejection", "replan"); // application code: the server refused this call
}

const UNKNOWN_TOOL = /unknown tool|tool\b.*\bnot found/i;

/** Maps a JSON-RPC error with its message: a -32602 that names an unknown tool cannot be corrected by new arguments. */
export function mapRpcError(code: number, message: string): Mapping {
  if (code === -32602 && UNKNOWN_TOOL.test(message)) return m("invalid_call", "replan"); // the server has no such tool
  return mapRpcCode(code);
}

/** HTTP status → mapping. `retryAfterMs` marks a 503 as rate limiting. */
export function mapHttpStatus(status: number, retryAfterMs?: number): Mapping {
  if (status === 400) return m("invalid_call", "replan"); // bad request (a JSON-RPC body, if any, is mapped instead)
  if (status === 401) return m("auth_required", "finish"); // no or expired credentials
  if (status === 403) return m("auth_required", "finish"); // insufficient scope
  if (status === 404) return m("unavailable", "replan"); // endpoint or session gone
  if (status === 405) return m("unavailable", "replan"); // method not allowed on this endpoint
  if (status === 408) return m("timeout", "retry"); // request timeout
  if (status === 409) return m("unavailable", "retry"); // conflict: state changed, try again
  if (status === 413) return m("invalid_call", "correct_call"); // payload too large: send less
  if (status === 429) return m("rate_limited", "retry"); // too many requests, honour Retry-After
  if (status === 501) return m("unavailable", "replan"); // not implemented
  if (status === 503 && retryAfterMs !== undefined) return m("rate_limited", "retry"); // overloaded, with Retry-After
  if (status >= 500 && status <= 599) return m("unavailable", "retry"); // server error
  if (status >= 400 && status <= 499) return m("invalid_call", "replan"); // other client errors
  return m("internal", "replan"); // 1xx/3xx where a response was expected
}

/** Transport error code → mapping. */
export function mapTransportCode(code: string): Mapping {
  if (code === "ENOENT") return m("unavailable", "finish"); // spawn: command not found
  if (code === "EACCES") return m("unavailable", "finish"); // spawn: not executable
  if (code === "ECONNREFUSED") return m("unavailable", "retry"); // nobody listening (yet)
  if (code === "ECONNRESET") return m("unavailable", "retry"); // connection dropped
  if (code === "EPIPE") return m("unavailable", "retry"); // wrote to a dead process or socket
  if (code === "EXIT") return m("unavailable", "retry"); // server process exited; next call restarts it
  if (code === "ETIMEDOUT") return m("timeout", "retry"); // socket timeout
  if (code === "EOVERSIZE") return m("malformed_result", "replan"); // message larger than allowed
  if (code === "EPROTO") return m("malformed_result", "replan"); // garbage where a message was expected
  if (code === "EPOLICY") return m("unavailable", "replan"); // the outbound policy refused the host or address
  return m("unavailable", "retry"); // any other transport error
}

/** The mapping for a deadline: connecting counts as unavailable, waiting for an answer as timeout. */
export function mapTimeout(phase: "connect" | "request"): Mapping {
  return phase === "connect" ? m("unavailable", "retry") : m("timeout", "retry");
}

/** How a task ended without a result → mapping. */
export const TASK_STATUS_MAP: { readonly [S in "failed" | "cancelled" | "expired"]: Mapping } = {
  failed: m("domain_rejection", "replan"), // the task ran and the server reports it failed
  cancelled: m("canceled", "finish"), // the server (or another client) cancelled it
  expired: m("unavailable", "replan"), // its ttl passed before the result was fetched: the result is gone
};

/**
 * Local reasons → mapping: the runtime, the manager or a caller decided without asking a server
 * (policy limits, a tool that cannot be called, a refused registration, a caller that broke).
 */
export const LOCAL_MAP: { readonly [R in FailureReason]: Mapping } = {
  tool_unavailable: m("invalid_call", "replan"), // the model named a tool that does not exist (or a caller dropped it)
  max_tool_calls: m("canceled", "finish"), // run budget of tool calls used up
  max_consecutive_failures: m("canceled", "finish"), // too many failures in a row
  time_budget: m("timeout", "finish"), // run time budget used up
  tool_timeout: m("timeout", "retry"), // one call exceeded the tool timeout
  confirmation_denied: m("canceled", "replan"), // the user (hook) said no: choose another way
  outcome_unknown: m("internal", "replan"), // a durable run lost its worker mid-call to a non-idempotent tool: check, then decide
  tool_hidden: m("invalid_call", "replan"), // the server lists it, its allow/deny lists hide it: no arguments change that
  tool_held: m("invalid_call", "replan"), // held back until a person approves it (new or changed since approved)
  not_approved: m("canceled", "finish"), // the approval hook said no to this call
  server_disabled: m("unavailable", "replan"), // the config disables the server: retrying cannot reach it
  server_not_configured: m("unavailable", "replan"), // no such server in the config
  manager_stopped: m("unavailable", "finish"), // the manager was stopped: nothing can be called any more
  caller_failed: m("internal", "retry"), // the caller threw or answered nothing; the call may have run
  invalid_failure: m("internal", "replan"), // a third-party caller answered a failure that breaks the failure rules
  config_rejected: m("invalid_call", "correct_call"), // a registration's entry is invalid (unset variable, name taken)
  config_write_failed: m("internal", "replan"), // the config file could not be written: new arguments cannot fix the disk
};

// Local reasons after which the call may have reached the server (the caller broke mid-call).
const LOCAL_MAY_HAVE_RUN: ReadonlySet<FailureReason> = new Set(["caller_failed"]);

/** True when a failed call may still have run on the server, so repeating it could repeat a side effect. */
export function mayHaveRun(failure: ToolFailure): boolean {
  if (failure.reason !== undefined && LOCAL_MAY_HAVE_RUN.has(failure.reason)) return true; // the caller broke mid-call
  if (failure.kind === "timeout") return failure.httpStatus !== 408; // no answer in time (a 408 means the server never read it)
  if (failure.kind === "internal" && failure.rpc?.code === -32603) return true; // the server failed while handling it
  if (failure.httpStatus === 500 || failure.httpStatus === 502 || failure.httpStatus === 504) return true; // server or gateway failed mid-request
  return false; // refused before running: rate limits, connection refused, validation, auth...
}

/** `Retry-After` header (delta-seconds or HTTP date) → milliseconds, or undefined when absent or bad. */
export function retryAfterMsFromHeader(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
