/**
 * The typed call path shared by generated clients and the runtime registry: validate the payload
 * locally, call, then map `isError`, decode structured content, and keep every content block.
 */

import { redactFailure } from "../failure/failure.js";
import {
  type CallFacts,
  callContext,
  type FailureContext,
  failureFrom,
  failureFromFault,
  failureFromInvalidInput,
  failureFromInvalidOutput,
  failureFromLocal,
  failureFromToolError,
} from "../failure/failure-mapping.js";
import type { CallToolResult } from "../protocol/mcp-types.js";
import { callResultIssues, malformedResultFault } from "../protocol/result-shape.js";
import { type Caller, type CallOptions, type CallResponse, propagates } from "./caller.js";
import type { ToolResult, ToolSpec } from "./tool-spec.js";

/** Joins the text blocks of a result. */
export function joinText(result: Pick<CallToolResult, "content">): string {
  const content = result.content;
  let out = "";
  // An index loop, not for...of: until V8 optimises it (the first thousands of calls) an iterator costs.
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    if (block?.type === "text" && typeof block.text === "string") out = out === "" ? block.text : `${out}\n${block.text}`;
  }
  return out;
}

/** Structured content, or (for servers older than 2025-06-18) the first text block parsed as JSON. */
function structuredOf(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const first = result.content.find((b) => b?.type === "text");
  if (first?.type !== "text") return undefined;
  try {
    return JSON.parse(first.text);
  } catch {
    return undefined;
  }
}

/** What turning a result into a `ToolResult` needs from a spec. */
export type ResultSpec<R> = Pick<ToolSpec<unknown, R>, "id" | "exampleJson" | "decodeResult">;

/** The failure context of a result: built only when the result is a failure. */
function resultContext<R>(spec: ResultSpec<R>, server: string, input: unknown): FailureContext {
  return {
    tool: spec.id,
    server,
    ...(input === undefined ? {} : { input }),
    ...(spec.exampleJson === undefined ? {} : { exampleJson: spec.exampleJson }),
  };
}

/**
 * Turns a raw call result into a `ToolResult` for `spec`. `input` is what was sent (evidence for
 * corrections). A result that breaks the protocol's shape is `malformed_result`, whoever produced it.
 */
export function resultFromCall<R>(spec: ResultSpec<R>, server: string, result: CallToolResult, input?: unknown): ToolResult<R> {
  const issues = callResultIssues(result);
  if (issues.length > 0) {
    const fault = malformedResultFault(result, issues);
    return { ok: false, failure: failureFromFault(fault, resultContext(spec, server, input)) };
  }
  return resultFromShaped(spec, server, Array.isArray(result.content) ? result : { ...result, content: [] }, input);
}

/**
 * `resultFromCall` for a result whose shape is already checked, with `content` an array: what the
 * built-in sessions answer (`shapedCallResult` runs on every `tools/call` result they read).
 */
export function resultFromShaped<R>(spec: ResultSpec<R>, server: string, result: CallToolResult, input?: unknown): ToolResult<R> {
  const content = result.content;
  if (result.isError === true) return { ok: false, failure: failureFromToolError(content, resultContext(spec, server, input)) };
  if (spec.decodeResult) {
    const structured = structuredOf(result);
    const decoded = spec.decodeResult(structured);
    if (!decoded.ok) return { ok: false, failure: failureFromInvalidOutput(decoded.issues, content, resultContext(spec, server, input)) };
    return { ok: true, value: decoded.value, content, structured };
  }
  return { ok: true, value: joinText(result) as R, content, structured: result.structuredContent };
}

/** The facts the typed path hands a caller for `spec`: its id and example, plus what the run knows. */
function factsFor(spec: ToolSpec<unknown, unknown>, options: CallOptions): CallFacts {
  return { ...options.facts, tool: spec.id, ...(spec.exampleJson === undefined ? {} : { exampleJson: spec.exampleJson }) };
}

/** Validates `payload`, calls the tool through `caller`, and returns a typed result. Never throws. */
export async function invokeTool<P, R>(
  caller: Caller,
  spec: ToolSpec<P, R>,
  payload: P,
  options: CallOptions = {},
): Promise<ToolResult<R>> {
  const decoded = spec.decodePayload(payload);
  if (!decoded.ok) {
    return {
      ok: false,
      failure: failureFromInvalidInput(decoded.issues, payload, spec.exampleJson, { tool: spec.id, server: caller.server }),
    };
  }
  return invokeValidated(caller, spec, payload, options);
}

/**
 * `invokeTool` for a payload the caller already validated against `spec` (the runtime does, before
 * asking for confirmation): one validation per call. Never throws except what `propagates`.
 */
export async function invokeValidated<P, R>(
  caller: Caller,
  spec: ToolSpec<P, R>,
  payload: P,
  options: CallOptions = {},
): Promise<ToolResult<R>> {
  const facts = factsFor(spec as ToolSpec<unknown, unknown>, options);
  const request = { name: spec.name, arguments: payload as { readonly [key: string]: unknown } };
  let response: CallResponse;
  try {
    response = await caller.callTool(request, { ...options, facts });
  } catch (error) {
    // Using a closed caller is a programmer error and propagates, as does a durable run's interruption.
    if (propagates(error)) throw error;
    // A third-party caller (callerFunc) may throw; the typed path still answers with a value.
    response = { ok: false, failure: failureFrom(error, callContext(caller.server, request, facts)) };
  }
  if (typeof response !== "object" || response === null || typeof response.ok !== "boolean") {
    const message = `${caller.server}: the caller returned no response`;
    response = { ok: false, failure: failureFromLocal("caller_failed", message, callContext(caller.server, request, facts)) };
  }
  // A third-party caller's failure was not built by the mapping: it gets the same redaction pass,
  // and the typed path's tool id. The built-in callers built it with the facts already.
  if (!response.ok) {
    const failure = response.failure.tool === spec.id ? response.failure : { ...response.failure, tool: spec.id };
    return { ok: false, failure: redactFailure(failure) };
  }
  return resultFromCall(spec as ToolSpec<unknown, R>, caller.server, response.value, payload);
}
