/**
 * The runtime's public surface stays small and wired: the root entry holds about 40
 * application-level names (`scripts/count-exports.mjs` counts them from the entry files), and
 * every entry in the package's `exports` is known to the dependency rules and the test aliases, so
 * a new entry cannot be published half-wired.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const runtime = join(repo, "packages", "runtime");
const manifest = JSON.parse(readFileSync(join(runtime, "package.json"), "utf8")) as {
  exports: { readonly [subpath: string]: string | { readonly types: string; readonly default: string } };
};
const modules = Object.entries(manifest.exports).filter(([, t]) => typeof t !== "string");
const counted = JSON.parse(
  execFileSync(process.execPath, [join(repo, "scripts", "count-exports.mjs"), "--json"], { encoding: "utf8" }),
) as {
  entries: { readonly entry: string; readonly total: number }[];
};

describe("public surface", () => {
  it("the root entry keeps only application-level names (about 40)", () => {
    const root = counted.entries.find((e) => e.entry === ".");
    expect(root?.total).toBeGreaterThan(20);
    expect(root?.total).toBeLessThanOrEqual(45);
    const source = readFileSync(join(runtime, "src", "index.ts"), "utf8");
    // Wire-level and tooling names live in /protocol and /catalogue, OAuth in /auth.
    for (const name of [
      "mapTransportCode",
      "editDistance",
      "sha256Hex",
      "JWT_BEARER_GRANT",
      "createOAuthProvider",
      "RpcRequest",
      "Outcome",
    ])
      expect(source).not.toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("every module entry is counted, is an entry to the dependency rules, and has a test alias", () => {
    expect(counted.entries.map((e) => e.entry)).toEqual(modules.map(([subpath]) => subpath));
    const require = createRequire(import.meta.url);
    const rules = require(join(repo, ".dependency-cruiser.cjs")) as { forbidden: { name: string; from: { pathNot?: unknown } }[] };
    const entryRule = rules.forbidden.find((r) => r.name === "runtime-entries-are-imported-only-by-entries");
    const entries = new RegExp(String(entryRule?.from.pathNot));
    const vitest = readFileSync(join(repo, "vitest.config.ts"), "utf8");
    for (const [subpath, target] of modules) {
      const file = `packages/runtime/src/${(target as { default: string }).default.replace("./dist/", "").replace(/\.js$/, ".ts")}`;
      expect(file, subpath).toMatch(entries);
      const alias = subpath === "." ? "^@toolwright\\/runtime$" : `^@toolwright\\/runtime\\/${subpath.slice(2)}$`;
      expect(vitest, `vitest alias for ${subpath}`).toContain(`find: /${alias}/`);
    }
  });
});
