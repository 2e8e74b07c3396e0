/**
 * @toolwright/runtime/caller: for people who write their own callers (or wrap one). The face of
 * `caller/` and of `failure/` beneath it: the session caller's pieces, typed invocation over any
 * `Caller`, the MCP surface helpers, tool lookup, and the one failure mapping table (wire fault, RPC
 * error, HTTP status → a `ToolFailure`) with the failure helpers a caller needs to build, combine and
 * redact failures. The `Caller` interface itself is in the root entry. Needs no Node APIs.
 * @packageDocumentation
 */

export type { CallRequest, CallResponse, SessionCaller, SessionCallerOptions, ToolTask } from "./caller/caller.js";
export { CallerClosedError, callerFunc, isCallerClosedError, markPropagating, propagates } from "./caller/caller.js";
// A caller over any in-process host (a `createToolServer` server): test kits serve mocks and replays through it.
export type { HostedCallerOptions } from "./caller/in-memory-caller.js";
export { createHostedCaller } from "./caller/in-memory-caller.js";
export type { ResultSpec } from "./caller/invoke.js";
export { invokeTool, joinText, resultFromCall } from "./caller/invoke.js";
export type { Principal } from "./caller/principal.js";
export { MAX_PRINCIPAL_ID, principalKey, samePrincipal } from "./caller/principal.js";
export type { LoadedSkill, LoadSkillOptions, SkillFile, SkillsSurface } from "./caller/skills.js";
export type { ListName, ListOptions, MaybeSurface, McpSurface, SurfaceResult } from "./caller/surface.js";
export type { CallConnection, MeterLike } from "./caller/telemetry-facts.js";
export type { ToolLookup } from "./caller/tool-request.js";
export { closestToolNames, editDistance } from "./caller/tool-request.js";
export type { SpecAnnotations } from "./caller/tool-spec.js";
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
  redactValuesIn,
  registeredSecretValues,
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
export type { WireFault } from "./failure/wire-fault.js";
export type { WireEvent, Wiretap } from "./protocol/wiretap.js";
export type { Decoded, Decoder } from "./schema/codec.js";
export type { MessageHost, MessageHostSession } from "./transport/in-memory.js";
