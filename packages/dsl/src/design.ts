/**
 * Design builders: tools, toolsets, providers and the design root (agents live in
 * design-agent.ts, servers in design-server.ts). Everything returns plain, frozen data. Builders
 * reject what they can see at declaration time; design-wide checks belong to the code generator.
 */

import { createSurfaceCollector } from "./design-surface.js";
import { checkName, checkToolDefinition, collectTools } from "./design-tool.js";
import type {
  AgentDecl,
  ExternalMcpProvider,
  ExternalServerDecl,
  McpProvider,
  McpServerDecl,
  ToolDecl,
  ToolsetBuilder,
  ToolsetDecl,
  ToolsetProvider,
  TypedToolDefinition,
} from "./design-types.js";
import { deferProblem, fail, isPlainObject, locate, PROBLEM, show } from "./errors.js";
import type { JsonSchema, Schema } from "./schema.js";

/** A toolset backed by an external MCP server with tools declared inline; `suite` defaults to `server`. */
export function fromExternalMCP(server: string, suite?: string): ExternalMcpProvider {
  checkName("fromExternalMCP()", "the server name", server);
  if (suite !== undefined) checkName("fromExternalMCP()", "the suite name", suite);
  return Object.freeze({ kind: "external-mcp", server, suite: suite ?? server });
}

/**
 * A toolset backed by an MCP server: an `mcpServer(...)` or `externalServer(...)` declaration (or
 * its name). With a pulled server, the catalogue comes from the lock file `toolwright pull` writes.
 */
export function fromMCP(server: string | McpServerDecl | ExternalServerDecl): McpProvider {
  if (typeof server === "string") {
    checkName("fromMCP()", "the server name", server);
    return Object.freeze({ kind: "mcp", server });
  }
  if (!isPlainObject(server) || (server.kind !== "mcp-server" && server.kind !== "external-server")) {
    fail("fromMCP()", `expects a server name, an mcpServer(...) or an externalServer(...); got ${show(server)}`);
  }
  return Object.freeze({ kind: "mcp", server: server.name, decl: server });
}

function isProvider(value: unknown): value is ToolsetProvider {
  return isPlainObject(value) && (value.kind === "external-mcp" || value.kind === "mcp");
}

/** Declares a toolset from an array of `tool(...)`; the tool names become a literal union. */
export function toolset<const N extends string>(name: string, provider: ToolsetProvider, tools: readonly ToolDecl<N>[]): ToolsetDecl<N>;
/** Declares a toolset; `build` adds tools with `t.tool(name, {...})`. */
export function toolset(name: string, provider: ToolsetProvider, build?: (t: ToolsetBuilder) => void): ToolsetDecl;
/** Declares a toolset named after its provider (the suite, or the server). */
export function toolset<const N extends string>(provider: ToolsetProvider, tools: readonly ToolDecl<N>[]): ToolsetDecl<N>;
/** Declares a toolset named after its provider (the suite, or the server). */
export function toolset(provider: ToolsetProvider, build?: (t: ToolsetBuilder) => void): ToolsetDecl;
/** Declares a toolset from a build callback or an array of tools (when the kind is only known at run time). */
export function toolset(name: string, provider: ToolsetProvider, build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[]): ToolsetDecl;
export function toolset(...args: unknown[]): ToolsetDecl {
  const named = typeof args[0] === "string";
  const provider = named ? args[1] : args[0];
  const build = named ? args[2] : args[1];
  if (!isProvider(provider)) fail("toolset()", `expects a provider from fromMCP(...) or fromExternalMCP(...); got ${show(provider)}`);
  const name = named ? (args[0] as string) : provider.kind === "external-mcp" ? provider.suite : provider.server;
  checkName("toolset()", "the toolset name", name);
  let description: string | undefined;
  const surface = createSurfaceCollector(`toolset "${name}"`);
  const tools = locate({ toolset: name }, () =>
    collectTools(
      `toolset "${name}"`,
      build,
      (text) => {
        description = text;
      },
      surface,
    ),
  );
  return Object.freeze({
    kind: "toolset",
    name,
    provider,
    tools: Object.freeze(tools),
    ...(description === undefined ? {} : { description }),
    ...surface.fields(),
  });
}

/**
 * Declares a single tool outside a toolset builder (for array-style toolsets). A mistake in the
 * definition is reported by the `toolset(...)` that lists it, naming both.
 */
export function tool<const N extends string, S extends Schema<unknown, boolean> | JsonSchema>(
  name: N,
  definition: TypedToolDefinition<S>,
): ToolDecl<N> {
  checkName("tool()", "the tool name", name);
  return deferProblem(
    () => {
      checkToolDefinition(`tool "${name}"`, definition);
      return Object.freeze({ ...definition, kind: "tool", name }) as ToolDecl<N>;
    },
    // Recorded, and reported by the toolset or server that lists the tool, with its name.
    (problem) => Object.freeze({ ...(isPlainObject(definition) ? definition : {}), kind: "tool", name, [PROBLEM]: problem }) as ToolDecl<N>,
  );
}

/** The root of a design file: `export default design({ toolsets: [...] })`. */
export interface DesignDecl {
  readonly kind: "design";
  readonly toolsets: readonly ToolsetDecl[];
  readonly agents: readonly AgentDecl[];
  /** Servers implemented by the design and live servers to pull from. */
  readonly servers: readonly (McpServerDecl | ExternalServerDecl)[];
}

function listOf<T>(where: string, label: string, list: unknown, kinds: readonly string[]): T[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) fail(where, `${label} must be an array`);
  return list.map((item: unknown, i) => {
    if (!isPlainObject(item) || !kinds.includes(String(item.kind))) {
      const hint = isPlainObject(item) && typeof item.kind === "string" ? ` (this is a ${item.kind} declaration)` : "";
      fail(where, `${label}[${i}] must be a ${kinds.join(" or ")} declaration${hint}; got ${show(item)}`);
    }
    return item as T;
  });
}

/**
 * Declares the design; a design file default-exports the result. Toolsets used by agents and
 * server declarations passed to `fromMCP(...)` are added when they are not listed (same object).
 */
export function design(parts: {
  readonly toolsets?: readonly ToolsetDecl[];
  readonly agents?: readonly AgentDecl[];
  readonly servers?: readonly (McpServerDecl | ExternalServerDecl)[];
}): DesignDecl {
  const where = "design()";
  if (!isPlainObject(parts)) fail(where, "expects { toolsets, agents?, servers? }");
  for (const key of Object.keys(parts)) if (!["toolsets", "agents", "servers"].includes(key)) fail(where, `unknown field "${key}"`);
  const toolsets = listOf<ToolsetDecl>(where, "toolsets", parts.toolsets, ["toolset"]);
  const agents = listOf<AgentDecl>(where, "agents", parts.agents, ["agent"]);
  const servers = listOf<McpServerDecl | ExternalServerDecl>(where, "servers", parts.servers, ["mcp-server", "external-server"]);
  for (const a of agents) for (const u of a.uses) if (!toolsets.includes(u.toolset)) toolsets.push(u.toolset);
  for (const ts of toolsets) {
    const decl = ts.provider.kind === "mcp" ? ts.provider.decl : undefined;
    if (decl && !servers.includes(decl)) servers.push(decl);
  }
  return Object.freeze({
    kind: "design",
    toolsets: Object.freeze(toolsets),
    agents: Object.freeze(agents),
    servers: Object.freeze(servers),
  });
}
