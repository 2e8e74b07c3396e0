/**
 * Which tool each sandbox function calls: `namespace.fn` → tool id. `toolwright gen` emits this
 * map with the sandbox API (`apis`); without it, it is derived from the runner's specs with the
 * same camel-casing. Only tools the runner offers to a model are bound: hidden (app-only) tools, and
 * tools a filter leaves out, do not exist in the sandbox at all.
 */
import type { ToolSpec } from "@toolwright/runtime";
import { specVisibleToModel } from "@toolwright/runtime/providers";
import type { CodeModeApi } from "./check/api.js";

/** Sandbox functions by namespace, each naming the tool id it calls: `{ memory: { readGraph: "memory.read_graph" } }`. */
export interface CodeModeApis {
  readonly [namespace: string]: { readonly [fn: string]: string };
}

/** The generated APIs (`<toolset>CodeMode` of each `code-mode.gen.ts`) as bindings: namespace → function → tool id. */
export function apisFromGenerated(apis: readonly CodeModeApi[]): CodeModeApis {
  const out: { [ns: string]: { [fn: string]: string } } = Object.create(null);
  for (const api of apis) {
    const fns: { [fn: string]: string } = Object.create(null);
    for (const fn of Object.keys(api.bindings)) fns[fn] = `${api.toolset}.${api.bindings[fn]}`;
    out[api.namespace] = fns;
  }
  return out;
}

/** What binding needs from a runner. */
export interface SpecSource {
  specs(): readonly ToolSpec[];
  lookup(tool: string): { readonly spec: ToolSpec } | undefined;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * camelCase of a toolset or tool name (`read_graph` → `readGraph`, `get-sum` → `getSum`); a name
 * starting with a digit gets a leading `_`. Hand-written because the codegen's version lives in the
 * CLI package, which an app running code mode does not install; the rule is the same.
 */
export function camelIdentifier(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter((w) => w !== "");
  const joined = words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join("");
  if (joined === "") return "_";
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

/** Derives the bindings from the specs: namespace = camelCase toolset, function = camelCase wire name. */
export function deriveApis(specs: readonly ToolSpec[]): CodeModeApis {
  const out: { [ns: string]: { [fn: string]: string } } = Object.create(null);
  for (const spec of specs) {
    const ns = camelIdentifier(spec.toolset);
    if (!Object.hasOwn(out, ns)) out[ns] = Object.create(null) as { [fn: string]: string };
    const fns = out[ns] as { [fn: string]: string };
    let fn = camelIdentifier(spec.name);
    // Two wire names that camel-case alike (`get_item`, `getItem`) keep both: the second gets its id's suffix.
    for (let i = 2; Object.hasOwn(fns, fn); i++) fn = `${camelIdentifier(spec.name)}${i}`;
    fns[fn] = spec.id;
  }
  return out;
}

/**
 * The bindings the sandbox gets: `apis` (or the derived ones) restricted to tools the runner knows
 * and `accepts`. Throws a TypeError naming a namespace or function that is not a JavaScript identifier.
 */
export function bindApis(
  runner: SpecSource,
  apis: CodeModeApis | undefined,
  accepts: (spec: ToolSpec) => boolean,
): Map<string, Map<string, ToolSpec>> {
  const source = apis ?? deriveApis(runner.specs());
  const out = new Map<string, Map<string, ToolSpec>>();
  for (const ns of Object.keys(source)) {
    if (!IDENTIFIER.test(ns)) throw new TypeError(`code mode: namespace ${JSON.stringify(ns)} is not a JavaScript identifier`);
    const fns = new Map<string, ToolSpec>();
    for (const [fn, id] of Object.entries(source[ns] ?? {})) {
      if (!IDENTIFIER.test(fn)) throw new TypeError(`code mode: function ${JSON.stringify(`${ns}.${fn}`)} is not a JavaScript identifier`);
      const spec = runner.lookup(id)?.spec;
      if (spec && specVisibleToModel(spec) && accepts(spec)) fns.set(fn, spec);
    }
    if (fns.size > 0) out.set(ns, fns);
  }
  return out;
}
