/**
 * @toolwright/runtime/protocol: the MCP wire, for other libraries: JSON-RPC messages, MCP message
 * and result types, protocol versions and eras, the per-request header codecs, skills, task states,
 * URI templates and frontmatter. The face of `protocol/` only: callers' pieces and the failure
 * mapping table are in `@toolwright/runtime/caller`, the planner's helpers in `/providers`. Needs
 * no Node APIs.
 * @packageDocumentation
 */
export type { FrontmatterResult } from "./protocol/frontmatter.js";
export { parseFrontmatter } from "./protocol/frontmatter.js";
export type { RpcErrorObject, RpcId, RpcMessage, RpcNotification, RpcRequest, RpcResponse } from "./protocol/json-rpc.js";
export type { Era, EraPreference, TraceContextOption } from "./protocol/mcp-client.js";
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
// Protocol revisions: the one interface, and the registry a new revision registers with (docs/revisions.md).
export type { Revision, RevisionIdentity, TaskRecord } from "./revisions/registry.js";
export { listRevisions, registerRevision, revisionForVersion, revisionNamed } from "./revisions/registry.js";
