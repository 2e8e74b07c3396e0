/**
 * Index plugin: `<toolset>/index.ts` re-exports every export the toolset's modules record, by name
 * (no `export *`), type-only where the name is a type. The index is printed after every plugin ran,
 * so this plugin does not depend on run order.
 */
import { fileHeader } from "../emit/generated-file.js";
import type { IrDesign } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";

/** Modules re-exported from a toolset's index, in print order. */
export const TOOLSET_MODULES = ["types", "specs", "client", "requests", "register", "caller"] as const;

/** Emits `<toolset>/index.ts`. */
export const indexPlugin: Plugin = {
  name: "index",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const modules = TOOLSET_MODULES.map((module) => `${ts.dirName}/${module}.gen.ts`);
      out.reexports(`${ts.dirName}/index.ts`, fileHeader(ir.file, ts.name), modules);
    }
  },
};
