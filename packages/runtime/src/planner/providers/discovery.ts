/**
 * Progressive discovery from one catalogue, native where the provider has it:
 * - Anthropic Messages: the tool search tool (`tool_search_tool_bm25_20251119`) plus every tool with
 *   `defer_loading: true` and `input_examples` (the design's example payload);
 * - OpenAI Responses: hosted `tool_search` plus the tools grouped in one `namespace` per toolset,
 *   each function `defer_loading: true`;
 * - everyone else (Chat Completions, Gemini): local search, the three `search_tools` /
 *   `describe_tool` / `call_tool` tools over the catalogue (BM25, see tool-search.ts).
 * The switch is the catalogue's share of the model's context window, not a tool count: a few
 * huge tools can cost more than many small ones. Definitions are rendered in catalogue order
 * from the same text every turn, so a provider's prompt cache stays warm. A provider that rejects
 * the deferred request gets the plain list instead, and the answer says so (a value).
 */
import type { CallOptions } from "../../caller/caller.js";
import type { ToolRunner } from "../../caller/tool-request.js";
import type { ToolSpec } from "../../caller/tool-spec.js";
import { redactText } from "../../failure/failure.js";
import type { ResultBudgetOptions } from "../result-budget.js";
import type { TokenAccount } from "../token-account.js";
import { createProviderTools, type ProviderTools, type ToolCallOutcome } from "./binding.js";
import { type ExtractedCall, PROVIDER_TOOL_CAP, type ProviderFormat, type ToolMessagesOf } from "./formats.js";

/** How the catalogue reaches the model this turn. */
export type DiscoveryMode = "all" | "native" | "local";

/** Options of `createDiscoveryTools`. */
export interface DiscoveryOptions<F extends ProviderFormat> {
  readonly format: F;
  /** The model's context window in tokens (default 200,000). */
  readonly contextWindow?: number;
  /**
   * Above this share of the context window the catalogue is discovered rather than loaded
   * (default 0.02, i.e. 2%; the MCP best-practices page suggests 1-5%). Must be in (0, 1].
   */
  readonly threshold?: number;
  /** Use the provider's own deferred loading where it has one (default true); false always searches locally. */
  readonly native?: boolean;
  /** OpenAI Responses, native mode: one namespace per toolset (default true). */
  readonly namespaces?: boolean;
  /** A namespace description per toolset (default: the toolset's name and tool names). */
  readonly namespaceDescriptions?: { readonly [toolset: string]: string };
  /**
   * Token counter for the threshold. The runtime has no tokenizer (it has no dependencies); the
   * default estimate is characters / 4, which over-counts JSON definitions by about a quarter
   * (measured against o200k_base on the reference servers' catalogues), so it errs toward
   * discovery. Pass a real counter (e.g. js-tiktoken) for exact numbers.
   */
  readonly countTokens?: (text: string) => number;
  /** Records each turn's definition tokens (sent vs. the whole catalogue) for the run's attribution. */
  readonly account?: TokenAccount;
  /** Passed to the underlying adapters (see `ProviderToolsOptions`). */
  readonly strict?: boolean;
  readonly filter?: (spec: ToolSpec) => boolean;
  readonly maxChars?: number;
  /** Result budgets on every surface (see `ProviderToolsOptions.resultBudget`). */
  readonly resultBudget?: ResultBudgetOptions;
}

/** Why this turn's tools look the way they do. */
export interface DiscoveryPlan {
  readonly mode: DiscoveryMode;
  readonly format: ProviderFormat;
  /** Tools in the catalogue. */
  readonly tools: number;
  /** What sending every definition would cost. */
  readonly catalogueTokens: number;
  /** The threshold in tokens (`contextWindow * threshold`). */
  readonly thresholdTokens: number;
  /** Set after a provider refused deferred loading: the plain list is sent from then on. */
  readonly fallback?: DiscoveryFallback;
}

/** A provider refused the deferred request; the plain tool list (or local search, past the tool cap) was sent instead. */
export interface DiscoveryFallback {
  readonly from: "native";
  readonly to: "all" | "local";
  /** The provider's refusal, shortened. */
  readonly reason: string;
}

/** The answer of `send`. */
export interface DiscoverySend<R> {
  readonly response: R;
  readonly plan: DiscoveryPlan;
  /** Present when this request was refused with deferred loading and re-sent with the plain list. */
  readonly fallback?: DiscoveryFallback;
}

/** The bound adapter: tool definitions for this turn and the run of the model's calls. */
export interface DiscoveryTools<F extends ProviderFormat> {
  readonly format: F;
  /** This turn's plan (mode, tokens, threshold). */
  plan(): DiscoveryPlan;
  /** The `tools` of this turn's request, in the provider's shape. */
  definitions(): unknown[];
  /** The specs the model can call directly this turn. */
  specs(): readonly ToolSpec[];
  /** Runs the calls in `response` (real tool names for native/all, the three search tools for local). */
  run(
    response: unknown,
    options?: CallOptions,
  ): Promise<{ readonly messages: ToolMessagesOf[F]; readonly outcomes: readonly ToolCallOutcome[] }>;
  runCall(call: ExtractedCall, options?: CallOptions): Promise<ToolCallOutcome>;
  /**
   * Sends one request with this turn's tools. A provider that refuses the deferred request (HTTP
   * 400, 404 or 422 from the SDK) is asked again with the plain list, and the answer says so.
   * Any other error is the request's own and propagates.
   */
  send<R>(request: (tools: unknown[]) => Promise<R>): Promise<DiscoverySend<R>>;
}

/** Anthropic documents up to 10,000 tools in a deferred catalogue; OpenAI uses the same order of magnitude here. */
const DEFERRED_CAP = 10_000;
const ANTHROPIC_SEARCH_TOOL = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" } as const;
const OPENAI_SEARCH_TOOL = { type: "tool_search" } as const;

function nativeSupported(format: ProviderFormat): boolean {
  return format === "anthropic" || format === "openai-responses";
}

/** One example payload as an object, or nothing (Anthropic's `input_examples` are objects). */
function exampleObject(json: string): { [key: string]: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { [key: string]: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** Every example payload of the design (`examplesJson`, else `exampleJson`) as objects, in design order. */
function examplesOf(spec: ToolSpec | undefined): { [key: string]: unknown }[] {
  const texts = spec?.examplesJson ?? (spec?.exampleJson ? [spec.exampleJson] : []);
  const out: { [key: string]: unknown }[] = [];
  for (const text of texts) {
    const example = exampleObject(text);
    if (example) out.push(example);
  }
  return out;
}

/** A namespace name OpenAI accepts (the toolset name, with anything else replaced). */
function namespaceName(toolset: string): string {
  return toolset.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "tools";
}

/** A status code carried by an SDK error (`APIError.status` in both openai and @anthropic-ai/sdk). */
function refusalStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && (status === 400 || status === 404 || status === 422) ? status : undefined;
}

/** Binds `runtime` to one provider format with progressive discovery above a share of the context window. */
export function createDiscoveryTools<F extends ProviderFormat>(runtime: ToolRunner, options: DiscoveryOptions<F>): DiscoveryTools<F> {
  const { format } = options;
  const contextWindow = options.contextWindow ?? 200_000;
  const threshold = options.threshold ?? 0.02;
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`threshold must be in (0, 1], got ${threshold}`);
  if (!(contextWindow > 0)) throw new RangeError(`contextWindow must be positive, got ${contextWindow}`);
  const count = options.countTokens ?? ((text: string) => Math.ceil(text.length / 4));
  const base = {
    format,
    ...(options.strict === undefined ? {} : { strict: options.strict }),
    ...(options.filter === undefined ? {} : { filter: options.filter }),
    ...(options.maxChars === undefined ? {} : { maxChars: options.maxChars }),
    ...(options.resultBudget === undefined ? {} : { resultBudget: options.resultBudget }),
  };
  const plain = createProviderTools(runtime, { ...base, toolSearch: false, maxTools: DEFERRED_CAP });
  const local = createProviderTools(runtime, { ...base, toolSearch: true });
  let fallback: DiscoveryFallback | undefined;
  // The catalogue's cost is recomputed only when its definitions change, so a long run pays for it once.
  let priced: { text: string; tokens: number } | undefined;

  function plan(): DiscoveryPlan {
    const defs = plain.definitions();
    const text = JSON.stringify(defs);
    if (priced?.text !== text) priced = { text, tokens: count(text) };
    const thresholdTokens = Math.floor(contextWindow * threshold);
    const tools = defs.length;
    let mode: DiscoveryMode;
    if (priced.tokens <= thresholdTokens && tools <= PROVIDER_TOOL_CAP[format]) mode = "all";
    else if (fallback) mode = fallback.to;
    else mode = options.native !== false && nativeSupported(format) ? "native" : "local";
    return { mode, format, tools, catalogueTokens: priced.tokens, thresholdTokens, ...(fallback ? { fallback } : {}) };
  }

  function nativeDefinitions(): unknown[] {
    const defs = plain.definitions() as unknown as { [key: string]: unknown }[];
    const specs = plain.specs();
    if (format === "anthropic") {
      const deferred = defs.map((d, i) => {
        const examples = examplesOf(specs[i]);
        return { ...d, ...(examples.length > 0 ? { input_examples: examples } : {}), defer_loading: true };
      });
      return [ANTHROPIC_SEARCH_TOOL, ...deferred];
    }
    const functions = defs.map((d) => ({ ...d, defer_loading: true }));
    if (options.namespaces === false) return [OPENAI_SEARCH_TOOL, ...functions];
    // One namespace per toolset, in the order toolsets first appear: stable across turns.
    const groups = new Map<string, { names: string[]; tools: unknown[] }>();
    functions.forEach((f, i) => {
      const toolset = specs[i]?.toolset ?? "tools";
      const group = groups.get(toolset) ?? { names: [], tools: [] };
      group.names.push(String((f as { name?: unknown }).name));
      group.tools.push(f);
      groups.set(toolset, group);
    });
    const namespaces = [...groups].map(([toolset, g]) => ({
      type: "namespace",
      name: namespaceName(toolset),
      description:
        options.namespaceDescriptions?.[toolset] ??
        `Tools of ${toolset}: ${g.names.slice(0, 12).join(", ")}${g.names.length > 12 ? `, and ${g.names.length - 12} more` : ""}`,
      tools: g.tools,
    }));
    return [OPENAI_SEARCH_TOOL, ...namespaces];
  }

  const adapterFor = (mode: DiscoveryMode): ProviderTools<F> => (mode === "local" ? local : plain);

  function definitions(): unknown[] {
    const current = plan();
    const defs = current.mode === "native" ? nativeDefinitions() : adapterFor(current.mode).definitions();
    // Deferred definitions are not loaded into the context: only the search tool counts as sent.
    if (options.account) {
      const loaded = current.mode === "native" ? defs.slice(0, 1) : defs;
      options.account.recordDefinitions(count(JSON.stringify(loaded)), current.catalogueTokens);
    }
    return defs;
  }

  return {
    format,
    plan,
    definitions,
    specs: () => adapterFor(plan().mode).specs(),
    run: (response, callOptions) => adapterFor(plan().mode).run(response, callOptions),
    runCall: (call, callOptions) => adapterFor(plan().mode).runCall(call, callOptions),
    async send(request) {
      const before = plan();
      try {
        return { response: await request(definitions()), plan: before };
      } catch (error) {
        const status = refusalStatus(error);
        if (before.mode !== "native" || status === undefined) throw error;
        const message = error instanceof Error ? error.message : String(error);
        fallback = {
          from: "native",
          to: before.tools <= PROVIDER_TOOL_CAP[format] ? "all" : "local",
          // The refusal is kept as a value the caller may log: secret-looking text is redacted first.
          reason: `${status}: ${redactText(message).replace(/\s+/g, " ").slice(0, 300)}`,
        };
        const after = plan();
        return { response: await request(definitions()), plan: after, fallback };
      }
    },
  };
}
