/**
 * The shapes a generated `mock.gen.ts` hands the kit. Generated code imports only the runtime, so
 * `create<Toolset>Mock(handlers)` returns plain data of this shape and the kit reads it
 * structurally (as `@toolwright/code-mode` reads `code-mode.gen.ts`).
 */
import type { ToolSpec } from "@toolwright/runtime/codegen";
import type { CallToolResult } from "@toolwright/runtime/server";

/** What a handler is told about the call it answers. */
export interface MockCallInfo {
  /** Wire name of the tool: `get-sum`. */
  readonly tool: string;
  /** 1-based number of this call among the calls to the same tool. */
  readonly call: number;
  /** 1-based number of this call among every call the mock got. */
  readonly seq: number;
  /** Aborted when the client cancels the call or the connection closes. */
  readonly signal: AbortSignal;
  /** The request's `_meta` as the client sent it (`{}` when it sent none): idempotency key, progress token. */
  readonly _meta: MockCallMeta;
}

/** A call's `_meta`: the request's `params._meta`, keys as sent (`toolwright.dev/idempotency-key`, `progressToken`). */
export type MockCallMeta = { readonly [key: string]: unknown };

/** Where a tool's default answer came from. */
export type MockAnswerSource = "example" | "schema" | "text" | "none";

/** One tool of a generated mock. */
export interface MockToolDefinition {
  /** The generated spec: wire schemas, payload decoder and (with an output schema) the result decoder. */
  readonly spec: ToolSpec;
  /** The answer when no handler is given: from the output schema's examples, a sample of the schema, or text. */
  readonly answer: { readonly from: MockAnswerSource; readonly value: unknown };
  /** The test's handler, typed by the generated `<Toolset>MockHandlers`. */
  readonly handler?: ((payload: never, call: MockCallInfo) => unknown) | undefined;
  /** The tool as its server listed it (the lock's entry): the mock lists it as is. Absent: listed from `spec`. */
  readonly listed?: unknown;
}

/** What `create<Toolset>Mock(handlers)` returns: a toolset's tools with their answers and handlers. */
export interface MockDefinition {
  /** The toolset's name in the design: `everything`. */
  readonly toolset: string;
  /** The server name failures name (the toolset's server in the design). */
  readonly server: string;
  readonly tools: readonly MockToolDefinition[];
}

/** One call the mock received, for assertions. */
export interface MockCall {
  readonly tool: string;
  /** The arguments as received (before decoding). */
  readonly arguments: { readonly [key: string]: unknown };
  /** 1-based among the calls to `tool`. */
  readonly call: number;
  /** 1-based among every call. */
  readonly seq: number;
  /** The request's `_meta` as received (`{}` when the client sent none): idempotency key, progress token. */
  readonly _meta: MockCallMeta;
}

/**
 * Wraps every call the mock answers (after recording it): fault injection hooks in here. `answer`
 * runs the handler or default answer and its schema check; a wrapper may delay, replace the
 * result, or throw an `RpcHandlerError` for a JSON-RPC error.
 */
export type MockInterceptor = (call: MockCall, answer: () => Promise<CallToolResult>, signal: AbortSignal) => Promise<CallToolResult>;
