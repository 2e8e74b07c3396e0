/**
 * @toolwright/langchain: LangChain tools over a Toolwright runtime. Arguments are validated by the
 * generated codecs before LangChain's own check, so a bad call comes back as a rendered
 * `ToolFailure` in an error `ToolMessage` (counted by the run policy), never as a thrown exception.
 * @packageDocumentation
 */
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { ToolResult, ToolSpec } from "@toolwright/runtime";
import { createNeutralBinding, type NeutralToolOptions, type ToolCallOutcome, type ToolRunner } from "@toolwright/runtime/providers";

/** Options of `createLangChainTools`: the neutral binding's options (filter, tool search, code mode, discovery, result budgets). */
export interface LangChainToolsOptions extends NeutralToolOptions {}

/** What a tool needs of the binding: one call at a time. */
interface CallRunner {
  runCall(call: { id: string; name: string; arguments: unknown }, options?: { signal?: AbortSignal }): Promise<ToolCallOutcome>;
}

type ToolCallLike = { readonly type?: string; readonly id?: string; readonly name?: string; readonly args?: unknown };
const isToolCall = (v: unknown): v is ToolCallLike =>
  typeof v === "object" && v !== null && "args" in v && "name" in v && (v as ToolCallLike).type !== undefined;

function message(text: string, id: string, name: string, result: ToolResult<unknown>): ToolMessage {
  return new ToolMessage({ content: text, tool_call_id: id, name, status: result.ok ? "success" : "error", artifact: result });
}

/** One spec as a LangChain tool: content is the rendered text, the artifact the `ToolResult`. */
class ToolwrightTool extends DynamicStructuredTool {
  constructor(
    private readonly spec: ToolSpec,
    private readonly binding: CallRunner,
  ) {
    super({
      name: spec.providerName,
      description: spec.description ?? spec.title ?? spec.id,
      schema: spec.inputSchema as { [key: string]: unknown },
      responseFormat: "content_and_artifact",
      func: async (input: unknown, _runManager?: unknown, config?: { toolCall?: { id?: string }; signal?: AbortSignal }) => {
        const outcome = await binding.runCall(
          { id: config?.toolCall?.id ?? "", name: spec.providerName, arguments: input },
          config?.signal ? { signal: config.signal } : {},
        );
        return [outcome.text, outcome.result];
      },
    });
  }

  /** Checks with the generated codec first: an invalid call becomes an error ToolMessage, not a ToolInputParsingException. */
  override async invoke(input: unknown, config?: unknown): Promise<never> {
    const args = isToolCall(input) ? input.args : input;
    if (!this.spec.decodePayload(args).ok) {
      const id = isToolCall(input) ? (input.id ?? "") : ((config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id ?? "");
      const outcome = await this.binding.runCall({ id, name: this.spec.providerName, arguments: args });
      return message(outcome.text, id, this.spec.providerName, outcome.result) as never;
    }
    return super.invoke(input as never, config as never) as Promise<never>;
  }
}

/** LangChain tools for what `runtime` offers (or the three tool-search tools for a large catalogue). */
export function createLangChainTools(runtime: ToolRunner, options: LangChainToolsOptions = {}): DynamicStructuredTool[] {
  const binding = createNeutralBinding(runtime, options);
  return binding.specs().map((spec) => new ToolwrightTool(spec, binding));
}
