/**
 * Compiles a toolset's validators once, here in the resolver: ajv standalone code (JSON Schema
 * 2020-12, all errors) for every payload and result. A schema ajv cannot compile is a design error
 * naming the tool, so the validators plugin only prints what this returns and never validates.
 * ajv's own run-time helpers are rewritten to runtime symbols, so generated code never imports ajv.
 */
import { _ } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { DesignError } from "../errors.js";
import type { IrSchema, IrSymbol, IrTool, IrToolset, IrValidators } from "../ir/ir.js";
import { createAjv } from "./schema.js";

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
  const ajv = createAjv({ source: true, esm: true, lines: true, formats: _`formats` });
  const exports: { [name: string]: string } = {};
  // Identical schemas (common for empty inputs) share one compiled function.
  const byShape = new Map<string, string>();
  const aliases: [string, string][] = [];
  const add = (tool: IrTool, schema: IrSchema, { name }: IrSymbol, what: string) => {
    const shape = JSON.stringify(schema.json);
    const same = byShape.get(shape);
    if (same !== undefined) {
      aliases.push([name, same]);
      return;
    }
    byShape.set(shape, name);
    try {
      ajv.addSchema(schema.json as object, name);
      ajv.getSchema(name);
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new DesignError({ file, toolset: ts.name, tool: tool.name }, `${what} schema: invalid schema: ${problem}`);
    }
    exports[name] = name;
  };
  for (const tool of ts.tools) {
    add(tool, tool.input, tool.symbols.validatePayload, "input");
    if (tool.output && tool.symbols.validateResult) add(tool, tool.output, tool.symbols.validateResult, "output");
  }
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
