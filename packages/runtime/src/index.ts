/**
 * @toolwright/runtime: the runtime registry that generated toolsets register into, and `ToolFailure`
 * values instead of exceptions. This entry is the face of `core/` (and of what `core/` stands on);
 * it needs no Node APIs. The rest lives in named subpaths, each the face of one folder:
 * - `@toolwright/runtime/stdio`, `/http`: the Node callers; `/auth`: OAuth 2.1 for the HTTP callers;
 * - `/client-features`: elicitation, sampling, roots and logging handlers;
 * - `/manager`, `/server`, `/providers`, `/durable`, `/catalogue`: many servers, serving, model SDKs,
 *   durable runs, catalogue fingerprints, lint and drift;
 * - `/caller`, `/protocol`: for other libraries (your own callers; the MCP wire);
 * - `/codegen`: what generated code imports.
 *
 * As connect-es does, the names below come in two groups: for applications, then for other
 * libraries (the interfaces a caller or a tracer implements).
 * @packageDocumentation
 */

import { createInMemoryCallerOn, type InMemoryCaller, type InMemoryTool } from "./caller/in-memory-caller.js";

// ── For applications ────────────────────────────────────────────────────────────────────────────
export type { InMemoryCaller, InMemoryTool } from "./caller/in-memory-caller.js";
export type { ToolRequest } from "./caller/tool-request.js";
export type { PayloadOf, ResultOf, ToolResult, ToolSpec } from "./caller/tool-spec.js";
export type { RunPolicy, RunUsage } from "./core/policy.js";
export type { ExecuteRequest, Runtime, RuntimeOptions, ToolsetRegistration } from "./core/runtime.js";
export { createRuntime } from "./core/runtime.js";
export type { RuntimeEvent, TelemetryOptions, TracerLike } from "./core/telemetry.js";
export { createOtelTraceContext } from "./core/telemetry.js";
export type { FailureKind, FailureReason, FailureSource, FieldIssue, Recovery, RecoveryAction, ToolFailure } from "./failure/failure.js";
export { isToolFailure } from "./failure/failure.js";
export type { Result } from "./failure/result.js";
export type { ModelToolCall, ModelToolDefinition } from "./planner/model-call.js";
export { modelToolDefinitions, toolRequestFromModelCall } from "./planner/model-call.js";
export type { RenderOptions } from "./planner/render.js";
export { renderFailure, renderResult } from "./planner/render.js";

/**
 * Creates an in-memory caller for tests: each tool is a handler served by the real tool server over
 * the real MCP session, so an unknown tool or a handler's throw gets the server's own answer; every
 * request is recorded in `calls`.
 */
export function createInMemoryCaller(server: string, tools: { readonly [name: string]: InMemoryTool }): InMemoryCaller {
  // The caller layer may not import the server, so the wiring lives here. The server's code loads
  // on the first connect: importing the root entry stays as light as before.
  return createInMemoryCallerOn(server, tools, async (hosted) => {
    const { createToolServer } = await import("./server/tool-server.js");
    return createToolServer({ name: server, version: "0.0.0", tools: hosted });
  });
}

// ── For other libraries ─────────────────────────────────────────────────────────────────────────
// What a caller implements (the rest of the caller kit is `@toolwright/runtime/caller`), the design's
// policy names `RuntimeOptions.policy` accepts, and the span shapes a tracer provides.
export type { Caller, CallOptions } from "./caller/caller.js";
export type { DesignRunPolicy } from "./core/policy.js";
export type { SpanLike, TraceContextFn } from "./core/telemetry.js";
