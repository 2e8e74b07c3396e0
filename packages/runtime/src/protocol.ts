/**
 * @toolwright/runtime/protocol: for other libraries, not applications: the pieces under the
 * callers, for people who write their own callers, servers or tooling. JSON-RPC and MCP wire types
 * and protocol versions, the one failure mapping table (wire fault, RPC error, HTTP status → a
 * `ToolFailure`), failure helpers, typed invocation over any `Caller`, and the planner's helpers
 * below `renderFailure`. Needs no Node APIs.
 * @packageDocumentation
 */

export type { SessionCallerOptions } from "./caller/caller.js";
export { callerFunc, markPropagating, propagates } from "./caller/caller.js";
export type { LoadedSkill, LoadSkillOptions, SkillFile, SkillsSurface } from "./caller/skills.js";
export type { ListName, ListOptions, MaybeSurface, McpSurface, SurfaceResult } from "./caller/surface.js";
export type { ResultSpec } from "./core/invoke.js";
export { invokeTool, joinText, resultFromCall } from "./core/invoke.js";
export type { DesignRunPolicy } from "./core/policy.js";
export { runPolicyFromDesign } from "./core/policy.js";
export type { SpanLike, TraceContextFn } from "./core/telemetry.js";
export type { ToolLookup } from "./core/tool-request.js";
export { closestToolNames, editDistance } from "./core/tool-request.js";
export type { SpecAnnotations } from "./core/tool-spec.js";
export type { DurableEvidence, IssueConstraint } from "./failure/failure.js";
export {
  combineFailures,
  FAILURE_KINDS,
  FAILURE_REASONS,
  ISSUE_CONSTRAINTS_LIST,
  RECOVERY_ACTIONS,
  REDACTED,
  redactSecrets,
  redactText,
  strongestAction,
  validateFailure,
} from "./failure/failure.js";
export type { CallFacts, FailureContext, Mapping } from "./failure/failure-mapping.js";
export {
  callContext,
  failureFrom,
  failureFromFault,
  failureFromInvalidInput,
  failureFromInvalidOutput,
  failureFromLocal,
  failureFromToolError,
  failureFromUnparsableArguments,
  mapHttpStatus,
  mapRpcCode,
  mapRpcError,
  mapTimeout,
  mapTransportCode,
  mayHaveRun,
  retryAfterMsFromHeader,
} from "./failure/failure-mapping.js";
export { normalizeModelCall } from "./planner/model-call.js";
export { capText, renderContentBlock } from "./planner/render.js";
export { specVisibleToModel, visibleToModel } from "./planner/visibility.js";
export type { FrontmatterResult } from "./protocol/frontmatter.js";
export { parseFrontmatter } from "./protocol/frontmatter.js";
export type { RpcErrorObject, RpcId, RpcMessage, RpcNotification, RpcRequest, RpcResponse } from "./protocol/json-rpc.js";
export { newTraceparent } from "./protocol/mcp-client.js";
export type { Outcome } from "./protocol/mcp-session.js";
export type {
  CallToolResult,
  Completion,
  CompletionReference,
  ContentBlock,
  GetPromptResult,
  Implementation,
  LogLevel,
  PromptArgument,
  PromptDescriptor,
  PromptMessage,
  ResourceContents,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ServerHandshake,
  ToolDescriptor,
} from "./protocol/mcp-types.js";
export { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION } from "./protocol/mcp-types.js";
export type { ParamHeader, ToolHeaderPlan } from "./protocol/modern.js";
export { decodeHeaderValue, encodeHeaderValue, MODERN_PROTOCOL_VERSIONS, planToolHeaders } from "./protocol/modern.js";
export type { Progress, RequestHandler } from "./protocol/rpc-peer.js";
export { RpcHandlerError } from "./protocol/rpc-peer.js";
export type { SkillEntry, SkillResource } from "./protocol/skills.js";
export { SKILL_LIMITS, SKILLS_EXTENSION } from "./protocol/skills.js";
export type { TaskOptions, TaskStatus } from "./protocol/task-call.js";
export { expandTemplate, matchTemplate, templateVariables } from "./protocol/uri-template.js";
export type { WireFault } from "./protocol/wire-fault.js";
export type { Decoded, Decoder } from "./schema/codec.js";
