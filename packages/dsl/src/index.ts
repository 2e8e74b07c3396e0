/**
 * @toolwright/dsl: declare MCP toolsets as plain data. No runtime dependencies.
 * @packageDocumentation
 */
export type {
  DesignDecl,
  ExternalMcpProvider,
  McpProvider,
  ToolAnnotations,
  ToolDecl,
  ToolDefinition,
  ToolsetBuilder,
  ToolsetDecl,
  ToolsetProvider,
} from "./design.js";
export { design, fromExternalMCP, fromMCP, tool, toolset } from "./design.js";
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
