/**
 * MCP message shapes the runtime reads and writes. Kept as plain structural types; nothing here
 * parses with a schema library.
 */

// The versions live in their revision folders; re-exported here, where the public entries found them.
export { MODERN_PROTOCOL_VERSION } from "../revisions/2026-07-28/versions.js";
export { LEGACY_PROTOCOL_VERSIONS } from "../revisions/legacy/versions.js";

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

/** A resource as listed by `resources/list`. */
export interface ResourceDescriptor {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
  readonly annotations?: unknown;
  readonly _meta?: { readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** A resource template as listed by `resources/templates/list` (RFC 6570 `uriTemplate`). */
export interface ResourceTemplateDescriptor {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly _meta?: { readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** One item of `resources/read`: text or base64 `blob`. */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string; readonly _meta?: { readonly [key: string]: unknown } }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string; readonly _meta?: { readonly [key: string]: unknown } };

/** A prompt argument as listed by `prompts/list`. */
export interface PromptArgument {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly required?: boolean;
}

/** A prompt as listed by `prompts/list`. */
export interface PromptDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
  readonly _meta?: { readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** One message of `prompts/get`. */
export interface PromptMessage {
  readonly role: "user" | "assistant";
  readonly content: ContentBlock;
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  readonly description?: string;
  readonly messages: readonly PromptMessage[];
  readonly _meta?: { readonly [key: string]: unknown };
}

/** What `completion/complete` completes: a prompt's argument or a resource template's variable. */
export type CompletionReference =
  | { readonly type: "ref/prompt"; readonly name: string }
  | { readonly type: "ref/resource"; readonly uri: string };

/** The result of `completion/complete`. */
export interface Completion {
  readonly values: readonly string[];
  readonly total?: number;
  readonly hasMore?: boolean;
}

/** `logging/setLevel` levels (RFC 5424 names). */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
