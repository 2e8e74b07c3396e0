/**
 * @toolwright/ai-sdk: a Vercel AI SDK `ToolSet` over a Toolwright runtime. Each tool validates with
 * the generated codecs and runs under the runtime's run policy; `needsApproval` comes from
 * `destructive` / `requiresConfirmation`, and `toModelOutput` from `renderResult` / `renderFailure`.
 * @packageDocumentation
 */
import type { ToolFailure, ToolSpec } from "@toolwright/runtime";
import { createNeutralBinding, type NeutralDiscovery, type NeutralToolOptions, type ToolRunner } from "@toolwright/runtime/providers";
import { jsonSchema, type ToolSet, tool } from "ai";

/** What a Toolwright tool returns to the AI SDK (the model sees `text`). */
export type ToolwrightToolOutput =
  | { readonly ok: true; readonly text: string; readonly value: unknown; readonly structured: unknown }
  | { readonly ok: false; readonly text: string; readonly failure: ToolFailure };

/** Options of `createAiSdkTools`: the neutral binding's options (filter, tool search, code mode, discovery, result budgets) and the AI SDK's approval. */
export interface AiSdkToolsOptions extends NeutralToolOptions {
  /** Override `needsApproval`; default: destructive or `requiresConfirmation` tools need approval. */
  readonly needsApproval?: (spec: ToolSpec) => boolean;
}

/** The discovery options an SDK adapter takes: the threshold and how tokens are counted. */
export type AdapterDiscovery = NeutralDiscovery;

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
  const binding = createNeutralBinding(runtime, options);
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
