/**
 * MCP message shapes the runtime reads and writes. Kept as plain structural types; nothing here
 * parses with a schema library.
 */

/** Protocol versions this runtime speaks, newest first (legacy `initialize` era). */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** The stateless protocol revision. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** A content block in a tool result. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string; readonly annotations?: unknown; readonly _meta?: unknown }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string; readonly annotations?: unknown }
  | { readonly type: "audio"; readonly data: string; readonly mimeType: string; readonly annotations?: unknown }
  | {
      readonly type: "resource_link";
      readonly uri: string;
      readonly name?: string;
      readonly title?: string;
      readonly description?: string;
      readonly mimeType?: string;
    }
  | {
      readonly type: "resource";
      readonly resource: {
        readonly uri: string;
        readonly mimeType?: string;
        readonly text?: string;
        readonly blob?: string;
      };
    };

/** The result of `tools/call`. */
export interface CallToolResult {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly _meta?: { readonly [key: string]: unknown };
}

/** A tool as listed by `tools/list`. */
export interface ToolDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: { readonly [key: string]: unknown };
  readonly outputSchema?: { readonly [key: string]: unknown };
  readonly annotations?: {
    readonly title?: string;
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint?: boolean;
  };
  readonly _meta?: { readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** Who we are, sent in `initialize`. */
export interface Implementation {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
}

/** What the server told us during the handshake. */
export interface ServerHandshake {
  readonly protocolVersion: string;
  readonly capabilities: { readonly [key: string]: unknown };
  readonly serverInfo?: Implementation;
  readonly instructions?: string;
}
