/**
 * Code mode as model tools: `createCodeModeTools(...)` is the plug-in the provider binding of
 * `@toolwright/runtime/providers` takes as `codeMode.plugin`, so every planner path (OpenAI,
 * Anthropic, Gemini, the AI SDK, LangChain, the manager's live registry) offers the same three
 * tools: `run_code` (check and run a program), `search` (index lines), `describe` (full types), and
 * `read_result` (pages of an answer over its result budget, see `model-tools-budget.ts`).
 */
import type { FieldIssue, ToolResult, ToolSpec, TracerLike } from "@toolwright/runtime";
import type { Decoded } from "@toolwright/runtime/caller";
import { type CodeModePlugin, type ResultBudgetOptions, rankTools, type ToolRunner } from "@toolwright/runtime/providers";
import { apisFromGenerated } from "./bindings.js";
import type { CodeModeApi } from "./check/api.js";
import { createTypeChecker, type TypeChecker } from "./check/type-checker.js";
import { type CodeChecker, type CodeMode, createCodeMode } from "./code-mode.js";
import type { ExecutionLimits, Executor } from "./executor.js";
import { type AnswerBudget, createAnswerBudget } from "./model-tools-budget.js";
import { findEntry, type ModelEntry, modelEntries, runCodeDescription } from "./model-tools-text.js";

/** Options of `createCodeModeTools`. */
export interface CodeModeToolsOptions {
  /** The generated `<toolset>CodeMode` objects (`code-mode.gen.ts`): typed programs, the progressive index and its token counts. */
  readonly apis?: readonly CodeModeApi[];
  /** Type-check programs against `apis` (default true when `apis` are given; without them programs are JavaScript). */
  readonly typeCheck?: boolean;
  /** The sandbox; default QuickJS wasm, one shared per plug-in so later programs run warm. */
  readonly executor?: Executor;
  readonly limits?: Partial<ExecutionLimits>;
  readonly tracer?: TracerLike;
  /** An o200k token counter, for tools the generated index does not cover and for `mode: "auto"` (without one, auto uses the generated counts). */
  readonly countTokens?: (text: string) => number;
  /**
   * The answer budget when `resultBudget` gives none: about `maxChars / 4` tokens. An answer over it
   * is projected or paged (never cut). Default: 1,800 tokens, under the binding's 8,000-character render cap.
   */
  readonly maxChars?: number;
  /**
   * Result budget of a program's answer (`toolTokens`, or `perTool.run_code`; the counter, store and
   * token account). Overrides the binding's `resultBudget`, which the plug-in receives otherwise.
   */
  readonly resultBudget?: ResultBudgetOptions;
}

const TOOLSET = "toolwright";

/** The three tool names, as the model sees them. */
export const CODE_MODE_TOOL_NAMES = Object.freeze(["run_code", "search", "describe", "read_result"] as const);

type Field = "string" | "integer";

/** The meta tools' tiny schemas need no schema library: a hand check giving the runtime's `FieldIssue`s. */
function decoder(fields: { readonly [k: string]: Field }, required: readonly string[]) {
  return (value: unknown): Decoded<unknown> => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, issues: [{ field: "", constraint: "invalid_field_type", expected: "object" }] };
    const v = value as { readonly [k: string]: unknown };
    const issues: FieldIssue[] = [];
    for (const r of required) if (v[r] === undefined) issues.push({ field: r, constraint: "missing_field" });
    for (const key of Object.keys(v)) {
      const type = Object.hasOwn(fields, key) ? fields[key] : undefined;
      const actual = v[key];
      if (type === undefined) issues.push({ field: key, constraint: "unknown_field" });
      else if (
        type === "string" ? typeof actual !== "string" : !Number.isInteger(actual) || (actual as number) < 1 || (actual as number) > 50
      )
        issues.push({
          field: key,
          constraint: type === "string" ? "invalid_field_type" : "invalid_range",
          expected: type === "string" ? "string" : "integer 1..50",
        });
    }
    return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
  };
}

function metaSpec(
  name: string,
  description: string,
  properties: { [k: string]: { type: Field; [k: string]: unknown } },
  required: string[],
  example: unknown,
  readOnly: boolean,
): ToolSpec {
  const fields = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.type]));
  return {
    id: `${TOOLSET}.${name}`,
    toolset: TOOLSET,
    name,
    providerName: name,
    description,
    inputSchema: { type: "object", properties, required, additionalProperties: false },
    annotations: { readOnly },
    exampleJson: JSON.stringify(example),
    decodePayload: decoder(fields, required),
  };
}

const SEARCH = metaSpec(
  "search",
  "Search the tools a run_code program can call. Returns one line per tool: its signature and what it does.",
  {
    query: { type: "string", description: "What the tool should do, in a few words" },
    limit: { type: "integer", minimum: 1, maximum: 50, description: "How many results (default 10)" },
  },
  ["query"],
  { query: "create entities" },
  true,
);
const DESCRIBE = metaSpec(
  "describe",
  "The full types of one tool (input and result), by the name search gave (e.g. memory.createEntities).",
  { name: { type: "string", description: "The tool, as namespace.function" } },
  ["name"],
  { name: "memory.createEntities" },
  true,
);

function ok(text: string, structured: unknown): ToolResult<unknown> {
  return { ok: true, value: text, content: [{ type: "text", text }], structured };
}

/** Compact JSON text of a program's value (compact: every character is a context token); the answer budget decides what is shown. */
function show(value: unknown): string {
  try {
    return value === undefined ? "undefined" : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

/** The code-mode plug-in for `createProviderTools(runtime, { codeMode: { plugin } })` and the SDK adapters. */
export function createCodeModeTools(options: CodeModeToolsOptions = {}): CodeModePlugin {
  const generated = options.apis ?? [];
  const typed = generated.length > 0 && options.typeCheck !== false;
  // One checker per plug-in: the parsed declarations are what makes later checks warm.
  let checker: TypeChecker | undefined;
  const codeChecker: CodeChecker | undefined = typed
    ? {
        check: (source) => {
          checker ??= createTypeChecker(generated, { tool: "run_code" });
          return checker.check(source);
        },
      }
    : undefined;
  const generatedApis = apisFromGenerated(generated);
  const generatedTokens = new Map<string, number>();
  for (const api of generated)
    for (const [fn, wire] of Object.entries(api.bindings)) {
      const detail = Object.hasOwn(api.details, fn) ? api.details[fn] : undefined;
      if (detail) generatedTokens.set(`${api.toolset}.${wire}`, detail.tokens);
    }

  return {
    catalogueTokens(specs) {
      // Direct definitions as a provider request carries them: name, description and input schema.
      const text = (s: ToolSpec) =>
        JSON.stringify({ name: s.providerName, description: s.description ?? s.title ?? s.id, parameters: s.inputSchema });
      const count = options.countTokens;
      if (count) return specs.reduce((n, s) => n + count(text(s)), 0);
      // No counter: the tokens gen counted for each tool's full declaration (the same input schema, as
      // TypeScript), and an estimate from the JSON for tools the generated APIs do not cover.
      return specs.reduce((n, s) => n + (generatedTokens.get(s.id) ?? Math.ceil(text(s).length / 3.5)), 0);
    },
    wrap(inner: ToolRunner, seam?: { readonly resultBudget?: ResultBudgetOptions }): ToolRunner {
      const budget: AnswerBudget = createAnswerBudget({
        ...(seam?.resultBudget ?? {}),
        ...(options.resultBudget ?? {}),
        ...(options.maxChars === undefined ? {} : { maxChars: options.maxChars }),
      });
      // Rebuilt only when the inner catalogue changes (a manager's registry between turns).
      let state: { key: string; mode: CodeMode; entries: ModelEntry[]; runCode: ToolSpec } | undefined;
      const current = () => {
        const specs = inner.specs();
        const key = specs.map((s) => s.id).join("\n");
        if (state?.key === key) return state;
        const known = new Set(specs.map((s) => s.id));
        const coversAll =
          generated.length > 0 && Object.values(generatedApis).every((fns) => Object.values(fns).every((id) => known.has(id)));
        const mode = createCodeMode({
          runtime: inner,
          ...(coversAll ? { apis: generatedApis } : {}),
          ...(options.executor ? { executor: options.executor } : {}),
          ...(options.limits ? { limits: options.limits } : {}),
          ...(options.tracer ? { tracer: options.tracer } : {}),
          ...(typed && coversAll && codeChecker ? { checker: codeChecker } : {}),
        });
        const entries = modelEntries(specs, mode.apis, coversAll ? generated : [], options.countTokens);
        const runCode = metaSpec(
          "run_code",
          runCodeDescription(entries, typed && coversAll),
          { code: { type: "string", description: "The program (body of an async function)" } },
          ["code"],
          { code: "const graph = await memory.readGraph({});\nreturn graph.entities.length;" },
          false,
        );
        state = { key, mode, entries, runCode };
        return state;
      };
      const lookup = (tool: string) => {
        const spec = [current().runCode, SEARCH, DESCRIBE, budget.spec].find((s) => s.id === tool || s.providerName === tool);
        return spec ? { spec, caller: { server: TOOLSET } } : undefined;
      };
      return {
        ...(inner.principal ? { principal: inner.principal } : {}),
        specs: () => [current().runCode, SEARCH, DESCRIBE, budget.spec],
        lookup,
        async execute(request, callOptions) {
          // Refused meta calls (bad arguments, unknown names) go through the inner runtime so its policy counts them.
          if (request.rejection || !lookup(request.tool)) return inner.execute(request, callOptions);
          const args = (request.arguments ?? {}) as { readonly [k: string]: unknown };
          const { mode, entries } = current();
          // Whose answers these are: a held answer is read back by the same principal only.
          const owner = (callOptions?.principal ?? inner.principal)?.id;
          switch (request.tool) {
            case "toolwright.search": {
              const limit = typeof args.limit === "number" ? args.limit : 10;
              const hits = rankTools(
                String(args.query ?? ""),
                entries.map((e) => e.spec),
                limit,
              );
              const lines = hits.map((s) => entries.find((e) => e.spec === s)?.line ?? s.id);
              return ok(lines.length > 0 ? lines.join("\n") : `No tools match ${JSON.stringify(args.query)}. Try other words.`, {
                tools: hits.map((s) => entries.find((e) => e.spec === s)?.path),
              });
            }
            case "toolwright.describe": {
              const entry = findEntry(entries, String(args.name));
              if (entry) return ok(entry.detail, { tool: entry.path });
              const near = rankTools(
                String(args.name),
                entries.map((e) => e.spec),
                3,
              ).map((s) => entries.find((e) => e.spec === s)?.path);
              return ok(`No tool ${JSON.stringify(args.name)}. Closest: ${near.join(", ") || "none"}.`, { tool: null, closest: near });
            }
            case "toolwright.read_result":
              return budget.read(args as { handle: string; offset: number; limit: number }, owner);
            default: {
              const result = await mode.run(String(args.code), callOptions?.signal ? { signal: callOptions.signal } : {});
              if (!result.ok) return { ok: false, failure: result.failure };
              const printed = result.console.map((l) => `[${l.level}] ${l.text}`);
              const text = [show(result.value), ...(printed.length > 0 ? ["console:", ...printed] : [])].join("\n");
              return budget.answer(
                {
                  ok: true,
                  value: result.value,
                  content: [{ type: "text", text }],
                  // Structured content equal to the text is not rendered twice; with console lines it would be, so it is left out.
                  structured: printed.length > 0 ? undefined : result.value,
                },
                owner,
              );
            }
          }
        },
      };
    },
  };
}
