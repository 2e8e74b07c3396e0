/**
 * `createProviderTools(runtime, { format })`: the tool definitions a provider accepts for what the
 * runtime has registered (generated specs, an agent's subset, or the manager's mirrored registry),
 * and `run(response)`: the model's calls validated, run under the policy and rendered back as the
 * provider's tool-result items.
 */

import type { CallOptions } from "../../caller/caller.js";
import type { ToolRequest, ToolRunner } from "../../caller/tool-request.js";
import type { ToolResult, ToolSpec } from "../../caller/tool-spec.js";
import { normalizeModelCall, toolRequestFromModelCall } from "../model-call.js";
import { renderResult } from "../render.js";
import { createResultBudget, type ResultBudgetOptions } from "../result-budget.js";
import { specVisibleToModel } from "../visibility.js";
import { type CodeModeDecision, type CodeModeOptions, decideCodeMode } from "./code-mode-seam.js";
import {
  type ExtractedCall,
  extractToolCalls,
  PROVIDER_TOOL_CAP,
  type ProviderFormat,
  type RenderedCall,
  SCHEMA_RULES,
  type ToolDefinitionOf,
  type ToolMessagesOf,
  toolMessages,
} from "./formats.js";
import { providerSchema, restoreArguments } from "./schema-variants.js";
import type { JsonSchema, SchemaNote } from "./schema-walk.js";
import { createToolSearch } from "./tool-search.js";

export type { ToolRunner } from "../../caller/tool-request.js";

/** Options of `createProviderTools`. */
export interface ProviderToolsOptions<F extends ProviderFormat> {
  readonly format: F;
  /** OpenAI only: strict mode (default true). A tool whose schema strict mode cannot express is sent non-strict and listed in `problems()`. */
  readonly strict?: boolean;
  /** Offer only the tools this accepts. */
  readonly filter?: (spec: ToolSpec) => boolean;
  /** Cap on rendered result text per call (see `renderResult`). */
  readonly maxChars?: number;
  /**
   * Tool search: `true` offers only `search_tools`/`describe_tool`/`call_tool`; `"auto"` (default)
   * does so when the catalogue exceeds the provider's tool cap; `false` never (then too many tools throws).
   */
  readonly toolSearch?: boolean | "auto";
  /**
   * Most tools one request may carry (default `PROVIDER_TOOL_CAP[format]`). Deferred loading
   * (`createDiscoveryTools`) raises it: deferred definitions are not loaded into the context.
   */
  readonly maxTools?: number;
  /**
   * Code mode: the model sees one `run_code` tool (plus `search`/`describe`) and writes a program
   * against the catalogue instead of calling each tool. Pass the plug-in from `@toolwright/code-mode`;
   * `mode: "auto"` (default) uses it only when the catalogue's definitions take a large share of the
   * context window. When code mode is on, tool search is not (code mode has its own search).
   */
  readonly codeMode?: CodeModeOptions;
  /**
   * Result budgets (`createResultBudget`): each result the model is shown fits a per-tool and a
   * per-turn token budget; an oversize one is projected or spilled to a handle the model pages
   * with `read_result` (added to the tools). In code mode the plug-in budgets the program's answer
   * itself. A turn is one `run(response)`; adapters that run calls one by one call `startTurn()`.
   */
  readonly resultBudget?: ResultBudgetOptions;
}

/** A schema problem found while building definitions at run time (generation-time certification reports these as design errors). */
export interface DefinitionProblem {
  readonly tool: string;
  readonly note: SchemaNote;
}

/** One call after it ran (or was refused). */
export interface ToolCallOutcome {
  readonly call: ExtractedCall;
  /** The request that went to `runtime.execute` (tool id, restored arguments, rejection). */
  readonly request: ToolRequest;
  readonly result: ToolResult<unknown>;
  /** What the model is shown. */
  readonly text: string;
}

/** The bound adapter. */
export interface ProviderTools<F extends ProviderFormat> {
  readonly format: F;
  /** The definitions to send this turn (read from the runtime each time, so live registries stay current). Throws past the provider's tool cap. */
  definitions(): ToolDefinitionOf[F][];
  /** The specs offered this turn: the catalogue, or the three search tools when tool search is on. */
  specs(): readonly ToolSpec[];
  /** Schema errors met by `definitions()` (tools sent in a fallback form). */
  problems(): readonly DefinitionProblem[];
  /** Runs every tool call in `response` and returns the items to append, plus each outcome. */
  run(
    response: unknown,
    options?: CallOptions,
  ): Promise<{ readonly messages: ToolMessagesOf[F]; readonly outcomes: readonly ToolCallOutcome[] }>;
  /** Whether this turn offers code mode, and the token share that decided it (undefined without `codeMode`). */
  codeMode(): CodeModeDecision | undefined;
  /** Runs one call (used by the SDK adapters that execute tools one by one). */
  runCall(call: ExtractedCall, options?: CallOptions): Promise<ToolCallOutcome>;
  /** Starts a new turn of the result budget (`run` does it itself); a no-op without `resultBudget`. */
  startTurn(): void;
}

/** The name a format sees for a spec: Gemini names must start with a letter or `_`. */
export function formatToolName(spec: ToolSpec, format: ProviderFormat): string {
  return format === "gemini" && !/^[A-Za-z_]/.test(spec.providerName) ? `_${spec.providerName}` : spec.providerName;
}

/** True when the spec's annotations say the call may run alongside others. */
export function safeInParallel(spec: ToolSpec | undefined): boolean {
  return spec?.annotations?.readOnly === true || spec?.annotations?.idempotent === true;
}

function describe(spec: ToolSpec): string {
  return spec.description ?? spec.title ?? spec.id;
}

/** The variant to send: generated (certified) when present, else computed now. */
function variantOf(spec: ToolSpec, format: ProviderFormat): { schema: JsonSchema; notes: readonly SchemaNote[] } {
  const rules = SCHEMA_RULES[format];
  const generated = spec.providerSchemas?.[rules];
  return generated ? { schema: generated, notes: [] } : providerSchema(spec.inputSchema, rules);
}

/** The direct and the search surface, each behind the result budget when one is set, and how to start a turn on both. */
function surfaces(catalogue: ToolRunner, budget: ResultBudgetOptions | undefined) {
  if (!budget) return { direct: catalogue, search: createToolSearch(catalogue), startTurn: () => {} };
  const direct = createResultBudget(catalogue, budget);
  const search = createResultBudget(createToolSearch(catalogue), budget);
  return {
    direct,
    search,
    startTurn: () => {
      direct.startTurn();
      search.startTurn();
    },
  };
}

/** Binds `runtime` to one provider format. */
export function createProviderTools<F extends ProviderFormat>(runtime: ToolRunner, options: ProviderToolsOptions<F>): ProviderTools<F> {
  const { format } = options;
  const strictWanted = options.strict !== false;
  let problems: DefinitionProblem[] = [];
  // App-only tools (MCP Apps `_meta.ui.visibility` without "model") are never offered to a model.
  const accepts = (spec: ToolSpec) => specVisibleToModel(spec) && (options.filter?.(spec) ?? true);
  const catalogue: ToolRunner =
    options.filter || runtime.specs().some((spec) => !specVisibleToModel(spec))
      ? {
          ...(runtime.principal ? { principal: runtime.principal } : {}),
          specs: () => runtime.specs().filter(accepts),
          lookup: (name) => {
            const entry = runtime.lookup(name);
            return entry && accepts(entry.spec) ? entry : undefined;
          },
          execute: (request, callOptions) => runtime.execute(request, callOptions),
        }
      : runtime;
  const budget = options.resultBudget;
  const { direct, search, startTurn } = surfaces(catalogue, budget);
  const mode = options.toolSearch ?? "auto";
  // Wrapped once: the plug-in reads the catalogue live, and may keep a warm sandbox between turns.
  // Program calls go to the unbudgeted catalogue: their results stay in the sandbox, only the answer is budgeted.
  const code = options.codeMode ? options.codeMode.plugin.wrap(catalogue, budget ? { resultBudget: budget } : undefined) : undefined;
  if (options.codeMode) decideCodeMode([], options.codeMode); // a bad option fails here, not on the first turn
  // Counting a catalogue's tokens is not free: decide again only when the set of tools changed.
  let decided: { key: string; decision: CodeModeDecision } | undefined;
  const decision = (): CodeModeDecision | undefined => {
    if (!options.codeMode) return undefined;
    const specs = catalogue.specs();
    const key = specs.map((s) => s.id).join("\n");
    if (decided?.key !== key) decided = { key, decision: decideCodeMode(specs, options.codeMode) };
    return decided.decision;
  };
  /** The surface the model sees this turn: code mode, the catalogue itself, or the three search tools over it. */
  const active = (): ToolRunner => {
    if (code && decision()?.code) return code;
    return mode === true || (mode === "auto" && catalogue.specs().length > PROVIDER_TOOL_CAP[format]) ? search : direct;
  };
  const nonStrict = new Set<string>();

  function definition(spec: ToolSpec): unknown {
    const name = formatToolName(spec, format);
    const description = describe(spec);
    const variant = variantOf(spec, format);
    const errors = variant.notes.filter((n) => n.severity === "error");
    for (const note of errors) problems.push({ tool: spec.id, note });
    switch (format) {
      case "openai-chat":
      case "openai-responses": {
        const strict = strictWanted && errors.length === 0;
        if (!strict) nonStrict.add(spec.id);
        const parameters = strict ? variant.schema : spec.inputSchema;
        return format === "openai-chat"
          ? { type: "function", function: { name, description, parameters, strict } }
          : { type: "function", name, description, parameters, strict };
      }
      case "anthropic":
        return { name, description, input_schema: errors.length === 0 ? variant.schema : { type: "object", properties: {} } };
      case "gemini":
        return { name, description, parametersJsonSchema: variant.schema };
    }
  }

  /** Maps a Gemini-prefixed name back, then looks up as the runtime does. */
  function resolve(name: string, runner: ToolRunner): ToolSpec | undefined {
    const direct = runner.lookup(name)?.spec;
    if (direct || format !== "gemini" || !name.startsWith("_")) return direct;
    return runner.lookup(name.slice(1))?.spec;
  }

  function restore(call: ExtractedCall, spec: ToolSpec | undefined): unknown {
    if (!spec) return call.arguments;
    let args = call.arguments;
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        return call.arguments; // toolRequestFromModelCall reports the malformed JSON
      }
    }
    // Non-strict OpenAI tools were sent the original schema: a null there is the model's own null.
    if (SCHEMA_RULES[format] === "openai" && (!strictWanted || nonStrict.has(spec.id))) return args;
    return restoreArguments(args, spec.inputSchema, SCHEMA_RULES[format]);
  }

  async function runCall(call: ExtractedCall, callOptions?: CallOptions): Promise<ToolCallOutcome> {
    const runner = active();
    const spec = resolve(call.name, runner);
    const normalized = normalizeModelCall({ id: call.id, name: spec ? spec.id : call.name, arguments: restore(call, spec) });
    const request: ToolRequest = { ...toolRequestFromModelCall(normalized, runner), modelName: call.name };
    // Rejections go through execute too, so they count toward the run policy.
    const result = await runner.execute(request, callOptions);
    // With result budgets the budget decides what is shown: no second, blind character cap on top.
    const maxChars = options.maxChars ?? (budget ? 0 : undefined);
    const text = renderResult(result, {
      ...(maxChars === undefined ? {} : { maxChars }),
      ...(spec ? { spec: { ...spec, providerName: formatToolName(spec, format) } } : {}),
    });
    return { call, request, result, text };
  }

  return {
    format,
    definitions() {
      problems = [];
      nonStrict.clear();
      const specs = active().specs();
      const cap = options.maxTools ?? PROVIDER_TOOL_CAP[format];
      if (specs.length > cap)
        throw new RangeError(`${specs.length} tools exceed ${format}'s cap of ${cap} per request; use toolSearch or a filter`);
      return specs.map(definition) as ToolDefinitionOf[F][];
    },
    problems: () => problems,
    specs: () => active().specs(),
    codeMode: decision,
    runCall,
    startTurn,
    async run(response, callOptions) {
      startTurn();
      const calls = extractToolCalls(format, response);
      const outcomes: ToolCallOutcome[] = [];
      // Consecutive calls that are safe to overlap run together; any other call runs alone, in order.
      let batch: ExtractedCall[] = [];
      const flush = async () => {
        outcomes.push(...(await Promise.all(batch.map((c) => runCall(c, callOptions)))));
        batch = [];
      };
      const runner = active();
      for (const call of calls) {
        const spec = resolve(call.name, runner);
        if (!spec || safeInParallel(spec)) {
          batch.push(call);
          continue;
        }
        await flush();
        outcomes.push(await runCall(call, callOptions));
      }
      await flush();
      const rendered: RenderedCall[] = outcomes.map((o) => ({ id: o.call.id, name: o.call.name, ok: o.result.ok, text: o.text }));
      return { messages: toolMessages(format, rendered), outcomes };
    },
  };
}
