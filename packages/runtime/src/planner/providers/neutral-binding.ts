/**
 * The binding a provider-neutral SDK adapter (the AI SDK, LangChain) builds on: the SDK adapts the
 * schemas per provider itself, so definitions go out in the OpenAI Chat shape with strict rewrites
 * off, and a catalogue past its context share gets the local search tools (no provider-native
 * deferred loading: the SDK, not Toolwright, talks to the provider). Kept here, once, so the
 * adapters differ only in how they wrap a spec as their SDK's tool.
 */

import type { CallOptions } from "../../caller/call-options.js";
import type { ToolSpec } from "../../caller/tool-spec.js";
import type { ResultBudgetOptions } from "../result-budget.js";
import type { ToolCallOutcome, ToolRunner } from "./binding.js";
import { createProviderTools } from "./binding.js";
import type { CodeModeOptions } from "./code-mode-seam.js";
import type { DiscoveryOptions } from "./discovery.js";
import { createDiscoveryTools } from "./discovery.js";

/** The discovery options a provider-neutral adapter takes: the threshold and how tokens are counted. */
export type NeutralDiscovery = Pick<DiscoveryOptions<"openai-chat">, "contextWindow" | "threshold" | "countTokens">;

/** What every provider-neutral adapter accepts, passed through to the binding unchanged. */
export interface NeutralToolOptions {
  /** Offer only the tools this accepts. */
  readonly filter?: (spec: ToolSpec) => boolean;
  /** Tool search over large catalogues; default `"auto"`: past 128 tools. */
  readonly toolSearch?: boolean | "auto";
  /** Cap on the rendered text per result. */
  readonly maxChars?: number;
  /**
   * Code mode: one `run_code` tool (plus `search`/`describe`) instead of the catalogue's tools, with
   * the plug-in from `@toolwright/code-mode`. Default: off.
   */
  readonly codeMode?: CodeModeOptions;
  /**
   * Progressive discovery by the catalogue's share of the context window (`createDiscoveryTools`):
   * the catalogue's tools while they take at most `threshold` of `contextWindow`, the three local
   * search tools past it. Decided when the tools are built. Ignored with `codeMode`, which has its
   * own search.
   */
  readonly discovery?: NeutralDiscovery;
  /**
   * Result budgets (`createResultBudget`): a result over its token budget is projected or spilled to
   * a handle the model pages with the added `read_result` tool, never cut. In code mode the
   * program's answer is budgeted. The turn budget spans the tools built: build them per agent run.
   */
  readonly resultBudget?: ResultBudgetOptions;
}

/** What an adapter needs of the binding: the specs to wrap and one call at a time. */
export interface NeutralBinding {
  specs(): readonly ToolSpec[];
  runCall(call: { id: string; name: string; arguments: unknown }, options?: CallOptions): Promise<ToolCallOutcome>;
}

/** The binding for a provider-neutral adapter: discovery when asked for (and code mode is off), else the plain tools. */
export function createNeutralBinding(runtime: ToolRunner, options: NeutralToolOptions): NeutralBinding {
  const { discovery, ...rest } = options;
  if (discovery && !options.codeMode) {
    return createDiscoveryTools(runtime, {
      ...discovery,
      format: "openai-chat",
      native: false,
      strict: false,
      ...(rest.filter ? { filter: rest.filter } : {}),
      ...(rest.maxChars === undefined ? {} : { maxChars: rest.maxChars }),
      ...(rest.resultBudget ? { resultBudget: rest.resultBudget } : {}),
    });
  }
  return createProviderTools(runtime, { ...rest, format: "openai-chat", strict: false });
}
