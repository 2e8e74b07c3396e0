/**
 * The shapes of `mcp.json`: the common `mcpServers` map (Claude, Cursor) plus Toolwright's own
 * per-server fields. Raw entries are what the file says; resolved entries have variables expanded.
 */
import type { EraPreference } from "../protocol/mcp-client.js";
import type { OutboundPolicy } from "../transport/outbound.js";

/** How a tool's exposed (model-facing) name is chosen when two servers share a tool name. */
export type CollisionPolicy = "error" | "prefix" | "prefix-on-collision";

/** Which protocol era to speak: negotiate, force legacy `initialize`, or stateless 2026-07-28 (the callers' `era`, same names). */
export type ProtocolEra = EraPreference;

/** Connection lifecycle: keep the connection open, or close it after this much idle time. */
export type Lifecycle = "keep-alive" | { readonly idleTimeoutMs: number };

/** Transport of a server. `sse` and `streamable-http` are spellings other clients use for HTTP. */
export type ServerType = "stdio" | "http" | "streamable-http" | "sse";

/** Fields every server may carry, whatever its transport. */
export interface ServerCommon {
  readonly type?: ServerType;
  readonly enabled?: boolean;
  readonly autoStart?: boolean;
  readonly era?: ProtocolEra;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly probeTimeoutMs?: number;
  /** Only these tools are exposed (exact names, `*` matches any run of characters). */
  readonly allowTools?: readonly string[];
  /** These tools are hidden, even if allowed. */
  readonly denyTools?: readonly string[];
  readonly lifecycle?: Lifecycle;
  /** Skip the approval hook for every tool (`true`) or for the named tools. */
  readonly autoApprove?: boolean | readonly string[];
  /** Annotations from a trusted server are facts; from others they are hints. Default false. */
  readonly trusted?: boolean;
  readonly collisionPolicy?: CollisionPolicy;
  /** Call limits a durable engine enforces across all workers (`@toolwright/dbos` makes them queues). */
  readonly limits?: ServerLimits;
}

/** Per-server call limits for durable runs. */
export interface ServerLimits {
  /** Calls in flight at once, across all workers. */
  readonly concurrency?: number;
  /** Calls in flight at once on one worker. */
  readonly workerConcurrency?: number;
  /** At most `calls` calls started per `periodMs`, across all workers. */
  readonly rateLimit?: { readonly calls: number; readonly periodMs: number };
}

/** A server entry as written in `mcp.json` (before `${VAR}` expansion). */
export interface RawServerConfig extends ServerCommon {
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: { readonly [key: string]: string };
  readonly cwd?: string;
  readonly url?: string;
  readonly headers?: { readonly [key: string]: string };
  readonly outbound?: OutboundPolicy;
}

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
