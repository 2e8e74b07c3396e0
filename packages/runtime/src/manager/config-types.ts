/**
 * The shapes of `mcp.json`: the common `mcpServers` map (Claude, Cursor) plus Toolwright's own
 * per-server fields. Raw entries are what the file says; resolved entries have variables expanded.
 */
import type { EraPreference } from "../protocol/mcp-client.js";
import type { OutboundPolicy } from "../transport/outbound.js";
import type { RawServerEntry } from "./config-schema.js";

/** How a tool's exposed (model-facing) name is chosen when two servers share a tool name. */
export type CollisionPolicy = NonNullable<RawServerEntry["collisionPolicy"]>;

/** Which protocol era to speak: negotiate, force legacy `initialize`, or stateless 2026-07-28 (the callers' `era`, same names). */
export type ProtocolEra = EraPreference;

/** Connection lifecycle: keep the connection open, or close it after this much idle time. */
export type Lifecycle = NonNullable<RawServerEntry["lifecycle"]>;

/** Transport of a server. `sse` and `streamable-http` are spellings other clients use for HTTP. */
export type ServerType = NonNullable<RawServerEntry["type"]>;

/** Per-server call limits a durable engine enforces across all workers (`@toolwright/dbos` makes them queues). */
export type ServerLimits = NonNullable<RawServerEntry["limits"]>;

/**
 * Fields every server may carry, whatever its transport (see the field descriptions in
 * `mcp-config.schema.json`): type, enabled, autoStart, era, the timeouts, allowTools/denyTools,
 * lifecycle, autoApprove, trusted, collisionPolicy and limits.
 */
export type ServerCommon = Omit<
  RawServerEntry,
  "command" | "args" | "env" | "cwd" | "url" | "headers" | "outbound" | "disabled" | "description"
>;

/** A server entry as written in `mcp.json` (before `${VAR}` expansion). */
export type RawServerConfig = Omit<RawServerEntry, "disabled" | "description">;

/** A stdio server, variables expanded. */
export interface StdioServerConfig extends ServerCommon {
  readonly transport: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [key: string]: string };
  readonly cwd?: string;
}

/** An HTTP server, variables expanded. */
export interface HttpServerConfig extends ServerCommon {
  readonly transport: "http";
  readonly url: string;
  readonly headers: { readonly [key: string]: string };
  /** Which hosts and addresses may be reached (every redirect hop included). */
  readonly outbound?: OutboundPolicy;
}

/** A resolved server entry: transport known, variables expanded, origin recorded. */
export type ServerConfig = (StdioServerConfig | HttpServerConfig) & {
  /** The file the entry came from, or `"inline"`. */
  readonly source?: string;
};

/** A whole resolved configuration. */
export interface McpConfig {
  readonly mcpServers: { readonly [name: string]: ServerConfig };
  readonly collisionPolicy?: CollisionPolicy;
  /** Files that were read, global first. */
  readonly files?: readonly string[];
  /** Unknown fields and other non-fatal remarks, with file and JSON pointer. */
  readonly warnings?: readonly string[];
}
