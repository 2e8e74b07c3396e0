/**
 * Validators plugin: prints `<toolset>/validators.gen.ts`, the ajv standalone module the resolver
 * compiled (`IrToolset.validators`). ajv's output is JavaScript that does not survive the strictest
 * TypeScript settings, so the file starts with `// @ts-nocheck` and each export carries a
 * `ValidateFunction` annotation: importers stay fully typed, and because it is a `.ts` file, plain
 * `tsc`, tsx and bundlers all compile or copy it with the rest of the app.
 */
import { fileHeader } from "../emit/generated-file.js";
import type { IrDesign } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";

/** The header lines after the common one: why type checking is off, and what the file is. */
const VALIDATORS_PREAMBLE =
  "// @ts-nocheck: ajv standalone output; the exports are typed as ValidateFunction below.\n" +
  "// Precompiled ajv validators (JSON Schema 2020-12); no schema is compiled at run time.\n";

/** An export line as ajv printed it (with the type annotation the resolver asked for). */
const EXPORT_LINE = /export const ([A-Za-z_$][\w$]*): ([A-Za-z_$][\w$]*) = /g;

/** Emits `<toolset>/validators.gen.ts`. */
export const validatorsPlugin: Plugin = {
  name: "validators",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const { code, helpers } = ts.validators;
      const f = out.file(`${ts.dirName}/validators.gen.ts`, `${fileHeader(ir.file, ts.name)}${VALIDATORS_PREAMBLE}`);
      const ValidateFunction = f.runtime("ValidateFunction");
      for (const helper of helpers) f.runtime(helper);
      // ajv printed the export lines; record each (names come from the IR) and check it is there.
      // One pass over the module: a search and copy of the whole text per export was quadratic.
      const found = new Set<string>();
      for (const m of code.matchAll(EXPORT_LINE)) if (m[2] === ValidateFunction) found.add(m[1] as string);
      const exported = new Map<string, string>();
      for (const tool of ts.tools) {
        for (const s of [tool.symbols.validatePayload, tool.symbols.validateResult]) {
          if (s === undefined) continue;
          if (!found.has(s.name)) throw new Error(`internal: ${ts} validators do not export ${s.name}`);
          exported.set(s.name, `${f.export("const", s.name)}: ${ValidateFunction} = `);
        }
      }
      // Each recorded export replaces the first line that declares it, as it was printed.
      const text = code.replace(EXPORT_LINE, (line, name: string, type: string) => {
        const replacement = type === ValidateFunction ? exported.get(name) : undefined;
        if (replacement === undefined) return line;
        exported.delete(name);
        return replacement;
      });
      f.print(text);
    }
  },
};
