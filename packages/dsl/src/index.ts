/**
 * @toolwright/dsl: declare MCP toolsets as plain data. No runtime dependencies.
 * @packageDocumentation
 */
export type { DesignDecl } from "./design.js";
export { design, fromExternalMCP, fromMCP, tool, toolset } from "./design.js";
export type { RunPolicyInput } from "./design-agent.js";
export { agent, use } from "./design-agent.js";
export type { McpServerInfo } from "./design-server.js";
export { externalServer, MCP_JSON_APPS, mcpJson, mcpServer, SERVER_PROTOCOL_VERSIONS } from "./design-server.js";
export type {
  PromptArgumentDecl,
  PromptDecl,
  PromptDefinition,
  ResourceDecl,
  ResourceDefinition,
  ResourceTemplateDecl,
  SurfaceDecls,
} from "./design-surface.js";
export { nameProblem } from "./design-tool.js";
export type {
  AgentDecl,
  ConnectionDecl,
  ExternalMcpProvider,
  ExternalServerDecl,
  McpJsonApp,
  McpJsonConnectionDecl,
  McpProvider,
  McpServerDecl,
  PayloadOf,
  RunPolicyDecl,
  ToolAnnotations,
  ToolDecl,
  ToolDefinition,
  ToolsetBuilder,
  ToolsetDecl,
  ToolsetProvider,
  ToolsetUse,
  TypedToolDefinition,
} from "./design-types.js";
export type { Duration } from "./duration.js";
export { toMilliseconds } from "./duration.js";
export type { DslLocation, Problem } from "./errors.js";
export { DslError } from "./errors.js";
export { s } from "./s.js";
export type { AnySchema, Infer, JsonSchema, Schema } from "./schema.js";
export { createSchema, isSchema } from "./schema.js";
export type { ArrayOptions, InferOpenShape, InferShape, ObjectOptions, RecordOptions, Shape } from "./schema-composite.js";
export { array, nullable, object, oneOf, record, union } from "./schema-composite.js";
export { collectDefs, findProblem, named, toJsonSchema } from "./schema-named.js";
export type { Literal, NumberOptions, StringOptions } from "./schema-primitives.js";
export { boolean, enumOf, integer, literal, nullValue, number, raw, string, unknownValue } from "./schema-primitives.js";
