/**
 * Design builders: tools, toolsets, providers and the design root (agents live in
 * design-agent.ts, servers in design-server.ts). Everything returns plain, frozen data. Builders
 * reject what they can see at declaration time; design-wide checks belong to the code generator.
 */

import type { AgentDecl } from "./design-agent.js";
import type { ExternalServerDecl, McpServerDecl } from "./design-server.js";
import {
  createSurfaceCollector,
  type PromptDecl,
  type PromptDefinition,
  type ResourceDecl,
  type ResourceDefinition,
  type ResourceTemplateDecl,
} from "./design-surface.js";
import { checkName, checkToolDefinition } from "./design-tool.js";
import { deferProblem, fail, isPlainObject, locate, PROBLEM, problemOf, show } from "./errors.js";
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
  /**
   * Task execution (MCP tasks): `support` is the tool's `execution.taskSupport`. `start` (servers):
   * `immediate` (default) answers with a task at once; `after-input` first gathers the handler's
   * input through `input_required` rounds, then becomes a task.
   */
  readonly task?: { readonly support: "optional" | "required"; readonly start?: "immediate" | "after-input" };
}

/** The payload type of an input schema: the builder's static type, or a JSON object for raw JSON Schema. */
export type PayloadOf<S> = S extends Schema<infer T, boolean> ? T : { readonly [key: string]: unknown };

/** A tool definition whose example payloads are type-checked against its input schema. */
export type TypedToolDefinition<S extends Schema<unknown, boolean> | JsonSchema> = Omit<ToolDefinition, "input" | "examples"> & {
  readonly input: S;
  readonly examples?: readonly PayloadOf<S>[];
};

/** A declared tool, as plain data. `N` is the tool's name as a literal type when it is known. */
export interface ToolDecl<N extends string = string> extends ToolDefinition {
  readonly kind: "tool";
  readonly name: N;
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
  /** The server declaration, when `fromMCP` was given one (`design()` then adds it to `servers`). */
  readonly decl?: McpServerDecl | ExternalServerDecl;
}

/** Where a toolset's tools come from. */
export type ToolsetProvider = ExternalMcpProvider | McpProvider;

/** A toolset, as plain data. `N` is the union of tool names when they are known statically. */
export interface ToolsetDecl<N extends string = string> {
  readonly kind: "toolset";
  readonly name: string;
  readonly description?: string;
  readonly provider: ToolsetProvider;
  readonly tools: readonly ToolDecl<N>[];
  /** Prompts, resources and templates the toolset's server offers (typed readers in the client). */
  readonly prompts?: readonly PromptDecl[];
  readonly resources?: readonly ResourceDecl[];
  readonly resourceTemplates?: readonly ResourceTemplateDecl[];
}

/** The builder passed to a toolset's build callback. */
export interface ToolsetBuilder {
  /** Declares a tool; `examples` must match the input schema's type. */
  tool<S extends Schema<unknown, boolean> | JsonSchema>(name: string, definition: TypedToolDefinition<S>): void;
  /** Sets the toolset description. */
  description(text: string): void;
  /** Declares a prompt: `get<Prompt>Prompt(args)` in the generated client, arguments typed. */
  prompt(name: string, definition?: PromptDefinition): void;
  /** Declares a resource: `read<Name>()` in the generated client. */
  resource(uri: string, definition: ResourceDefinition): void;
  /** Declares a resource template ("file:///{path}"): `read<Name>({ path })` in the generated client. */
  resourceTemplate(uriTemplate: string, definition: ResourceDefinition): void;
}

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

/** `externalServer` overrides: the pulled lock brings the server's prompts and resources; saying so beats dropping them. */
function notHere(where: string) {
  const refuse = (what: string) => () =>
    fail(where, `${what} is declared in a toolset(...) or an mcpServer(...), not here (toolwright pull records a live server's own)`);
  return { prompt: refuse("a prompt"), resource: refuse("a resource"), resourceTemplate: refuse("a resource template") };
}

/** Collects the tools of a build callback or array, failing on duplicates. Internal to the DSL. */
export function collectTools(
  where: string,
  build: unknown,
  onDescription: (text: string) => void,
  surface: Pick<ReturnType<typeof createSurfaceCollector>, "prompt" | "resource" | "resourceTemplate"> = notHere(where),
): ToolDecl[] {
  const tools: ToolDecl[] = [];
  const names = new Set<string>();
  const add = (decl: ToolDecl) =>
    locate({ tool: decl.name }, () => {
      // A standalone tool(...) could not say which toolset it is in; this is where it is reported.
      const problem = problemOf(decl);
      if (problem) fail(`${where}, ${problem.where}`, problem.detail);
      if (names.has(decl.name)) fail(where, `tool "${decl.name}" is declared twice`);
      names.add(decl.name);
      tools.push(decl);
    });
  if (typeof build === "function") {
    build({
      tool: (toolName: string, definition: ToolDefinition) => {
        checkName(where, "the tool name", toolName);
        locate({ tool: toolName }, () => checkToolDefinition(`${where}, tool "${toolName}"`, definition));
        add(Object.freeze({ ...definition, kind: "tool", name: toolName }));
      },
      description: (text: string) => {
        if (typeof text !== "string") fail(where, "description must be a string");
        onDescription(text);
      },
      prompt: surface.prompt,
      resource: surface.resource,
      resourceTemplate: surface.resourceTemplate,
    } satisfies ToolsetBuilder);
  } else if (Array.isArray(build)) {
    build.forEach((decl: unknown, i) => {
      if (!isPlainObject(decl) || decl.kind !== "tool") fail(where, `tools[${i}] must be made with tool(name, {...}); got ${show(decl)}`);
      add(decl as unknown as ToolDecl);
    });
  } else if (build !== undefined) {
    fail(where, `the third argument must be a build function or an array of tool(...); got ${show(build)}`);
  }
  return tools;
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
