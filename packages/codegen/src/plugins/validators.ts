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
      let text = code;
      for (const tool of ts.tools) {
        for (const s of [tool.symbols.validatePayload, tool.symbols.validateResult]) {
          if (s === undefined) continue;
          const line = `export const ${s.name}: ${ValidateFunction} = `;
          if (!text.includes(line)) throw new Error(`internal: ${ts} validators do not export ${s.name}`);
          text = text.replace(line, `${f.export("const", s.name)}: ${ValidateFunction} = `);
        }
      }
      f.print(text);
    }
  },
};
