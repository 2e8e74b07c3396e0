/**
 * `generate`: runs the plugins over a resolved design and returns the files, in memory. Nothing is
 * written here; see `write.ts`.
 */
import { createOutput } from "./emit/generated-file.js";
import type { IrDesign } from "./ir/ir.js";
import { agentsPlugin } from "./plugins/agents.js";
import { callerPlugin } from "./plugins/caller.js";
import { clientPlugin, registerPlugin } from "./plugins/client.js";
import { codeModePlugin } from "./plugins/code-mode.js";
import { indexPlugin } from "./plugins/index-file.js";
import { mockPlugin } from "./plugins/mock.js";
import type { Plugin } from "./plugins/plugin.js";
import { serverScaffoldPlugin } from "./plugins/server-scaffold.js";
import { specsPlugin } from "./plugins/specs.js";
import { typesPlugin } from "./plugins/types.js";
import { validatorsPlugin } from "./plugins/validators.js";

/** The built-in plugins. Any order works: index files are printed last, from the exports each file recorded. */
export const defaultPlugins: readonly Plugin[] = [
  typesPlugin,
  validatorsPlugin,
  specsPlugin,
  clientPlugin,
  registerPlugin,
  callerPlugin,
  agentsPlugin,
  indexPlugin,
  serverScaffoldPlugin,
  codeModePlugin,
  mockPlugin,
];

/** Generates every file for `ir`. Returns path (relative to `--out`, `/`-separated) → text, sorted. */
export async function generate(ir: IrDesign, plugins: readonly Plugin[] = defaultPlugins): Promise<Map<string, string>> {
  const out = createOutput();
  for (const plugin of plugins) await plugin.emit(ir, out);
  return out.files();
}
