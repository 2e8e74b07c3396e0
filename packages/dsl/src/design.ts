/**
 * Design builders: toolsets, providers and the design root. Everything here returns plain,
 * frozen data; validation happens later, in the code generator's resolver.
 */
import { checkName, checkToolDefinition } from "./design-tool.js";
import { type Duration, toMilliseconds } from "./duration.js";
import { fail, isPlainObject, show } from "./errors.js";
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
}

/** The builder passed to a toolset's build callback. */
export interface ToolsetBuilder {
  /** Declares a tool; `examples` must match the input schema's type. */
  tool<S extends Schema<unknown, boolean> | JsonSchema>(name: string, definition: TypedToolDefinition<S>): void;
  /** Sets the toolset description. */
  description(text: string): void;
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

function collectTools(where: string, build: unknown, onDescription: (text: string) => void): ToolDecl[] {
  const tools: ToolDecl[] = [];
  const names = new Set<string>();
  const add = (decl: ToolDecl) => {
    if (names.has(decl.name)) fail(where, `tool "${decl.name}" is declared twice`);
    names.add(decl.name);
    tools.push(decl);
  };
  if (typeof build === "function") {
    build({
      tool: (toolName: string, definition: ToolDefinition) => {
        checkName(where, "the tool name", toolName);
        checkToolDefinition(`${where}, tool "${toolName}"`, definition);
        add(Object.freeze({ ...definition, kind: "tool", name: toolName }));
      },
      description: (text: string) => {
        if (typeof text !== "string") fail(where, "description must be a string");
        onDescription(text);
      },
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
export function toolset(...args: unknown[]): ToolsetDecl {
  const named = typeof args[0] === "string";
  const provider = named ? args[1] : args[0];
  const build = named ? args[2] : args[1];
  if (!isProvider(provider)) fail("toolset()", `expects a provider from fromMCP(...) or fromExternalMCP(...); got ${show(provider)}`);
  const name = named ? (args[0] as string) : provider.kind === "external-mcp" ? provider.suite : provider.server;
  checkName("toolset()", "the toolset name", name);
  let description: string | undefined;
  const tools = collectTools(`toolset "${name}"`, build, (text) => {
    description = text;
  });
  return Object.freeze({
    kind: "toolset",
    name,
    provider,
    tools: Object.freeze(tools),
    ...(description === undefined ? {} : { description }),
  });
}

/** Declares a single tool outside a toolset builder (for array-style toolsets). */
export function tool<const N extends string, S extends Schema<unknown, boolean> | JsonSchema>(
  name: N,
  definition: TypedToolDefinition<S>,
): ToolDecl<N> {
  checkName("tool()", "the tool name", name);
  checkToolDefinition(`tool "${name}"`, definition);
  return Object.freeze({ ...definition, kind: "tool", name });
}

/**
 * How `toolwright pull` reaches a live server: stdio (command) or streamable HTTP (url). This lives
 * in the design (`externalServer(name, connection)`), next to the toolsets that use the server.
 */
export type ConnectionDecl =
  | {
      readonly command: string;
      readonly args?: readonly string[];
      /** `NAME` passes the variable through; `KEY=VALUE` sets a literal. */
      readonly env?: readonly string[];
      readonly cwd?: string;
    }
  | { readonly url: string; readonly headers?: { readonly [key: string]: string } };

/** Protocol versions an `mcpServer` may pin. */
export const SERVER_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** An MCP server the design implements: codegen emits a typed server scaffold for it. */
export interface McpServerDecl {
  readonly kind: "mcp-server";
  readonly name: string;
  readonly version: string;
  readonly protocolVersion?: string;
  readonly description?: string;
  /** Human-readable name sent as `serverInfo.title`. */
  readonly title?: string;
  /** Sent as `instructions` in the initialize result. */
  readonly instructions?: string;
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

/** What `mcpServer` accepts as its second argument. */
export interface McpServerInfo {
  readonly version: string;
  readonly protocolVersion?: (typeof SERVER_PROTOCOL_VERSIONS)[number];
  readonly description?: string;
  readonly title?: string;
  readonly instructions?: string;
}

/** Declares an MCP server implemented by this design; `build` declares its tools. */
export function mcpServer(name: string, info: McpServerInfo, build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[]): McpServerDecl {
  const where = `mcpServer(${show(name)})`;
  checkName("mcpServer()", "the server name", name);
  if (!isPlainObject(info)) fail(where, "the second argument must be { version, protocolVersion? }");
  for (const key of Object.keys(info)) {
    if (!["version", "protocolVersion", "description", "title", "instructions"].includes(key)) fail(where, `unknown option "${key}"`);
  }
  if (typeof info.version !== "string" || info.version === "") fail(where, 'version must be a non-empty string such as "1.0.0"');
  if (info.protocolVersion !== undefined && !(SERVER_PROTOCOL_VERSIONS as readonly string[]).includes(info.protocolVersion)) {
    fail(where, `protocolVersion ${show(info.protocolVersion)} is not supported (use one of ${SERVER_PROTOCOL_VERSIONS.join(", ")})`);
  }
  for (const key of ["description", "title", "instructions"] as const) {
    if (info[key] !== undefined && typeof info[key] !== "string") fail(where, `${key} must be a string`);
  }
  let description = info.description;
  const tools = collectTools(`mcpServer "${name}"`, build, (text) => {
    description = text;
  });
  return Object.freeze({
    ...info,
    kind: "mcp-server",
    name,
    ...(description === undefined ? {} : { description }),
    tools: Object.freeze(tools),
  });
}

function checkConnection(where: string, connection: unknown): void {
  if (!isPlainObject(connection)) fail(where, "the connection must be { command, args? } or { url, headers? }");
  const strings = (what: string, v: unknown) => {
    if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== "string"))) fail(where, `${what} must be an array of strings`);
  };
  if ("command" in connection) {
    if ("url" in connection) fail(where, "give either command (stdio) or url (HTTP), not both");
    if (typeof connection.command !== "string" || connection.command === "") fail(where, "command must be a non-empty string");
    strings("args", connection.args);
    strings("env", connection.env);
    if (connection.cwd !== undefined && typeof connection.cwd !== "string") fail(where, "cwd must be a string");
  } else if ("url" in connection) {
    let url: URL | undefined;
    try {
      url = new URL(String(connection.url));
    } catch {
      fail(where, `url ${show(connection.url)} is not a valid URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") fail(where, `url must use http or https; got ${url.protocol}`);
    if (connection.headers !== undefined) {
      if (!isPlainObject(connection.headers) || Object.values(connection.headers).some((v) => typeof v !== "string")) {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the literal syntax users write.
        fail(where, "headers must map names to strings (use ${VAR} for secrets)");
      }
    }
  } else {
    fail(where, "the connection needs command (stdio) or url (streamable HTTP)");
  }
}

/** Declares a live server to pull a catalogue from; `build` may override single tools inline. */
export function externalServer(
  name: string,
  connection: ConnectionDecl,
  build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[],
): ExternalServerDecl {
  checkName("externalServer()", "the server name", name);
  checkConnection(`externalServer(${show(name)})`, connection);
  const overrides = collectTools(`externalServer "${name}"`, build, () => {});
  return Object.freeze({ kind: "external-server", name, connection, overrides: Object.freeze(overrides) });
}

/** Limits the runtime enforces for an agent. Durations are milliseconds. */
export interface RunPolicyDecl {
  readonly maxToolCalls?: number;
  readonly maxConsecutiveFailedToolCalls?: number;
  readonly timeBudget?: number;
  readonly toolTimeout?: number;
}

/** What `agent()` accepts as `runPolicy`: durations may be ms or strings such as "30s" or "2m". */
export interface RunPolicyInput {
  readonly maxToolCalls?: number;
  readonly maxConsecutiveFailedToolCalls?: number;
  readonly timeBudget?: Duration;
  readonly toolTimeout?: Duration;
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

// The tools a toolset is known to have at declaration time, or undefined when they come from a lock.
function knownTools(ts: ToolsetDecl): Set<string> | undefined {
  const names = new Set(ts.tools.map((t) => t.name));
  const decl = ts.provider.kind === "mcp" ? ts.provider.decl : undefined;
  if (decl?.kind === "mcp-server") for (const t of decl.tools) names.add(t.name);
  if (ts.provider.kind === "external-mcp" || decl?.kind === "mcp-server") return names;
  return undefined;
}

/** Restricts a toolset to a subset of tools for an agent. Unknown names fail when the tools are known. */
export function use<N extends string>(ts: ToolsetDecl<N>, options?: { readonly tools?: readonly NoInfer<N>[] }): ToolsetUse {
  if (!isPlainObject(ts) || ts.kind !== "toolset") fail("use()", `expects a toolset(...); got ${show(ts)}`);
  const where = `use(toolset "${ts.name}")`;
  const tools = options?.tools;
  if (tools === undefined) return Object.freeze({ kind: "use", toolset: ts });
  if (!Array.isArray(tools) || tools.length === 0) fail(where, "tools must be a non-empty array of tool names (omit it to use every tool)");
  const seen = new Set<string>();
  const known = knownTools(ts);
  for (const name of tools as readonly unknown[]) {
    if (typeof name !== "string") fail(where, `tool names must be strings; got ${show(name)}`);
    if (seen.has(name)) fail(where, `tool "${name}" is listed twice`);
    seen.add(name);
    if (known && !known.has(name)) fail(where, `unknown tool "${name}" (known: ${[...known].join(", ") || "none"})`);
  }
  return Object.freeze({ kind: "use", toolset: ts, tools: Object.freeze([...tools]) });
}

function normalizePolicy(where: string, policy: unknown): RunPolicyDecl {
  if (!isPlainObject(policy)) fail(where, "runPolicy must be an object");
  const out: { -readonly [K in keyof RunPolicyDecl]: number } = {};
  for (const [key, value] of Object.entries(policy)) {
    if (value === undefined) continue;
    if (key === "maxToolCalls" || key === "maxConsecutiveFailedToolCalls") {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
        fail(where, `runPolicy.${key} must be a positive integer; got ${show(value)}`);
      out[key] = value;
    } else if (key === "timeBudget" || key === "toolTimeout") {
      out[key] = toMilliseconds(`${where}: runPolicy.${key}`, value);
    } else {
      fail(where, `unknown runPolicy option "${key}" (allowed: maxToolCalls, maxConsecutiveFailedToolCalls, timeBudget, toolTimeout)`);
    }
  }
  return Object.freeze(out);
}

/** Declares an agent: the toolsets (or subsets) it may use and its run policy. */
export function agent(
  name: string,
  options: { readonly use: readonly (ToolsetDecl | ToolsetUse)[]; readonly runPolicy?: RunPolicyInput; readonly description?: string },
): AgentDecl {
  checkName("agent()", "the agent name", name);
  const where = `agent "${name}"`;
  if (!isPlainObject(options) || !Array.isArray(options.use))
    fail(where, "options must be { use: [toolset, use(toolset, {...})], runPolicy? }");
  const uses = options.use.map((u: unknown, i) => {
    if (isPlainObject(u) && u.kind === "use") return u as unknown as ToolsetUse;
    if (isPlainObject(u) && u.kind === "toolset") return use(u as unknown as ToolsetDecl);
    return fail(where, `use[${i}] must be a toolset(...) or use(toolset, {...}); got ${show(u)}`);
  });
  const names = new Set<string>();
  for (const u of uses) {
    if (names.has(u.toolset.name)) fail(where, `toolset "${u.toolset.name}" is used twice`);
    names.add(u.toolset.name);
  }
  if (options.description !== undefined && typeof options.description !== "string") fail(where, "description must be a string");
  return Object.freeze({
    kind: "agent",
    name,
    uses: Object.freeze(uses),
    ...(options.runPolicy === undefined ? {} : { runPolicy: normalizePolicy(where, options.runPolicy) }),
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
