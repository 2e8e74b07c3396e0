/**
 * The declarations a design is made of, as types only: tools, toolsets, providers, servers and
 * agents. They sit in one file because they name each other (a toolset's provider may carry its
 * server, an agent uses toolsets), while the builders that make them import this file and never
 * each other.
 */
import type { PromptDecl, PromptDefinition, ResourceDecl, ResourceDefinition, ResourceTemplateDecl } from "./design-surface.js";
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

/**
 * Applications whose `mcp.json` lives at a per-platform place outside the project; a design names
 * the application, not the path, so it works for everyone who has it installed.
 * `claude-desktop`: `~/Library/Application Support/Claude/claude_desktop_config.json` (macOS),
 * `%APPDATA%\\Claude\\claude_desktop_config.json` (Windows), `$XDG_CONFIG_HOME/Claude/claude_desktop_config.json` (elsewhere).
 */
export type McpJsonApp = "claude-desktop";

/**
 * A connection read from an `mcp.json` file at pull and gen time (`mcpJson()`): the server is
 * declared once, in the file the manager and other MCP clients read too.
 */
export interface McpJsonConnectionDecl {
  readonly kind: "mcp-json";
  /**
   * The file, relative to the design's folder (default `.toolwright/mcp.json`); `~/` starts at the
   * home directory of whoever loads the design. Absent when `app` names the file.
   */
  readonly file?: string;
  /** An application's own config, found on the loading machine's platform (`claude-desktop`). */
  readonly app?: McpJsonApp;
  /** The entry's name in the file, when it differs from the server's name in the design. */
  readonly entry?: string;
}

/**
 * How `toolwright pull` reaches a live server: stdio (command), streamable HTTP (url), or an
 * `mcp.json` entry (`mcpJson()`). It lives in the design (`externalServer(name, connection)`).
 */
export type ConnectionDecl =
  | McpJsonConnectionDecl
  | {
      readonly command: string;
      readonly args?: readonly string[];
      /** `NAME` passes the variable through; `KEY=VALUE` sets a literal. */
      readonly env?: readonly string[];
      readonly cwd?: string;
      /** Client capabilities pull announces (servers may list more tools to clients with roots, sampling or elicitation). Default: none. */
      readonly capabilities?: { readonly [key: string]: unknown };
    }
  | {
      readonly url: string;
      readonly headers?: { readonly [key: string]: string };
      /** Client capabilities pull announces. Default: none. */
      readonly capabilities?: { readonly [key: string]: unknown };
      /** Which hosts and addresses pull may reach (every redirect hop); the runtime's `OutboundPolicy`. */
      readonly outbound?: {
        readonly allowedHosts?: readonly string[];
        readonly allowInsecureHttp?: boolean;
        readonly allowPrivateNetworks?: boolean;
        readonly allowLoopback?: boolean;
      };
    };

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
  /** Prompts, resources and templates the server offers: typed handler stubs in the scaffold, typed readers in its client. */
  readonly prompts?: readonly PromptDecl[];
  readonly resources?: readonly ResourceDecl[];
  readonly resourceTemplates?: readonly ResourceTemplateDecl[];
}

/** A live server whose catalogue `toolwright pull` snapshots into the design's lock file. */
export interface ExternalServerDecl {
  readonly kind: "external-server";
  readonly name: string;
  readonly connection: ConnectionDecl;
  /** Inline declarations that override single pulled tools. */
  readonly overrides: readonly ToolDecl[];
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
