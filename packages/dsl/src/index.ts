/**
 * @toolwright/dsl: declare MCP toolsets as plain data. No runtime dependencies.
 * @packageDocumentation
 */
export type {
  AgentDecl,
  ConnectionDecl,
  DesignDecl,
  ExternalMcpProvider,
  ExternalServerDecl,
  McpProvider,
  McpServerDecl,
  RunPolicyDecl,
  ToolAnnotations,
  ToolDecl,
  ToolDefinition,
  ToolsetBuilder,
  ToolsetDecl,
  ToolsetProvider,
  ToolsetUse,
} from "./design.js";
export { agent, design, externalServer, fromExternalMCP, fromMCP, mcpServer, tool, toolset, use } from "./design.js";
export type {
  ArrayOptions,
  Infer,
  InferShape,
  JsonSchema,
  NumberOptions,
  ObjectOptions,
  Schema,
  StringOptions,
} from "./schema.js";
export { array, boolean, createSchema, enumOf, integer, isSchema, number, object, string } from "./schema.js";
