/**
 * The text a model reads in code mode: the `run_code` description, `search` hits and `describe`
 * answers. From the generated progressive index when `toolwright gen` emitted one (signatures and
 * types, token counts computed at gen time); for tools without one (a manager's live registry),
 * derived from the specs' JSON Schema. Deterministic: sorted, no time, so prompt caches stay warm.
 */
import type { ToolSpec } from "@toolwright/runtime";
import type { CodeModeApi } from "./check/api.js";

/** One tool as code mode shows it: where it is called, its one-line index entry and its full detail. */
export interface ModelEntry {
  readonly spec: ToolSpec;
  /** `memory.createEntities`. */
  readonly path: string;
  /** The index line (signature and summary). */
  readonly line: string;
  /** The full declaration (generated) or the JSON Schema (derived). */
  readonly detail: string;
  /** o200k tokens of `line` / `detail`, when counted (at gen time, or by the `countTokens` option). */
  readonly lineTokens: number | undefined;
  readonly detailTokens: number | undefined;
}

/** The one-line summary of a spec: first sentence, at most 120 characters (as the generator does). */
function summary(spec: ToolSpec): string {
  const text = (spec.description ?? spec.title ?? "").replace(/\s+/g, " ").trim();
  const sentence = /^(.{20,}?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.length <= 120 ? sentence : `${sentence.slice(0, 119)}…`;
}

/**
 * Entries for `specs` under the bound names (`apis`: namespace → function → tool id). A tool the
 * generated APIs describe gets their text; any other tool a derived one.
 */
export function modelEntries(
  specs: readonly ToolSpec[],
  apis: { readonly [ns: string]: { readonly [fn: string]: string } },
  generated: readonly CodeModeApi[],
  count: ((text: string) => number) | undefined,
): ModelEntry[] {
  const byId = new Map(specs.map((s) => [s.id, s]));
  const gen = new Map(generated.map((g) => [g.namespace, g]));
  const out: ModelEntry[] = [];
  for (const ns of Object.keys(apis).sort()) {
    const fns = apis[ns] ?? {};
    const api = gen.get(ns);
    for (const fn of Object.keys(fns).sort()) {
      const spec = byId.get(fns[fn] as string);
      if (!spec) continue;
      const path = `${ns}.${fn}`;
      const indexed = api?.index.find((e) => e.name === fn);
      const detail = api && Object.hasOwn(api.details, fn) ? api.details[fn] : undefined;
      if (indexed && detail) {
        out.push({ spec, path, line: indexed.line, detail: detail.text, lineTokens: indexed.tokens, detailTokens: detail.tokens });
        continue;
      }
      const line = `${path}(input: object): Promise<unknown> // ${summary(spec)}`;
      const derived = [
        `/** ${(spec.description ?? spec.title ?? spec.id).replace(/\*\//g, "*\\/")} */`,
        `${path}(input: Input): Promise<unknown>`,
        `Input (JSON Schema): ${JSON.stringify(spec.inputSchema)}`,
        ...(spec.exampleJson ? [`Example input: ${spec.exampleJson}`] : []),
      ].join("\n");
      out.push({ spec, path, line, detail: derived, lineTokens: count?.(line), detailTokens: count?.(derived) });
    }
  }
  return out;
}

/** Index lines shown in the `run_code` description while they fit; past this, only namespaces. */
const INLINE_INDEX_TOKENS = 1_500;

/** The `run_code` description: how to write a program, and the index (or the namespaces) to write it against. */
export function runCodeDescription(entries: readonly ModelEntry[], typed: boolean): string {
  const head = [
    `Run a short ${typed ? "TypeScript" : "JavaScript"} program that calls tools and returns only what you need. The program is the body of an async function: \`await\` tool calls, \`return\` the final value (JSON), \`console.log\` is captured.`,
    typed
      ? "It is type-checked first: a type error comes back with line and column, and nothing runs."
      : "It is not type-checked: call `describe` for a tool's input first.",
    "A failed call throws a ToolError (kind, recovery, issues) you can catch. No network, files or timers: only the tools below.",
    "Use `search` to find tools and `describe` for a tool's full types before calling it.",
  ];
  const estimated = entries.reduce((n, e) => n + (e.lineTokens ?? Math.ceil(e.line.length / 3.5)), 0);
  if (estimated <= INLINE_INDEX_TOKENS) return [...head, "Tools:", ...entries.map((e) => e.line)].join("\n");
  const namespaces = new Map<string, number>();
  for (const e of entries) {
    const ns = e.path.split(".")[0] as string;
    namespaces.set(ns, (namespaces.get(ns) ?? 0) + 1);
  }
  return [...head, `Namespaces (${entries.length} tools):`, ...[...namespaces].map(([ns, n]) => `${ns}: ${n} tools`)].join("\n");
}

/** `describe`'s lookup: `memory.createEntities`, `createEntities`, the wire name or the tool id. */
export function findEntry(entries: readonly ModelEntry[], name: string): ModelEntry | undefined {
  const exact = entries.find((e) => e.path === name || e.spec.id === name || e.spec.providerName === name);
  if (exact) return exact;
  const short = entries.filter((e) => e.path.endsWith(`.${name}`) || e.spec.name === name);
  return short.length === 1 ? short[0] : undefined;
}
