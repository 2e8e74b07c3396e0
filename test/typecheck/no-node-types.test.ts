/**
 * The code `toolwright gen` writes needs no ambient Node types: every golden design (toolsets,
 * callers for stdio and HTTP servers, clients, validators, specs, agents, server scaffolds) and a
 * design with a `${VAR}` reference in every connection field a caller expands is generated fresh,
 * then type-checked in a folder outside the repository, with `"types": []` (what `tsc --init` of
 * TypeScript 5.9+ writes), no `@types/node` anywhere it can be found, and only the ES2022 lib (no
 * DOM either). Whatever the generated code needs from Node (the environment, the command line) it
 * gets from a runtime function. A control file that reads `process.env` must fail the same check,
 * so the check cannot pass for want of Node types in the wrong place.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { generate, resolveDesign } from "@toolwright/codegen";
import { design, externalServer, fromExternalMCP, object, string, toolset } from "@toolwright/dsl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOLDEN_CASES, GOLDEN_DIR, generateFrom, REPO } from "../golden/generate-case.js";
import { copyPackage } from "../product/support.js";

const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
let tmp: string;

function write(files: ReadonlyMap<string, string>, under: string): void {
  for (const [path, text] of files) {
    const file = join(tmp, under, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/** Inline servers with a reference in each field a generated caller expands at run time. */
const everyReference = design({
  toolsets: [
    toolset("refs-stdio", fromExternalMCP("refs-stdio"), (t) => {
      t.tool("ping", { input: object({ q: string() }) });
    }),
    toolset("refs-http", fromExternalMCP("refs-http"), (t) => {
      t.tool("ping", { input: object({}) });
    }),
  ],
  servers: [
    externalServer("refs-stdio", {
      command: "${TW_BIN:-node}",
      args: ["${TW_SCRIPT}", "--level=${TW_LEVEL:-1}"],
      cwd: "${TW_DIR}",
      env: ["TW_TOKEN", "TW_LITERAL=x"],
    }),
    externalServer("refs-http", { url: "https://example.com/${TW_PATH:-mcp}", headers: { Authorization: "Bearer ${TW_KEY}" } }),
  ],
});

beforeAll(async () => {
  // Generated code imports @toolwright/runtime through its package exports, i.e. dist/*.d.ts.
  const build = spawnSync(process.execPath, [tsc, "-b", "packages/dsl", "packages/runtime"], { cwd: REPO, encoding: "utf8" });
  expect(build.status, build.stdout + build.stderr).toBe(0);
  tmp = mkdtempSync(join(tmpdir(), "tw-no-node-"));
  copyPackage("runtime", join(tmp, "node_modules"));
  writeFileSync(join(tmp, "package.json"), JSON.stringify({ name: "no-node-types", private: true, type: "module" }));
  for (const name of GOLDEN_CASES) write(await generateFrom(join(GOLDEN_DIR, name, "design.ts")), join("gen", name));
  const refs = resolveDesign(everyReference, { file: "refs/design.ts", designPath: join(tmp, "refs", "design.ts") });
  write(await generate(refs), join("gen", "every-reference"));
  writeFileSync(join(tmp, "control.ts"), 'export const home: string | undefined = process.env["HOME"];\n');
  writeFileSync(
    join(tmp, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        isolatedModules: true,
        noEmit: true,
        // As `tsc --init` sets: the runtime's Node-only entries (/stdio, /server) are typed with Node
        // types the consumer may not have; what is checked here is the generated code itself.
        skipLibCheck: true,
      },
      include: ["gen/**/*.ts", "control.ts"],
    }),
  );
}, 180_000);

afterAll(() => {
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
});

describe("generated code without Node types", () => {
  it("every golden design and every caller expansion type-check with types: [] and lib ES2022; only the control fails", () => {
    for (const dir of ["mcp-json-server/memory/caller.gen.ts", "mcp-server-scaffold/servers", "every-reference/refs-stdio/caller.gen.ts"])
      expect(existsSync(join(tmp, "gen", dir)), dir).toBe(true);
    expect(existsSync(join(tmp, "node_modules", "@types"))).toBe(false);
    const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: tmp, encoding: "utf8", timeout: 170_000 });
    const errors = `${r.stdout}${r.stderr}`.split("\n").filter((l) => /error TS\d+/.test(l));
    expect(errors.filter((l) => !l.startsWith("control.ts"))).toEqual([]);
    expect(errors.join("\n")).toMatch(/^control\.ts\(1,\d+\): error TS2591: Cannot find name 'process'/);
  }, 180_000);
});
