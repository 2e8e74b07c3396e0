/**
 * Validators plugin: `<toolset>/validators.gen.js` holds ajv standalone code (JSON Schema
 * 2020-12, all errors) for every payload and result; `validators.gen.d.ts` types it. The code is
 * JavaScript because ajv's output does not survive the strictest TypeScript settings; the
 * declaration file keeps every importer fully typed. ajv's own run-time helpers are rewritten to
 * `@toolwright/runtime/codegen` symbols, so generated code never imports ajv.
 */
import { _ } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import { fileHeader } from "../emit/generated-file.js";
import { RUNTIME_CODEGEN, type RuntimeSymbol } from "../emit/runtime-symbols.js";
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
export function validatorSource(ts: IrToolset, file: string): { readonly js: string; readonly names: readonly string[] } {
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
  const used = new Set<string>();
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
  const imports = used.size > 0 ? `import { ${[...used].sort().join(", ")} } from ${JSON.stringify(RUNTIME_CODEGEN)};\n\n` : "";
  const aliasLines = aliases.map(([name, same]) => `export const ${name} = ${same};`).join("\n");
  const names = [...Object.keys(exports), ...aliases.map(([name]) => name)];
  return { js: `${imports}${code.trim()}\n${aliasLines === "" ? "" : `\n${aliasLines}\n`}`, names };
}

/** Emits `<toolset>/validators.gen.js` and its declaration file. */
export const validatorsPlugin: Plugin = {
  name: "validators",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const { js, names } = validatorSource(ts, ir.file);
      const header = fileHeader(ir.file, ts.name);
      out.raw(
        `${ts.dirName}/validators.gen.js`,
        `${header}// Precompiled ajv validators (JSON Schema 2020-12); no schema is compiled at run time.\n\n${js}`,
      );
      const dts = out.file(`${ts.dirName}/validators.gen.d.ts`, header);
      const ValidateFunction = dts.runtime("ValidateFunction");
      for (const name of names) {
        dts.print(
          `/** Precompiled validator; errors are read by \`createDecoder\`. */`,
          `export declare const ${name}: ${ValidateFunction};`,
        );
      }
    }
  },
};
