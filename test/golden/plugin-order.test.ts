/**
 * Plugins do not depend on run order: index files are printed last, from the exports every file
 * recorded (`GeneratedFile.export`), so generating every golden case with the plugins reversed
 * gives the same files byte for byte.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultPlugins, generate, resolveDesign } from "@toolwright/codegen";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const goldenDir = join(repo, "test", "golden");
const cases = readdirSync(goldenDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(goldenDir, e.name, "design.ts")))
  .map((e) => e.name)
  .sort();

describe("plugin order", () => {
  it.each(cases)("%s: reversed plugins print the same files", async (name) => {
    const designPath = join(goldenDir, name, "design.ts");
    const mod = (await import(designPath)) as { default: Parameters<typeof resolveDesign>[0] };
    const ir = resolveDesign(mod.default, { file: relative(repo, designPath).split(sep).join("/"), designPath });
    const forward = await generate(ir, defaultPlugins);
    const reversed = await generate(ir, [...defaultPlugins].reverse());
    expect([...reversed.keys()]).toEqual([...forward.keys()]);
    expect([...forward.keys()].filter((p) => p.endsWith("index.ts")).length).toBeGreaterThan(0);
    for (const [path, text] of forward) expect(reversed.get(path), path).toBe(text);
  });
});
