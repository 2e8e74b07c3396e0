/**
 * Compiles a toolset's validators once, here in the resolver: ajv standalone code (JSON Schema
 * 2020-12, all errors) for every payload and result. A schema ajv cannot compile is a design error
 * naming the tool, so the validators plugin only prints what this returns and never validates.
 * ajv's own run-time helpers are rewritten to runtime symbols, so generated code never imports ajv.
 */

import type { JsonSchema } from "@toolwright/dsl";
import { _ } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { DesignError } from "../errors.js";
import type { IrSchema, IrSymbol, IrTool, IrToolset, IrValidators } from "../ir/ir.js";
import { compactStandalone } from "./compact-standalone.js";
import { createAjv } from "./schema.js";
import { shareSubSchemas } from "./shared-schemas.js";

// ajv's standalone module is CommonJS; under NodeNext its default import may be the module object.
type Standalone = (ajv: Ajv2020, refs: { readonly [name: string]: string }) => string;
const standalone = ((standaloneCode as unknown as { default?: unknown }).default ?? standaloneCode) as unknown as Standalone;

type Helper = IrValidators["helpers"][number];

/** ajv run-time modules and the runtime symbols that replace them. */
const RUNTIME_HELPERS: { readonly [module: string]: Helper } = {
  "ajv/dist/runtime/ucs2length": "ucs2length",
  "ajv/dist/runtime/equal": "deepEqual",
};

/** Compiles the validator module of `ts` (its tools' `symbols` name the exports). Throws `DesignError`. */
export function compileValidators(ts: Pick<IrToolset, "name" | "tools">, file: string): IrValidators {
  // inlineRefs off: a shared sub-schema stays one function instead of being pasted at each $ref.
  const ajv = createAjv({ source: true, esm: true, lines: true, formats: _`formats` }, { inlineRefs: false });
  const exports: { [name: string]: string } = {};
  // Identical schemas (common for empty inputs) share one compiled function.
  const byShape = new Map<string, string>();
  const aliases: [string, string][] = [];
  const unique: { tool: IrTool; json: JsonSchema; name: string; what: string }[] = [];
  const add = (tool: IrTool, schema: IrSchema, { name }: IrSymbol, what: string) => {
    const shape = JSON.stringify(schema.json);
    const same = byShape.get(shape);
    if (same !== undefined) {
      aliases.push([name, same]);
      return;
    }
    byShape.set(shape, name);
    unique.push({ tool, json: schema.json as JsonSchema, name, what });
  };
  for (const tool of ts.tools) {
    add(tool, tool.input, tool.symbols.validatePayload, "input");
    if (tool.output && tool.symbols.validateResult) add(tool, tool.output, tool.symbols.validateResult, "output");
  }
  // Sub-schemas repeated across tools become one schema each, referenced by `$ref`.
  const { roots, shared } = shareSubSchemas(unique.map((u) => u.json));
  // Ajv2020 always tracks evaluated properties and items, which only unevaluated* keywords read:
  // without them (a false positive in a description only keeps the tracking), the code is smaller.
  if (!unique.some((u) => /"unevaluated(Properties|Items)"/.test(JSON.stringify(u.json)))) ajv.opts.unevaluated = false;
  for (const [id, body] of shared) ajv.addSchema(body as object, id);
  unique.forEach((u, i) => {
    try {
      ajv.addSchema(roots[i] as object, u.name);
      ajv.getSchema(u.name);
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new DesignError({ file, toolset: ts.name, tool: u.tool.name }, `${u.what} schema: invalid schema: ${problem}`);
    }
    exports[u.name] = u.name;
  });
  let code = standalone(ajv, exports);
  const used = new Set<Helper>();
  code = code.replace(/require\("([^"]+)"\)\.default/g, (_m, module: string) => {
    const helper = RUNTIME_HELPERS[module];
    if (helper === undefined)
      throw new Error(`internal: validators for toolset ${ts.name} need ajv helper ${module}, which the runtime does not provide`);
    used.add(helper);
    return helper;
  });
  if (/\brequire\(/.test(code)) throw new Error(`internal: validators for toolset ${ts.name} still call require()`);
  if (/\bformats\b/.test(code.replace(/\bformats\d+\b/g, ""))) used.add("formats");
  code = code.replace(/^"use strict";\n?/, "");
  code = compactStandalone(code);
  let exported = 0;
  code = code.replace(/^export const (\w+) = /gm, (_m, name: string) => {
    exported++;
    return `export const ${name}: ValidateFunction = `;
  });
  if (exported !== Object.keys(exports).length)
    throw new Error(`internal: validators for toolset ${ts.name} export ${exported} functions, not ${Object.keys(exports).length}`);
  const aliasLines = aliases.map(([name, same]) => `export const ${name}: ValidateFunction = ${same};`).join("\n");
  return Object.freeze({
    code: `${code.trim()}\n${aliasLines === "" ? "" : `\n${aliasLines}\n`}`,
    helpers: Object.freeze([...used].sort()),
  });
}
