/**
 * The one place where wire facts become failures: JSON-RPC codes, HTTP statuses, transport errors,
 * `isError` results, local validation and runtime policy. One case per line; tests walk a table.
 */

import {
  type FailureReason,
  type FailureSource,
  type FieldIssue,
  isToolFailure,
  redactFailure,
  redactText,
  type ToolFailure,
  toJsonValue,
} from "./failure.js";
import {
  LOCAL_MAP,
  type Mapping,
  mapping as m,
  mapHttpStatus,
  mapRpcError,
  mapTimeout,
  mapTransportCode,
  mayHaveRun,
  TASK_STATUS_MAP,
} from "./mapping-tables.js";
import type { WireFault } from "./wire-fault.js";

export {
  LOCAL_MAP,
  type Mapping,
  mapHttpStatus,
  mapRpcCode,
  mapRpcError,
  mapTimeout,
  mapTransportCode,
  mayHaveRun,
  RPC_CODE_MAP,
  retryAfterMsFromHeader,
  TASK_STATUS_MAP,
} from "./mapping-tables.js";

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
  // All or nothing: issues from a server are evidence for correct_call, so a half-valid list is not trusted.
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
    // correct_call without the sent arguments or the issues gives the planner nothing to correct.
    if (context.input === undefined && !issues) recovery = { action: "replan" };
    else
      recovery = {
        action: "correct_call",
        ...(issues && issues.length > 0 ? { issues } : {}),
        ...(context.input === undefined ? {} : { priorInput: toJsonValue(context.input) }),
        ...(context.exampleJson === undefined ? {} : { exampleJson: context.exampleJson }),
      };
  }
  // Only a timeout with no reason of its own is tagged: an explicit reason from the caller wins.
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
    // retryAfterMs only makes sense for retry, which this failure no longer offers.
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
      // A 404's body code is the server's own choice: the SDK and serveHttp both send -32001 for
      // "Session not found", the SDK's request-timeout code. The status says what happened (the
      // session or endpoint is gone, even after a fresh session), so it decides a 404.
      const map = fault.httpStatus === 404 ? mapHttpStatus(404) : mapRpcError(fault.code, fault.message);
      return build(
        map,
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
      // Retry-After is kept only when the row retries (429, 503...); a negative value never reaches the planner.
      const wait = map.retryable && fault.retryAfterMs !== undefined ? { retryAfterMs: Math.max(0, fault.retryAfterMs) } : {};
      return build(map, `${at}: HTTP ${fault.status} ${fault.message}`, context, "http", { httpStatus: fault.status, ...wait });
    }
    case "transport":
      return build(mapTransportCode(fault.code), `${at}: ${fault.message}`, context, "transport", {
        ...(fault.exitCode === undefined ? {} : { exitCode: fault.exitCode }),
        // A crashed child's stderr may print tokens or env values: redacted before it is kept.
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
  // The issues ride on replan, not correct_call: new arguments cannot fix what the server sends back.
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
  // A missing payload becomes null, so correct_call still carries a priorInput the planner can see.
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
  // The raw text goes back to the model as evidence; capped so a huge bad payload does not flood its context.
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
  // Already a failure (a caller returned one by throwing it): mapping it again would lose its kind and evidence.
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
  // String() can throw (a null-prototype object, a throwing toString); the failure must still be built.
  let text: string;
  try {
    text = String(thrown);
  } catch {
    text = `[${typeof thrown}]`;
  }
  return failureFromLocal(as, `${at}${what}: ${text}`, context);
}
