/**
 * Design builders: toolsets, providers and the design root. Everything here returns plain,
 * frozen data; validation happens later, in the code generator's resolver.
 */
import type { JsonSchema, Schema } from "./schema.js";

/** MCP tool annotations (hints). */
export interface ToolAnnotations {
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly openWorld?: boolean;
}

/** What a design author writes for one tool. */
export interface ToolDefinition {
  readonly title?: string;
  readonly description?: string;
  /** Input (payload) schema. Must describe an object. */
  readonly input: Schema<unknown, boolean> | JsonSchema;
  /** Output schema, when the server returns `structuredContent`. */
  readonly output?: Schema<unknown, boolean> | JsonSchema;
  readonly annotations?: ToolAnnotations;
  readonly tags?: readonly string[];
  /** Example payloads; the first becomes the example JSON shown to models. */
  readonly examples?: readonly unknown[];
  /** When true, the runtime asks the confirmation hook before calling. */
  readonly requiresConfirmation?: boolean;
  readonly meta?: { readonly [key: string]: unknown };
}

/** A declared tool, as plain data. */
export interface ToolDecl extends ToolDefinition {
  readonly kind: "tool";
  readonly name: string;
}

/** A toolset backed by an external MCP server whose tools are declared inline. */
export interface ExternalMcpProvider {
  readonly kind: "external-mcp";
  /** Name of the server the runtime connects to (the caller's server name). */
  readonly server: string;
  /** Name of the MCP toolset (suite) on that server; defaults to the server name. */
  readonly suite: string;
}

/** A toolset whose catalogue comes from an MCP server declared in the design, or a pulled lock. */
export interface McpProvider {
  readonly kind: "mcp";
  readonly server: string;
}

/** Where a toolset's tools come from. */
export type ToolsetProvider = ExternalMcpProvider | McpProvider;

/** A toolset, as plain data. */
export interface ToolsetDecl {
  readonly kind: "toolset";
  readonly name: string;
  readonly description?: string;
  readonly provider: ToolsetProvider;
  readonly tools: readonly ToolDecl[];
}

/** The builder passed to a toolset's build callback. */
export interface ToolsetBuilder {
  /** Declares a tool. */
  tool(name: string, definition: ToolDefinition): void;
  /** Sets the toolset description. */
  description(text: string): void;
}

/** Declares a toolset backed by an external MCP server with inline tools. */
export function fromExternalMCP(server: string, suite?: string): ExternalMcpProvider {
  return Object.freeze({ kind: "external-mcp", server, suite: suite ?? server });
}

/** Declares a toolset backed by an MCP server (declared in the design, or pulled into a lock). */
export function fromMCP(server: string | { readonly name: string }): McpProvider {
  return Object.freeze({ kind: "mcp", server: typeof server === "string" ? server : server.name });
}

/** Declares a toolset. `build` adds tools; tools may also be passed as an array. */
export function toolset(name: string, provider: ToolsetProvider, build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[]): ToolsetDecl {
  const tools: ToolDecl[] = [];
  let description: string | undefined;
  if (typeof build === "function") {
    build({
      tool: (toolName, definition) => {
        tools.push(Object.freeze({ ...definition, kind: "tool", name: toolName }));
      },
      description: (text) => {
        description = text;
      },
    });
  } else if (build) {
    tools.push(...build);
  }
  return Object.freeze({
    kind: "toolset",
    name,
    provider,
    tools: Object.freeze(tools),
    ...(description === undefined ? {} : { description }),
  });
}

/** Declares a single tool outside a toolset builder (for array-style toolsets). */
export function tool(name: string, definition: ToolDefinition): ToolDecl {
  return Object.freeze({ ...definition, kind: "tool", name });
}

/** How `toolwright pull` reaches a live server: stdio (command) or streamable HTTP (url). */
export type ConnectionDecl =
  | {
      readonly command: string;
      readonly args?: readonly string[];
      /** `NAME` passes the variable through; `KEY=VALUE` sets a literal. */
      readonly env?: readonly string[];
      readonly cwd?: string;
    }
  | { readonly url: string; readonly headers?: { readonly [key: string]: string } };

/** An MCP server the design implements: codegen emits a typed server scaffold for it. */
export interface McpServerDecl {
  readonly kind: "mcp-server";
  readonly name: string;
  readonly version: string;
  readonly protocolVersion?: string;
  readonly description?: string;
  readonly tools: readonly ToolDecl[];
}

/** A live server whose catalogue `toolwright pull` snapshots into the design's lock file. */
export interface ExternalServerDecl {
  readonly kind: "external-server";
  readonly name: string;
  readonly connection: ConnectionDecl;
  /** Inline declarations that override single pulled tools. */
  readonly overrides: readonly ToolDecl[];
}

/** Declares an MCP server implemented by this design. */
export function mcpServer(
  name: string,
  info: { readonly version: string; readonly protocolVersion?: string; readonly description?: string },
  build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[],
): McpServerDecl {
  const { tools } = toolset(name, fromMCP(name), build);
  return Object.freeze({ kind: "mcp-server", name, ...info, tools });
}

/** Declares a live server to pull a catalogue from; `build` may override single tools inline. */
export function externalServer(
  name: string,
  connection: ConnectionDecl,
  build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[],
): ExternalServerDecl {
  const { tools } = toolset(name, fromMCP(name), build);
  return Object.freeze({ kind: "external-server", name, connection, overrides: tools });
}

/** Limits the runtime enforces for an agent. Durations are milliseconds. */
export interface RunPolicyDecl {
  readonly maxToolCalls?: number;
  readonly maxConsecutiveFailedToolCalls?: number;
  readonly timeBudget?: number;
  readonly toolTimeout?: number;
}

/** A toolset used by an agent, optionally restricted to a subset of its tools. */
export interface ToolsetUse {
  readonly kind: "use";
  readonly toolset: ToolsetDecl;
  /** Wire names of the tools in the subset; all tools when absent. */
  readonly tools?: readonly string[];
}

/** An agent: the toolsets it may use and its run policy. */
export interface AgentDecl {
  readonly kind: "agent";
  readonly name: string;
  readonly description?: string;
  readonly uses: readonly ToolsetUse[];
  readonly runPolicy?: RunPolicyDecl;
}

/** Restricts a toolset to a subset of tools for an agent. */
export function use(ts: ToolsetDecl, options?: { readonly tools?: readonly string[] }): ToolsetUse {
  return Object.freeze({ kind: "use", toolset: ts, ...(options?.tools ? { tools: Object.freeze([...options.tools]) } : {}) });
}

/** Declares an agent. */
export function agent(
  name: string,
  options: { readonly use: readonly (ToolsetDecl | ToolsetUse)[]; readonly runPolicy?: RunPolicyDecl; readonly description?: string },
): AgentDecl {
  const uses = options.use.map((u) => (u.kind === "use" ? u : use(u)));
  return Object.freeze({
    kind: "agent",
    name,
    uses: Object.freeze(uses),
    ...(options.runPolicy ? { runPolicy: options.runPolicy } : {}),
    ...(options.description === undefined ? {} : { description: options.description }),
  });
}

/** The root of a design file: `export default design({ toolsets: [...] })`. */
export interface DesignDecl {
  readonly kind: "design";
  readonly toolsets: readonly ToolsetDecl[];
  readonly agents: readonly AgentDecl[];
  /** Servers implemented by the design and live servers to pull from. */
  readonly servers: readonly (McpServerDecl | ExternalServerDecl)[];
}

/** Declares the design. A design file default-exports the result. */
export function design(parts: {
  readonly toolsets?: readonly ToolsetDecl[];
  readonly agents?: readonly AgentDecl[];
  readonly servers?: readonly (McpServerDecl | ExternalServerDecl)[];
}): DesignDecl {
  return Object.freeze({
    kind: "design",
    toolsets: Object.freeze([...(parts.toolsets ?? [])]),
    agents: Object.freeze([...(parts.agents ?? [])]),
    servers: Object.freeze([...(parts.servers ?? [])]),
  });
}
