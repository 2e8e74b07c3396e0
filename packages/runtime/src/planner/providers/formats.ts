/**
 * The plain-JSON shapes of each provider: tool definitions, the tool calls a response carries, and
 * the tool-result items the next request sends back. Shapes follow each SDK's own parameter types
 * (checked by test/providers/types.test-d.ts), but nothing here imports an SDK.
 */
import type { JsonSchema, SchemaProvider } from "./schema-walk.js";

/** A provider wire format. */
export type ProviderFormat = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

/** The schema rules each format follows. */
export const SCHEMA_RULES: { readonly [F in ProviderFormat]: SchemaProvider } = {
  "openai-chat": "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  gemini: "gemini",
};

/** The most tools one request may carry (OpenAI documents 128; the others use the same cap here). */
export const PROVIDER_TOOL_CAP: { readonly [F in ProviderFormat]: number } = {
  "openai-chat": 128,
  "openai-responses": 128,
  anthropic: 128,
  gemini: 128,
};

/** OpenAI Chat Completions: `ChatCompletionFunctionTool`. */
export interface OpenAIChatTool {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchema; readonly strict: boolean };
}
/** OpenAI Responses: `FunctionTool`. */
export interface OpenAIResponsesTool {
  readonly type: "function";
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
}
/** Anthropic Messages: `Tool`. */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: { readonly type: "object"; readonly [key: string]: unknown };
}
/** Gemini: `FunctionDeclaration` (JSON Schema in `parametersJsonSchema`). */
export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description: string;
  readonly parametersJsonSchema: JsonSchema;
}

/** Tool definition type per format. */
export interface ToolDefinitionOf {
  "openai-chat": OpenAIChatTool;
  "openai-responses": OpenAIResponsesTool;
  anthropic: AnthropicTool;
  gemini: GeminiFunctionDeclaration;
}

/** OpenAI Chat Completions: `ChatCompletionToolMessageParam`. */
export interface OpenAIChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}
/** OpenAI Responses: `ResponseInputItem.FunctionCallOutput`. */
export interface OpenAIResponsesToolOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}
/** Anthropic: a user `MessageParam` holding one `tool_result` block per call. */
export interface AnthropicToolResultMessage {
  role: "user";
  content: { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean }[];
}
/** Gemini: a user `Content` holding one `functionResponse` part per call. */
export interface GeminiFunctionResponseContent {
  role: "user";
  parts: { functionResponse: { id?: string; name: string; response: { output: string } | { error: string } } }[];
}

/** The items to append to the conversation, per format. */
export interface ToolMessagesOf {
  "openai-chat": OpenAIChatToolMessage[];
  "openai-responses": OpenAIResponsesToolOutput[];
  anthropic: AnthropicToolResultMessage[];
  gemini: GeminiFunctionResponseContent[];
}

/** One call pulled out of a provider response. `arguments` is JSON text or an object. */
export interface ExtractedCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
}

type Loose = { readonly [key: string]: unknown };
const obj = (v: unknown): Loose | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Loose) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === "string" ? v : v === undefined ? "" : String(v));

/**
 * The tool calls in a provider response, in order. Accepts the response, the message or output,
 * or the calls themselves: OpenAI chat `tool_calls`, Responses `function_call` items, Anthropic
 * `tool_use` blocks, Gemini `functionCall` parts (ids made up as `call_<n>` when Gemini sends none).
 */
export function extractToolCalls(format: ProviderFormat, response: unknown): ExtractedCall[] {
  const r = obj(response);
  switch (format) {
    case "openai-chat": {
      const message = obj(list(r?.choices)[0])?.message ?? response;
      const calls = Array.isArray(message) ? message : list(obj(message)?.tool_calls);
      return calls.map(obj).flatMap((c) => {
        const fn = obj(c?.function);
        return c && fn ? [{ id: text(c.id), name: text(fn.name), arguments: fn.arguments }] : [];
      });
    }
    case "openai-responses": {
      const items = Array.isArray(response) ? response : list(r?.output);
      return items
        .map(obj)
        .filter((i) => i?.type === "function_call")
        .map((i) => ({ id: text(i?.call_id), name: text(i?.name), arguments: i?.arguments }));
    }
    case "anthropic": {
      const blocks = Array.isArray(response) ? response : list(r?.content);
      return blocks
        .map(obj)
        .filter((b) => b?.type === "tool_use")
        .map((b) => ({ id: text(b?.id), name: text(b?.name), arguments: b?.input }));
    }
    case "gemini": {
      const content = obj(list(r?.candidates)[0])?.content;
      const parts = Array.isArray(response) ? response : list(obj(content)?.parts ?? r?.parts);
      const calls = parts.map(
        (p) => obj(obj(p)?.functionCall) ?? (obj(p)?.name !== undefined && obj(p)?.functionCall === undefined ? obj(p) : undefined),
      );
      return calls.flatMap((c, i) =>
        c ? [{ id: typeof c.id === "string" ? c.id : `call_${i}`, name: text(c.name), arguments: c.args ?? {} }] : [],
      );
    }
  }
}

/** One finished call, rendered for the model. */
export interface RenderedCall {
  readonly id: string;
  /** The name the model used. */
  readonly name: string;
  readonly ok: boolean;
  readonly text: string;
}

/** The provider's tool-result items for `calls` (same order, same ids). */
export function toolMessages<F extends ProviderFormat>(format: F, calls: readonly RenderedCall[]): ToolMessagesOf[F] {
  let out: unknown;
  switch (format) {
    case "openai-chat":
      out = calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: c.text }));
      break;
    case "openai-responses":
      out = calls.map((c) => ({ type: "function_call_output", call_id: c.id, output: c.text }));
      break;
    case "anthropic":
      out =
        calls.length === 0
          ? []
          : [
              {
                role: "user",
                content: calls.map((c) => ({
                  type: "tool_result",
                  tool_use_id: c.id,
                  content: c.text,
                  ...(c.ok ? {} : { is_error: true }),
                })),
              },
            ];
      break;
    case "gemini":
      out =
        calls.length === 0
          ? []
          : [
              {
                role: "user",
                parts: calls.map((c) => ({
                  functionResponse: { id: c.id, name: c.name, response: c.ok ? { output: c.text } : { error: c.text } },
                })),
              },
            ];
      break;
  }
  return out as ToolMessagesOf[F];
}
