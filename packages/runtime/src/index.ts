/**
 * @toolwright/runtime: MCP callers that return `ToolFailure` values instead of throwing.
 * Node-only transports live in `@toolwright/runtime/stdio`; symbols for generated code in
 * `@toolwright/runtime/codegen`.
 * @packageDocumentation
 */

export type { ClientMetadataDocumentOptions } from "./auth/cimd.js";
export { clientMetadataDocument } from "./auth/cimd.js";
export type { AuthorizationServerMetadata, FetchLike, ProtectedResourceMetadata } from "./auth/discovery.js";
export { discoverAuthorizationServer, discoverProtectedResource } from "./auth/discovery.js";
export type { ClientMetadata } from "./auth/oauth-flows.js";
export type { AssertionContext, AuthorizationResponse, OAuthProvider, OAuthProviderOptions } from "./auth/oauth-provider.js";
export { createOAuthProvider } from "./auth/oauth-provider.js";
export type { WwwAuthenticateChallenge } from "./auth/oauth-util.js";
export { OAuthError, parseWwwAuthenticate } from "./auth/oauth-util.js";
export type { IdJagRequest } from "./auth/token-exchange.js";
export { JWT_BEARER_GRANT, requestIdJag } from "./auth/token-exchange.js";
export type { OAuthClientInfo, OAuthTokens, TokenStore } from "./auth/token-store.js";
export { createMemoryTokenStore } from "./auth/token-store.js";
export type {
  Caller,
  CallOptions,
  CallRequest,
  CallResponse,
  InMemoryCaller,
  InMemoryTool,
  SessionCaller,
  SessionCallerOptions,
  ToolTask,
} from "./caller/caller.js";
export { CallerClosedError, callerFunc, createInMemoryCaller, isCallerClosedError, markPropagating, propagates } from "./caller/caller.js";
export type { ListName, ListOptions, MaybeSurface, McpSurface, SurfaceResult } from "./caller/surface.js";
export type { FieldChange } from "./catalogue/catalogue-diff.js";
export { describeFieldChange, diffEntries, quoteExcerpt } from "./catalogue/catalogue-diff.js";
export type { LintFinding, LintOptions, LintRule, LintServer, LintSeverity } from "./catalogue/catalogue-lint.js";
export { countBySeverity, describeFinding, lintCatalogue, markHidden } from "./catalogue/catalogue-lint.js";
export type { CatalogueExtras, CatalogueFingerprints, FingerprintedTool } from "./catalogue/fingerprint.js";
export { canonicalJson, fingerprintCatalogue, fingerprintEntry, fingerprintTool, pinnedPart, sha256Hex } from "./catalogue/fingerprint.js";
export type {
  ClientFeatures,
  ClientFeaturesOptions,
  LogEntry,
  Notifier,
  Root,
  RootsOptions,
  SamplingOptions,
  SamplingRequest,
  SamplingResult,
} from "./client-features/client-features.js";
export { checkRoots, createClientFeatures } from "./client-features/client-features.js";
export type {
  ElicitAction,
  ElicitationOptions,
  ElicitResult,
  ElicitValue,
  FormElicitation,
  UrlElicitation,
} from "./client-features/elicitation.js";
export { applySchemaDefaults, URL_ELICITATION_REQUIRED, urlElicitationsRequired } from "./client-features/elicitation.js";
export type { DriftOptions, DriftPolicy, DriftReport, ExpectedCatalogue, ToolDrift } from "./core/drift.js";
export { checkDrift, compareCatalogues, withFieldChanges } from "./core/drift.js";
export type { ResultSpec } from "./core/invoke.js";
export { invokeTool, joinText, resultFromCall } from "./core/invoke.js";
export type { DesignRunPolicy, RunPolicy, RunUsage } from "./core/policy.js";
export { runPolicyFromDesign } from "./core/policy.js";
export type { ExecuteRequest, Runtime, RuntimeOptions, ToolsetRegistration } from "./core/runtime.js";
export { createRuntime } from "./core/runtime.js";
export type { RuntimeEvent, SpanLike, TelemetryOptions, TraceContextFn, TracerLike } from "./core/telemetry.js";
export { createOtelTraceContext } from "./core/telemetry.js";
export type { ToolLookup, ToolRequest } from "./core/tool-request.js";
export { closestToolNames, editDistance } from "./core/tool-request.js";
export type { PayloadOf, ResultOf, SpecAnnotations, ToolResult, ToolSpec } from "./core/tool-spec.js";
export type {
  DurableEvidence,
  FailureKind,
  FailureReason,
  FailureSource,
  FieldIssue,
  IssueConstraint,
  Recovery,
  RecoveryAction,
  ToolFailure,
} from "./failure/failure.js";
export {
  combineFailures,
  FAILURE_KINDS,
  FAILURE_REASONS,
  isToolFailure,
  RECOVERY_ACTIONS,
  REDACTED,
  redactSecrets,
  redactText,
  strongestAction,
  validateFailure,
} from "./failure/failure.js";
export type { FailureContext, Mapping } from "./failure/failure-mapping.js";
export {
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
  withCallEvidence,
} from "./failure/failure-mapping.js";
export type { ModelToolCall, ModelToolDefinition } from "./planner/model-call.js";
export { modelToolDefinitions, normalizeModelCall, toolRequestFromModelCall } from "./planner/model-call.js";
export type { RenderOptions } from "./planner/render.js";
export { capText, renderContentBlock, renderFailure, renderResult } from "./planner/render.js";
export { specVisibleToModel, visibleToModel } from "./planner/visibility.js";
export type { RpcErrorObject, RpcId, RpcMessage, RpcNotification, RpcRequest, RpcResponse } from "./protocol/json-rpc.js";
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
export type { Progress, RequestHandler } from "./protocol/rpc-peer.js";
export { RpcHandlerError } from "./protocol/rpc-peer.js";
export type { TaskOptions, TaskStatus } from "./protocol/task-call.js";
export { expandTemplate, matchTemplate, templateVariables } from "./protocol/uri-template.js";
export type { WireFault } from "./protocol/wire-fault.js";
export type { Decoded, Decoder } from "./schema/codec.js";
export type { AuthChallenge, AuthProvider } from "./transport/auth-provider.js";
