/**
 * Public shapes of the tool server (`@toolwright/runtime/server`): what a generated scaffold or a
 * hand-written server passes to `createToolServer`, and the context a handler receives.
 */

import type { RpcId } from "../protocol/json-rpc.js";
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  Implementation,
  LogLevel,
  PromptArgument,
  ResourceContents,
} from "../protocol/mcp-types.js";
import type { Decoder } from "../schema/codec.js";

// One LogLevel for the wire and the server (its public home is `@toolwright/runtime/protocol`).
export type { LogLevel };

/** Tool annotations as they go on the wire (`*Hint` names). */
export interface ToolAnnotationsWire {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** What a handler may return: a full `CallToolResult`, or structured content with optional blocks. */
export type ToolHandlerResult =
  | CallToolResult
  | {
      readonly structuredContent: unknown;
      readonly content?: readonly ContentBlock[];
      readonly _meta?: { readonly [key: string]: unknown };
    };

/** A structured result whose `structuredContent` has the tool's output type (content is optional). */
export interface StructuredResult<T> {
  readonly structuredContent: T;
  readonly content?: readonly ContentBlock[];
  readonly _meta?: { readonly [key: string]: unknown };
}

/** Everything a handler can see and do besides its arguments. */
export interface ToolContext {
  /** Aborted when the client sends `notifications/cancelled` or the session ends. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of this `tools/call`. */
  readonly requestId: RpcId;
  /** Session id over HTTP; undefined over stdio. */
  readonly sessionId: string | undefined;
  /** The negotiated protocol version. */
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: { readonly [key: string]: unknown };
  /** The request's `_meta` (progress token, trace context...). */
  readonly meta: { readonly [key: string]: unknown };
  /** Sends `notifications/progress` when the client asked for progress; otherwise does nothing. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends `notifications/message` when `level` passes the level the client set. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Sends a server-to-client request (`sampling/createMessage`, `elicitation/create`, `roots/list`)
   * and resolves with its result. Rejects with an `RpcHandlerError` on an error answer, on abort, or
   * after `timeoutMs` (default 60 s). A capability the client did not declare rejects at once
   * (-32601; -32021 in 2026-07-28, where other requests are refused: no input_required support).
   */
  request(method: string, params?: { readonly [key: string]: unknown }, options?: { readonly timeoutMs?: number }): Promise<unknown>;
  /**
   * Asks the client for input under a stable `key`. Legacy era: the same as `request`. 2026-07-28:
   * the call answers `input_required` and the handler is replayed with the answer when the client
   * retries, so code before the first `input` must be safe to run again.
   */
  input(key: string, method: string, params?: { readonly [key: string]: unknown }): Promise<unknown>;
  /**
   * HTTP only: ends this call's SSE stream now; the client resumes with GET + Last-Event-ID and gets
   * the rest there (SEP-1699 polling). Does nothing over stdio or JSON responses.
   */
  closeSseStream(): void;
}

/** One tool a server offers. `Args` and `Result` are the handler's static types. */
export interface ServerTool<Args = { readonly [key: string]: unknown }> {
  /** Wire name. */
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  /** JSON Schema of the arguments; must have `type: "object"`. Sent as is (2020-12 keywords kept). */
  readonly inputSchema: { readonly [key: string]: unknown };
  readonly outputSchema?: { readonly [key: string]: unknown };
  readonly annotations?: ToolAnnotationsWire;
  readonly _meta?: { readonly [key: string]: unknown };
  /** Icons for the tool, listed as is (`src`, `mimeType`, `sizes`...). */
  readonly icons?: readonly { readonly [key: string]: unknown }[];
  /** MCP task execution, listed as is: `taskSupport` "optional" or "required" makes 2026-07-28 calls tasks (tasks extension). */
  readonly execution?: { readonly taskSupport?: "forbidden" | "optional" | "required" };
  /** When a task call becomes a task: at once (default), or after its `input_required` rounds ("after-input"). */
  readonly taskStart?: "immediate" | "after-input";
  /** Validates arguments before the handler runs; failures become an `isError` result listing the issues. */
  readonly decodePayload?: Decoder<Args>;
  /** Validates `structuredContent` before it is sent; a mismatch becomes an `isError` result. */
  readonly decodeResult?: Decoder<unknown>;
  /**
   * Runs the call. A thrown `RpcHandlerError` answers with that JSON-RPC error; anything else
   * thrown goes to `onError` and becomes an `isError` result that does not repeat its message.
   * Return `{ isError: true, content }` for a failure the model should read.
   */
  readonly handler: (args: Args, ctx: ToolContext) => ToolHandlerResult | Promise<ToolHandlerResult>;
}

/** What resource and prompt handlers can see and do. */
export interface SurfaceContext {
  readonly signal: AbortSignal;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string;
  readonly clientCapabilities: { readonly [key: string]: unknown };
  /** Asks the client for input (elicitation, sampling, roots): a request (legacy) or an `input_required` round (2026-07-28). */
  input(key: string, method: string, params?: { readonly [key: string]: unknown }): Promise<unknown>;
}

/** What a resource read returns: text, bytes, one item, or every item. */
export type ResourceBody =
  | string
  | Uint8Array
  | { readonly text: string; readonly mimeType?: string }
  | { readonly blob: string; readonly mimeType?: string }
  | readonly ResourceContents[];

/** Completes one argument or template variable: the values for what the user typed so far. */
export type ArgumentCompleter = (
  value: string,
  context: { readonly arguments: { readonly [name: string]: string } },
) => readonly string[] | Promise<readonly string[]>;

/** A resource with a fixed URI. */
export interface ServerResource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly _meta?: { readonly [key: string]: unknown };
  readonly read: (ctx: SurfaceContext) => ResourceBody | Promise<ResourceBody>;
}

/**
 * Resources behind an RFC 6570 URI template; `read` gets the matched variables. Errors as for
 * prompts: an `RpcHandlerError` is sent as it is, anything else thrown is -32603 "Internal error".
 */
export interface ServerResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly _meta?: { readonly [key: string]: unknown };
  readonly read: (uri: string, variables: { readonly [name: string]: string }, ctx: SurfaceContext) => ResourceBody | Promise<ResourceBody>;
  /** `completion/complete` for the template's variables. */
  readonly complete?: { readonly [variable: string]: ArgumentCompleter };
}

/**
 * A prompt; `get` receives the arguments, checked first: strings, declared names only, required
 * ones present (otherwise -32602 naming them). A thrown `RpcHandlerError` answers with its code
 * and message; anything else thrown is -32603 "Internal error" (its message goes to `onError`).
 */
export interface ServerPrompt {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly PromptArgument[];
  readonly _meta?: { readonly [key: string]: unknown };
  readonly get: (args: { readonly [name: string]: string }, ctx: SurfaceContext) => GetPromptResult | Promise<GetPromptResult>;
  /** `completion/complete` for the prompt's arguments. */
  readonly complete?: { readonly [argument: string]: ArgumentCompleter };
}

/**
 * A skill served through the skills extension (SEP-2640): its path under `skill://` (the last
 * segment is the skill's name, as `SKILL.md`'s frontmatter says) and its files by relative path.
 */
export interface ServerSkill {
  /** E.g. "pdf-processing" or "acme/billing/refunds". */
  readonly path: string;
  /** File path within the skill → text or bytes; "SKILL.md" (text, with name/description frontmatter) is required. */
  readonly files: { readonly [file: string]: string | Uint8Array };
}

/** Options for `createToolServer`. */
export interface ToolServerOptions {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  /** Newest protocol version to speak; older client versions down to 2024-11-05 are accepted. */
  readonly protocolVersion?: string;
  readonly instructions?: string;
  // biome-ignore lint/suspicious/noExplicitAny: each tool has its own argument type.
  readonly tools: readonly ServerTool<any>[];
  /** Tools per `tools/list` page; all on one page when absent. */
  readonly pageSize?: number;
  readonly resources?: readonly ServerResource[];
  readonly resourceTemplates?: readonly ServerResourceTemplate[];
  readonly prompts?: readonly ServerPrompt[];
  /** Skills (SEP-2640): declares the extension, serves `skills/list`, `skills/get` and the files as resources. */
  readonly skills?: readonly ServerSkill[];
  /**
   * Longest URI accepted by `resources/read`, `resources/subscribe` and `resources/unsubscribe`;
   * a longer one is refused with -32602 naming the limit. Default 16384 characters.
   */
  readonly maxUriLength?: number;
  /** 2026-07-28 list caching hint (`ttlMs`) for tools, prompts, resources, templates and reads. Default 0. */
  readonly cacheTtlMs?: number;
  /** Key for sealing 2026-07-28 `requestState`; random per process when absent (set it when several processes serve one endpoint). */
  readonly stateSecret?: Uint8Array;
  /** Called with handler errors and protocol noise, for the server's own logs (stderr). */
  readonly onError?: (error: unknown, where: string) => void;
}
