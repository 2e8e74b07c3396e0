/**
 * Tool specs: what generated code knows about each tool (names, schemas, decoders, metadata).
 */

import type { Result } from "../failure/result.js";
import type { ContentBlock } from "../protocol/mcp-types.js";
import type { Decoder } from "../schema/codec.js";

/** Tool annotations, as declared (hints unless the server is trusted). */
export interface SpecAnnotations {
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly openWorld?: boolean;
}

type JsonObject = { readonly [key: string]: unknown };

/** Everything generated code knows about one tool. `P` is the payload type, `R` the result type. */
export interface ToolSpec<P = unknown, R = unknown> {
  /** `<toolset>.<tool>`. */
  readonly id: string;
  readonly toolset: string;
  /** Wire name sent in `tools/call`. */
  readonly name: string;
  /** `[A-Za-z0-9_-]{1,64}`, unique across the design; safe for model providers. */
  readonly providerName: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: { readonly [key: string]: unknown };
  readonly outputSchema?: { readonly [key: string]: unknown };
  readonly annotations?: SpecAnnotations;
  readonly tags?: readonly string[];
  /** A valid example payload, as JSON text. */
  readonly exampleJson?: string;
  /** Every example payload of the design as JSON text, when it declares two or more (`exampleJson` is the first). */
  readonly examplesJson?: readonly string[];
  /** Field path → description, for model-facing guidance. */
  readonly fieldDescriptions?: { readonly [field: string]: string };
  readonly requiresConfirmation?: boolean;
  readonly meta?: { readonly [key: string]: unknown };
  /** Input schemas certified per provider at generation time (`toolwright gen --providers`). */
  readonly providerSchemas?: { readonly openai?: JsonObject; readonly anthropic?: JsonObject; readonly gemini?: JsonObject };
  readonly decodePayload: Decoder<P>;
  /** Present when the tool declares an output schema. */
  readonly decodeResult?: Decoder<R>;
}

/**
 * The outcome of a typed call: a `Result` whose value is the decoded structured content (or the
 * joined text when no output schema exists), with the raw `content` and `structured` beside it.
 */
export type ToolResult<R> =
  | (Extract<Result<R>, { readonly ok: true }> & { readonly content: readonly ContentBlock[]; readonly structured: unknown })
  | Extract<Result<R>, { readonly ok: false }>;

/** Payload type of a spec. */
export type PayloadOf<S> = S extends ToolSpec<infer P, unknown> ? P : never;
/** Result type of a spec. */
export type ResultOf<S> = S extends ToolSpec<unknown, infer R> ? R : never;
