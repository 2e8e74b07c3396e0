/**
 * A design for `test/support/mutable-server.mjs`: one externalServer "mutable" whose catalogue is
 * read from `catalogueFile` at each start, and one toolset over it. Used by the rug-pull and report tests.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The server script. */
export const MUTABLE_SERVER = join(dirname(fileURLToPath(import.meta.url)), "mutable-server.mjs");

/** Writes `design` (a .ts path) for the mutable server reading `catalogueFile`. */
export function writeMutableDesign(design: string, catalogueFile: string): void {
  writeFileSync(
    design,
    [
      'import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";',
      `export const mutable = externalServer("mutable", { command: "node", args: [${JSON.stringify(MUTABLE_SERVER)}, ${JSON.stringify(catalogueFile)}] });`,
      'export default design({ toolsets: [toolset("mutable", fromMCP(mutable))] });',
      "",
    ].join("\n"),
  );
}
