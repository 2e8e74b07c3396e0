/**
 * The one place where wire facts become failures: JSON-RPC codes, HTTP statuses, transport errors,
 * `isError` results, local validation and runtime policy. One case per line; tests walk a table.
 */

import type { WireFault } from "../protocol/wire-fault.js";
import {
  type FailureKind,
  type FailureReason,
  type FailureSource,
  type FieldIssue,
  isToolFailure,
  type RecoveryAction,
  redactFailure,
  redactText,
  type ToolFailure,
  toJsonValue,
} from "./failure.js";

/** Kind, action and retryability for one mapped case. */
export interface Mapping {
  readonly kind: FailureKind;
  readonly action: RecoveryAction;
  readonly retryable: boolean;
}

const m = (kind: FailureKind, action: RecoveryAction): Mapping => ({ kind, action, retryable: action === "retry" });

/** JSON-RPC error code → mapping. Codes not listed fall back to `mapRpcCode`'s ranges. */
export const RPC_CODE_MAP: ReadonlyMap<number, Mapping> = new Map([
  [-32700, m("internal", "retry")], // parse error: the server could not parse what we sent (damaged in transit)
  [-32600, m("invalid_call", "replan")], // invalid request: this request cannot succeed as sent
  [-32601, m("invalid_call", "replan")], // method not found: the server does not offer it
  [-32602, m("invalid_call", "correct_call")], // invalid params: fix the arguments (needs the rejected input)
  [-32603, m("internal", "retry")], // internal error on the server
  [-32000, m("unavailable", "retry")], // connection closed (SDK convention)
  [-32001, m("timeout", "retry")], // request timeout (SDK convention)
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

/**
 * Where a failure happened and the facts its mapping depends on, known where it is built: what was
 * sent (so `correct_call` can carry evidence) and what the typed call path knows about the tool.
 */
export interface FailureContext {
  readonly tool: string;
  readonly server: string;
  /** The arguments that were sent. Without them, correctable cases degrade to `replan`. */
  readonly input?: unknown;
  /** A valid example payload, as JSON text. */
  readonly exampleJson?: string;
  /** False when the tool is not declared read-only or idempotent: a failure after which it may have run is not retried as is. */
  readonly repeatable?: boolean;
  /** The run's deadline a request timeout ran into: its tool timeout, or its time budget. */
  readonly deadline?: "tool_timeout" | "time_budget";
}

/** What the typed call path knows about a tool and a run, handed to a caller so its failures are built with it. */
export type CallFacts = Partial<Pick<FailureContext, "tool" | "exampleJson" | "repeatable" | "deadline">>;

/**
 * The context for the failures of one call, built by the caller that sends it: the arguments sent
 * and the facts the call path handed down. Without facts, failures name the wire name.
 */
export function callContext(
  server: string,
  request: { readonly name: string; readonly arguments?: unknown },
  facts: CallFacts | undefined,
): FailureContext {
  return {
    ...facts,
    tool: facts?.tool ?? request.name,
    server,
    ...(request.arguments === undefined ? {} : { input: request.arguments }),
  };
}

function issuesFromData(data: unknown): FieldIssue[] | undefined {
  const issues = (data as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const valid = issues.filter((i): i is FieldIssue => typeof i === "object" && i !== null && typeof (i as FieldIssue).field === "string");
  return valid.length === issues.length ? (toJsonValue(valid) as FieldIssue[]) : undefined;
}

function build(
  map: Mapping,
  message: string,
  context: FailureContext,
  source: FailureSource,
  extra: Partial<ToolFailure>,
  issues?: readonly FieldIssue[],
): ToolFailure {
  // Deadline rows: a timeout under the run's time budget is the budget running out; under the
  // tool timeout it says so (both are facts of the run, handed down in the context).
  if (map.kind === "timeout" && context.deadline === "time_budget")
    return build(
      LOCAL_MAP.time_budget,
      `the run time budget ran out during ${context.tool}; stop calling tools`,
      noDeadline(context),
      "local",
      {
        reason: "time_budget",
      },
    );
  let recovery: ToolFailure["recovery"] = { action: map.action };
  if (map.action === "correct_call") {
    if (context.input === undefined && !issues) recovery = { action: "replan" };
    else
      recovery = {
        action: "correct_call",
        ...(issues && issues.length > 0 ? { issues } : {}),
        ...(context.input === undefined ? {} : { priorInput: toJsonValue(context.input) }),
        ...(context.exampleJson === undefined ? {} : { exampleJson: context.exampleJson }),
      };
  }
  const tagged =
    map.kind === "timeout" && context.deadline === "tool_timeout" && extra.reason === undefined ? { reason: "tool_timeout" as const } : {};
  let failure: ToolFailure = {
    kind: map.kind,
    message: redactText(message),
    recovery,
    source,
    tool: context.tool,
    server: context.server,
    retryable: recovery.action === "retry",
    ...extra,
    ...tagged,
  };
  // Unsafe to repeat: a failure after which a tool not declared read-only or idempotent may have run.
  if (context.repeatable === false && failure.recovery.action === "retry" && mayHaveRun(failure)) {
    const { retryAfterMs: _ignored, ...rest } = failure;
    const why = `not safe to repeat as is: ${context.tool} is not declared read-only or idempotent and may have run`;
    failure = { ...rest, message: `${failure.message}; ${why}`, recovery: { action: "replan" }, retryable: false };
  }
  // One redaction pass over the finished failure: every string it carries, whichever path built it.
  return redactFailure(failure);
}

function noDeadline(context: FailureContext): FailureContext {
  const { deadline: _dropped, ...rest } = context;
  return rest;
}

/**
 * A failure's message without the `server: ` prefix the mapping puts first: for text that is
 * wrapped into a new failure for the same server (status errors), so the prefix is said once.
 */
export function messageWithoutServer(failure: Pick<ToolFailure, "message" | "server">): string {
  const prefix = `${failure.server}: `;
  return failure.server !== "" && failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message;
}

/** Turns a wire fault into a failure. */
export function failureFromFault(fault: WireFault, context: FailureContext): ToolFailure {
  const at = context.server;
  switch (fault.type) {
    case "rpc": {
      const rpc = fault.data === undefined ? { code: fault.code } : { code: fault.code, data: toJsonValue(fault.data) };
      return build(
        mapRpcError(fault.code, fault.message),
        `${at}: ${fault.message} (JSON-RPC ${fault.code})`,
        context,
        "rpc",
        // A JSON-RPC error that came as the body of an HTTP 400/404 keeps its status too.
        fault.httpStatus === undefined ? { rpc } : { rpc, httpStatus: fault.httpStatus },
        issuesFromData(fault.data),
      );
    }
    case "http": {
      const map = mapHttpStatus(fault.status, fault.retryAfterMs);
      const wait = map.retryable && fault.retryAfterMs !== undefined ? { retryAfterMs: Math.max(0, fault.retryAfterMs) } : {};
      return build(map, `${at}: HTTP ${fault.status} ${fault.message}`, context, "http", { httpStatus: fault.status, ...wait });
    }
    case "transport":
      return build(mapTransportCode(fault.code), `${at}: ${fault.message}`, context, "transport", {
        ...(fault.exitCode === undefined ? {} : { exitCode: fault.exitCode }),
        ...(fault.stderrTail ? { stderrTail: redactText(fault.stderrTail) } : {}),
      });
    case "timeout":
      return build(
        mapTimeout(fault.phase),
        `${at}: ${fault.phase === "connect" ? "connect" : "call"} timed out, ${fault.message}`,
        context,
        "transport",
        {},
      );
    case "malformed":
      return failureFromMalformedResult(fault.issues, fault.content, context, `${at}: ${fault.message}`);
    case "canceled":
      return build(m("canceled", "finish"), `${at}: ${fault.message}`, context, "local", {});
    case "task":
      return build(TASK_STATUS_MAP[fault.status], `${at}: task ${fault.taskId} ${fault.status}: ${fault.message}`, context, "tool", {});
  }
}

/** A result that breaks the protocol's shape: `malformed_result`, with the issues and any content as evidence. */
export function failureFromMalformedResult(
  issues: readonly FieldIssue[],
  content: readonly unknown[] | undefined,
  context: FailureContext,
  message?: string,
): ToolFailure {
  const summary = issues.map((i) => `${i.field || "(root)"}: ${i.constraint}${i.expected ? ` (expected ${i.expected})` : ""}`).join("; ");
  const failure = build(
    m("malformed_result", "replan"),
    message ?? `${context.server}: ${context.tool} returned a result that breaks the MCP result shape: ${summary}`,
    context,
    "tool",
    content === undefined ? {} : { content: toJsonValue(content) as unknown[] },
  );
  const kept = toJsonValue(issues) as FieldIssue[];
  return kept.length > 0 ? { ...failure, recovery: { action: "replan", issues: kept } } : failure;
}

const INPUT_REJECTED = /input validation error|invalid arguments|invalid params/i;

/** Turns an `isError: true` result into a domain rejection that keeps the content. */
export function failureFromToolError(content: readonly unknown[], context: FailureContext): ToolFailure {
  const text = content
    .filter((b): b is { type: "text"; text: string } => typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text")
    .map((b) => b.text)
    .join("\n");
  // The SDK reports its own argument validation as isError text; the input is then the thing to fix.
  const map = INPUT_REJECTED.test(text) ? m("domain_rejection", "correct_call") : m("domain_rejection", "replan");
  return build(map, text || `${context.tool} reported an error`, context, "tool", { content: toJsonValue(content) as unknown[] });
}

/** A payload that failed local validation: nothing was sent. */
export function failureFromInvalidInput(
  issues: readonly FieldIssue[],
  input: unknown,
  exampleJson: string | undefined,
  context: FailureContext,
): ToolFailure {
  const summary = issues.map((i) => `${i.field || "(root)"}: ${i.constraint}`).join("; ") || "rejected by the validator";
  const ctx = { ...context, input: input === undefined ? null : input, ...(exampleJson === undefined ? {} : { exampleJson }) };
  return build(
    m("invalid_call", "correct_call"),
    `invalid arguments for ${context.tool}: ${summary}`,
    ctx,
    "local",
    {},
    toJsonValue(issues) as FieldIssue[],
  );
}

/** Model-supplied arguments that are not a JSON object (bad JSON text, an array, a number...). */
export function failureFromUnparsableArguments(
  raw: unknown,
  problem: string,
  exampleJson: string | undefined,
  context: FailureContext,
): ToolFailure {
  const shown = typeof raw === "string" && raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  const issue: FieldIssue = {
    field: "",
    constraint: "invalid_field_type",
    expected: "a JSON object",
    ...(shown === undefined ? {} : { actual: toJsonValue(shown) }),
  };
  const ctx = { ...context, input: raw === undefined ? null : raw, ...(exampleJson === undefined ? {} : { exampleJson }) };
  return build(m("invalid_call", "correct_call"), `arguments for ${context.tool} are not a JSON object: ${problem}`, ctx, "local", {}, [
    issue,
  ]);
}

/** A result whose structured content does not match the declared output schema. Keeps the content. */
export function failureFromInvalidOutput(issues: readonly FieldIssue[], content: readonly unknown[], context: FailureContext): ToolFailure {
  const summary = issues.map((i) => `${i.field || "(root)"}: ${i.constraint}`).join("; ") || "rejected by the validator";
  const message = `${context.tool} returned a result that does not match its output schema: ${summary}`;
  return failureFromMalformedResult(issues, content, context, message);
}

/**
 * A failure the runtime, the manager or a caller decided on without a server's answer: policy
 * limits, a tool that cannot be called, a refused registration, a caller that broke. One row of
 * `LOCAL_MAP` per reason; `reason` and `source: "local"` say so on the failure.
 */
export function failureFromLocal(
  reason: FailureReason,
  message: string,
  context: FailureContext,
  extra: { readonly suggestions?: readonly string[] } = {},
): ToolFailure {
  const evidence = { reason, ...(extra.suggestions ? { suggestions: [...extra.suggestions] } : {}) };
  return build(LOCAL_MAP[reason], message, context, "local", evidence);
}

const WIRE_FAULT_TYPES: ReadonlySet<unknown> = new Set(["rpc", "http", "transport", "timeout", "malformed", "canceled", "task"]);

/**
 * Turns anything thrown into a failure, as connect-es's `ConnectError.from(reason)` does: a
 * `ToolFailure` passes through unchanged, an error carrying a wire fault is mapped as that fault,
 * an `AbortError` is `canceled`, a `TimeoutError` a request timeout, and anything else the local
 * reason `as` (default `caller_failed`) with its message (redacted like every failure).
 */
export function failureFrom(
  thrown: unknown,
  context: FailureContext,
  as: FailureReason = "caller_failed",
  what = "the caller threw",
): ToolFailure {
  if (isToolFailure(thrown)) return thrown;
  const at = context.server === "" ? "" : `${context.server}: `;
  if (thrown instanceof Error) {
    const fault = (thrown as { fault?: { type?: unknown } }).fault;
    if (typeof fault === "object" && fault !== null && WIRE_FAULT_TYPES.has(fault.type))
      return failureFromFault(fault as WireFault, context);
    if (thrown.name === "AbortError") return failureFromFault({ type: "canceled", message: thrown.message || "aborted" }, context);
    if (thrown.name === "TimeoutError") return failureFromFault({ type: "timeout", phase: "request", message: thrown.message }, context);
    return failureFromLocal(as, `${at}${what}: ${thrown.message || thrown.name}`, context);
  }
  let text: string;
  try {
    text = String(thrown);
  } catch {
    text = `[${typeof thrown}]`;
  }
  return failureFromLocal(as, `${at}${what}: ${text}`, context);
}
