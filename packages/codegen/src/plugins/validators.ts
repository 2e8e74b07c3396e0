/**
 * Validators plugin: `<toolset>/validators.gen.ts` holds ajv standalone code (JSON Schema 2020-12,
 * all errors) for every payload and result. ajv's output is JavaScript that does not survive the
 * strictest TypeScript settings, so the file starts with `// @ts-nocheck` and each export carries a
 * `ValidateFunction` annotation: importers stay fully typed, and because it is a `.ts` file, plain
 * `tsc`, tsx and bundlers all compile or copy it with the rest of the app. ajv's own run-time
 * helpers are rewritten to `@toolwright/runtime/codegen` symbols, so generated code never imports ajv.
 */
import { _ } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { fileHeader } from "../emit/generated-file.js";
import type { RuntimeSymbol } from "../emit/runtime-symbols.js";
import { DesignError } from "../errors.js";
import type { IrDesign, IrSchema, IrTool, IrToolset } from "../ir/ir.js";
import { createAjv } from "../resolve/schema.js";
import type { Plugin } from "./plugin.js";

// ajv's standalone module is CommonJS; under NodeNext its default import may be the module object.
type Standalone = (ajv: Ajv2020, refs: { readonly [name: string]: string }) => string;
const standalone = ((standaloneCode as unknown as { default?: unknown }).default ?? standaloneCode) as unknown as Standalone;

/** ajv run-time modules and the runtime symbols that replace them. */
const RUNTIME_HELPERS: { readonly [module: string]: RuntimeSymbol } = {
  "ajv/dist/runtime/ucs2length": "ucs2length",
  "ajv/dist/runtime/equal": "deepEqual",
};

/** The exported validator name for a tool's payload or result. */
export function validatorName(typeName: string, which: "Payload" | "Result"): string {
  return `validate${typeName}${which}`;
}

/** Generates the standalone validator module for one toolset. Throws if ajv needs an unknown helper. */
export function validatorSource(
  ts: IrToolset,
  file: string,
): { readonly code: string; readonly helpers: readonly RuntimeSymbol[]; readonly names: readonly string[] } {
  const ajv = createAjv({ source: true, esm: true, lines: true, formats: _`formats` });
  const exports: { [name: string]: string } = {};
  // Identical schemas (common for empty inputs) share one compiled function.
  const byShape = new Map<string, string>();
  const aliases: [string, string][] = [];
  const add = (tool: IrTool, schema: IrSchema, name: string, what: string) => {
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
    add(tool, tool.input, validatorName(tool.typeName, "Payload"), "input");
    if (tool.output) add(tool, tool.output, validatorName(tool.typeName, "Result"), "output");
  }
  let code = standalone(ajv, exports);
  const used = new Set<RuntimeSymbol>();
  code = code.replace(/require\("([^"]+)"\)\.default/g, (_m, module: string) => {
    const symbol = RUNTIME_HELPERS[module];
    if (symbol === undefined)
      throw new Error(`internal: validators for ${ts} need ajv helper ${module}, which the runtime does not provide`);
    used.add(symbol);
    return symbol;
  });
  if (/\brequire\(/.test(code)) throw new Error(`internal: validators for ${ts} still call require()`);
  if (/\bformats\b/.test(code.replace(/\bformats\d+\b/g, ""))) used.add("formats");
  code = code.replace(/^"use strict";\n?/, "");
  let exported = 0;
  code = code.replace(/^export const (\w+) = /gm, (_m, name: string) => {
    exported++;
    return `export const ${name}: ValidateFunction = `;
  });
  if (exported !== Object.keys(exports).length)
    throw new Error(`internal: validators for ${ts} export ${exported} functions, not ${Object.keys(exports).length}`);
  const aliasLines = aliases.map(([name, same]) => `export const ${name}: ValidateFunction = ${same};`).join("\n");
  const names = [...Object.keys(exports), ...aliases.map(([name]) => name)];
  return { code: `${code.trim()}\n${aliasLines === "" ? "" : `\n${aliasLines}\n`}`, helpers: [...used].sort(), names };
}

/** The header lines after the common one: why type checking is off, and what the file is. */
const VALIDATORS_PREAMBLE =
  "// @ts-nocheck: ajv standalone output; the exports are typed as ValidateFunction below.\n" +
  "// Precompiled ajv validators (JSON Schema 2020-12); no schema is compiled at run time.\n";

/** Emits `<toolset>/validators.gen.ts`. */
export const validatorsPlugin: Plugin = {
  name: "validators",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const { code, helpers } = validatorSource(ts, ir.file);
      const f = out.file(`${ts.dirName}/validators.gen.ts`, `${fileHeader(ir.file, ts.name)}${VALIDATORS_PREAMBLE}`);
      f.runtime("ValidateFunction");
      for (const helper of helpers) f.runtime(helper);
      f.print(code);
    }
  },
};
