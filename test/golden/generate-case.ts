/**
 * Generates a golden case (or an example) in memory the way `toolwright gen` does, with the
 * case's options.json (today: `providers`, as `gen --providers` does). Shared by the golden tests
 * and the type-checks of generated code.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { certifyProviders, generate, resolveDesign } from "@toolwright/codegen";

/** The repository root. */
export const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** test/golden. */
export const GOLDEN_DIR = join(REPO, "test", "golden");

/** The golden case names: the folders under test/golden that hold a design.ts, sorted. */
export const GOLDEN_CASES: readonly string[] = readdirSync(GOLDEN_DIR, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(GOLDEN_DIR, e.name, "design.ts")))
  .map((e) => e.name)
  .sort();

/** Every file `gen` writes for the design at `designPath` (path under --out → text). */
export async function generateFrom(designPath: string): Promise<Map<string, string>> {
  const mod = (await import(designPath)) as { default: Parameters<typeof resolveDesign>[0] };
  const label = relative(REPO, designPath).split(sep).join("/");
  const ir = resolveDesign(mod.default, { file: label, designPath });
  const optionsPath = join(designPath, "..", "options.json");
  const options = existsSync(optionsPath)
    ? (JSON.parse(readFileSync(optionsPath, "utf8")) as { providers?: ("openai" | "anthropic" | "gemini")[] })
    : {};
  if (options.providers) certifyProviders(ir, options.providers);
  return generate(options.providers ? { ...ir, providers: options.providers } : ir);
}
