/**
 * @toolwright/ai-sdk: a Vercel AI SDK `ToolSet` over a Toolwright runtime. Each tool validates with
 * the generated codecs and runs under the runtime's run policy; `needsApproval` comes from
 * `destructive` / `requiresConfirmation`, and `toModelOutput` from `renderResult` / `renderFailure`.
 * @packageDocumentation
 */
import type { ToolFailure, ToolSpec } from "@toolwright/runtime";
import {
  type CodeModeOptions,
  createDiscoveryTools,
  createProviderTools,
  type DiscoveryOptions,
  type ResultBudgetOptions,
  type ToolRunner,
} from "@toolwright/runtime/providers";
import { jsonSchema, type ToolSet, tool } from "ai";

/** What a Toolwright tool returns to the AI SDK (the model sees `text`). */
export type ToolwrightToolOutput =
  | { readonly ok: true; readonly text: string; readonly value: unknown; readonly structured: unknown }
  | { readonly ok: false; readonly text: string; readonly failure: ToolFailure };

/** Options of `createAiSdkTools`. */
export interface AiSdkToolsOptions {
  /** Offer only the tools this accepts. */
  readonly filter?: (spec: ToolSpec) => boolean;
  /** Tool search over large catalogues (see `@toolwright/runtime/providers`); default `"auto"`: past 128 tools. */
  readonly toolSearch?: boolean | "auto";
  /** Cap on the rendered text per result. */
  readonly maxChars?: number;
  /**
   * Code mode: one `run_code` tool (plus `search`/`describe`) instead of the catalogue's tools, with
   * the plug-in from `@toolwright/code-mode` (see `@toolwright/runtime/providers`). Default: off.
   */
  readonly codeMode?: CodeModeOptions;
  /**
   * Progressive discovery by the catalogue's share of the context window (`createDiscoveryTools`):
   * the catalogue's tools while they take at most `threshold` of `contextWindow`, the three local
   * search tools past it (the AI SDK is provider-neutral, so no provider-native deferred loading).
   * Decided when the ToolSet is built. Ignored with `codeMode`, which has its own search.
   */
  readonly discovery?: AdapterDiscovery;
  /**
   * Result budgets (`createResultBudget`): a result over its token budget is projected or spilled to
   * a handle the model pages with the added `read_result` tool, never cut. In code mode the
   * program's answer is budgeted. The turn budget spans this ToolSet: build one per `generateText`.
   */
  readonly resultBudget?: ResultBudgetOptions;
  /** Override `needsApproval`; default: destructive or `requiresConfirmation` tools need approval. */
  readonly needsApproval?: (spec: ToolSpec) => boolean;
}

/** The discovery options an SDK adapter takes: the threshold and how tokens are counted. */
export type AdapterDiscovery = Pick<DiscoveryOptions<"openai-chat">, "contextWindow" | "threshold" | "countTokens">;

function asJson(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return null;
  }
}

/**
 * A `ToolSet` keyed by provider-safe name. Read it again each turn for a live registry (the manager
 * path). Approval through `needsApproval` happens in the AI SDK; the runtime's own `confirm` hook
 * still runs, so pass `confirm: () => true` to the runtime when the AI SDK approval is the gate.
 */
export function createAiSdkTools(runtime: ToolRunner, options: AiSdkToolsOptions = {}): ToolSet {
  // The SDK gets the original schemas (it adapts them per provider itself), so strict rewrites stay off.
  const { discovery, ...rest } = options;
  const binding =
    discovery && !options.codeMode
      ? createDiscoveryTools(runtime, {
          ...discovery,
          format: "openai-chat",
          native: false,
          strict: false,
          ...(rest.filter ? { filter: rest.filter } : {}),
          ...(rest.maxChars === undefined ? {} : { maxChars: rest.maxChars }),
          ...(rest.resultBudget ? { resultBudget: rest.resultBudget } : {}),
        })
      : createProviderTools(runtime, { ...rest, format: "openai-chat", strict: false });
  const approval =
    options.needsApproval ?? ((spec: ToolSpec) => spec.requiresConfirmation === true || spec.annotations?.destructive === true);
  const tools: ToolSet = {};
  for (const spec of binding.specs()) {
    tools[spec.providerName] = tool<unknown, ToolwrightToolOutput>({
      description: spec.description ?? spec.title ?? spec.id,
      inputSchema: jsonSchema<unknown>(spec.inputSchema as Parameters<typeof jsonSchema>[0]),
      needsApproval: approval(spec),
      execute: async (input, { toolCallId, abortSignal }) => {
        const { result, text } = await binding.runCall(
          { id: toolCallId, name: spec.providerName, arguments: input },
          abortSignal ? { signal: abortSignal } : {},
        );
        return result.ok
          ? { ok: true, text, value: asJson(result.value), structured: asJson(result.structured) }
          : { ok: false, text, failure: result.failure };
      },
      toModelOutput: ({ output }) => (output.ok ? { type: "text", value: output.text } : { type: "error-text", value: output.text }),
    });
  }
  return tools;
}
