/**
 * The runtime's public surface stays small, wired, and says where things live (issue 26): the root
 * entry holds at most 40 names, split "for applications" / "for other libraries"; each entry is the
 * face of one folder (scripts/runtime-floors.cjs) and re-exports that folder and lower floors only;
 * `/protocol` holds only `protocol/`; a name has one home, except where a table of symbols that
 * generated code imports (`RUNTIME_SYMBOLS`, `SERVER_SYMBOLS`, `EXPAND_ENV_FROM`) sends generated
 * code to a second entry. Every entry in the package's `exports` is known to the dependency rules
 * and the test aliases, so a new entry cannot be published half-wired. `scripts/count-exports.mjs`
 * counts the names from the entry files.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EXPAND_ENV_FROM, RUNTIME_SYMBOLS, SERVER_SYMBOLS } from "@toolwright/runtime/codegen";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const runtime = join(repo, "packages", "runtime");
const require = createRequire(import.meta.url);
const manifest = JSON.parse(readFileSync(join(runtime, "package.json"), "utf8")) as {
  exports: { readonly [subpath: string]: string | { readonly types: string; readonly default: string } };
};
const modules = Object.entries(manifest.exports).filter(([, t]) => typeof t !== "string");
const counted = JSON.parse(
  execFileSync(process.execPath, [join(repo, "scripts", "count-exports.mjs"), "--json"], { encoding: "utf8" }),
) as {
  entries: { readonly entry: string; readonly total: number; readonly from: { readonly [name: string]: string } }[];
  repeated: { readonly name: string; readonly entries: readonly string[] }[];
};
const floors = require(join(repo, "scripts", "runtime-floors.cjs")) as {
  ENTRY_HOME: { readonly [entry: string]: string };
  roomOf(folder: string): string;
  floorOf(folder: string): number | undefined;
};
const entryFile = (subpath: string) => (subpath === "." ? "index" : subpath.slice(2));
const spec = (subpath: string) => (subpath === "." ? "@toolwright/runtime" : `@toolwright/runtime/${subpath.slice(2)}`);

/** subpath → the names generated code imports from it, by the runtime's own tables. */
const tabled = new Map<string, Set<string>>();
for (const table of [RUNTIME_SYMBOLS, SERVER_SYMBOLS] as { readonly [name: string]: { readonly from: string } }[])
  for (const [name, { from }] of Object.entries(table)) tabled.set(from, new Set([...(tabled.get(from) ?? []), name]));
for (const from of Object.values(EXPAND_ENV_FROM)) tabled.set(from, new Set([...(tabled.get(from) ?? []), "expandProcessEnv"]));

describe("public surface", () => {
  it("the root entry keeps at most 40 names, for applications first, then for other libraries", () => {
    const root = counted.entries.find((e) => e.entry === ".");
    expect(root?.total).toBeGreaterThan(20);
    expect(root?.total).toBeLessThanOrEqual(40);
    const source = readFileSync(join(runtime, "src", "index.ts"), "utf8");
    const apps = source.indexOf("// ── For applications");
    const libs = source.indexOf("// ── For other libraries");
    expect(apps).toBeGreaterThan(0);
    expect(libs).toBeGreaterThan(apps);
    // Wire-level and tooling names live in /caller, /protocol and /catalogue, OAuth in /auth.
    for (const name of [
      "mapTransportCode",
      "editDistance",
      "sha256Hex",
      "JWT_BEARER_GRANT",
      "createOAuthProvider",
      "RpcRequest",
      "Outcome",
      "SessionCaller",
    ])
      expect(source).not.toMatch(new RegExp(`\\b${name}\\b`));
  });

  it("each entry re-exports its own folder and lower floors only; /protocol holds only protocol/", () => {
    for (const { entry, from } of counted.entries) {
      const home = floors.ENTRY_HOME[entryFile(entry)];
      expect(home, `${entry} has a home folder in scripts/runtime-floors.cjs`).toBeDefined();
      const top = floors.floorOf(home as string) as number;
      for (const [name, file] of Object.entries(from)) {
        if (file === ".") continue; // declared by the entry itself
        const folder = /^\.\/([^/]+)\//.exec(file)?.[1] ?? "";
        const floor = floors.floorOf(folder);
        expect(floor, `${entry} exports ${name} from ${file}, a folder on no floor`).toBeDefined();
        expect(
          floors.roomOf(folder) === home || (floor as number) < top,
          `${entry} (face of ${home}/) exports ${name} from ${folder}/`,
        ).toBe(true);
      }
    }
    const protocol = counted.entries.find((e) => e.entry === "./protocol");
    const inProtocol = (file: string) => floors.roomOf(/^\.\/([^/]+)\//.exec(file)?.[1] ?? "") === "protocol";
    expect(Object.values(protocol?.from ?? {}).filter((file) => !inProtocol(file))).toEqual([]);
    expect(protocol?.total).toBeGreaterThan(20);
  });

  it("every public name has one home, except where a generated-code table sends generated code to a second entry", () => {
    for (const { name, entries } of counted.repeated) {
      const untabled = entries.filter((entry) => !tabled.get(spec(entry))?.has(name));
      expect(untabled.length, `${name} is exported from ${entries.join(", ")}`).toBeLessThanOrEqual(1);
    }
    const tableSize = new Set([...tabled.values()].flatMap((names) => [...names])).size;
    expect(counted.repeated.length).toBeLessThanOrEqual(tableSize);
  });

  it("every module entry is counted, is an entry to the dependency rules, and has a test alias", () => {
    expect(counted.entries.map((e) => e.entry)).toEqual(modules.map(([subpath]) => subpath));
    const rules = require(join(repo, ".dependency-cruiser.cjs")) as { forbidden: { name: string; from: { pathNot?: unknown } }[] };
    const entryRule = rules.forbidden.find((r) => r.name === "runtime-entries-are-imported-only-by-entries");
    const entries = new RegExp(String(entryRule?.from.pathNot));
    const vitest = readFileSync(join(repo, "vitest.config.ts"), "utf8");
    for (const [subpath, target] of modules) {
      const file = `packages/runtime/src/${(target as { default: string }).default.replace("./dist/", "").replace(/\.js$/, ".ts")}`;
      expect(file, subpath).toMatch(entries);
      expect(Object.keys(floors.ENTRY_HOME), subpath).toContain(entryFile(subpath));
      const alias = subpath === "." ? "^@toolwright\\/runtime$" : `^@toolwright\\/runtime\\/${subpath.slice(2)}$`;
      expect(vitest, `vitest alias for ${subpath}`).toContain(`find: /${alias}/`);
    }
  });
});
