/**
 * Index plugin: `<toolset>/index.ts` re-exports every public name of the toolset's modules by
 * name (no `export *`), type-only where the name is a type.
 */
import { fileHeader } from "../emit/generated-file.js";
import type { IrDesign } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";

/** Modules re-exported from a toolset's index, in print order. */
export const TOOLSET_MODULES = ["types", "specs", "client", "requests", "register", "caller"] as const;

/** Exported names of a printed module, split into types and values. */
export function exportedNames(text: string): { readonly types: string[]; readonly values: string[] } {
  const types: string[] = [];
  const values: string[] = [];
  for (const m of text.matchAll(/^export (?:declare )?(interface|type|const|function|class|enum) ([A-Za-z_$][\w$]*)/gm)) {
    (m[1] === "interface" || m[1] === "type" ? types : values).push(m[2]!);
  }
  return { types, values };
}

/** Emits `<toolset>/index.ts`. */
export const indexPlugin: Plugin = {
  name: "index",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const f = out.file(`${ts.dirName}/index.ts`, fileHeader(ir.file, ts.name));
      for (const module of TOOLSET_MODULES) {
        const text = out.text(`${ts.dirName}/${module}.gen.ts`);
        if (text === undefined) continue;
        const { types, values } = exportedNames(text);
        const from = JSON.stringify(`./${module}.gen.js`);
        if (types.length > 0) f.print(`export type { ${types.sort().join(", ")} } from ${from};`);
        if (values.length > 0) f.print(`export { ${values.sort().join(", ")} } from ${from};`);
      }
    }
  },
};
