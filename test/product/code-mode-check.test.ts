/**
 * Code mode's generated API and type check as a user gets them (issue 27, items 1 and 2): the
 * packed tarballs are installed into a fresh project outside the repository, the installed
 * `toolwright gen` prints `code-mode.gen.ts` from the real servers' locks (examples/catalogues),
 * and the user's own script checks a model's programs with the installed `@toolwright/code-mode`
 * (its TypeScript 6 dependency resolved by npm, not the repository's).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_FLAGS, type PackedPackage, packWorkspaces, REPO, run } from "./support.js";

const rootPkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { devDependencies: { [name: string]: string } };

let root: string;
let app: string;

const DESIGN = `import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";
const filesystem = externalServer("filesystem", { command: "node", args: ["server-filesystem.js", "."] });
const memory = externalServer("memory", { command: "node", args: ["server-memory.js"] });
export default design({ toolsets: [toolset("filesystem", fromMCP(filesystem)), toolset("memory", fromMCP(memory))] });
`;

const SCRIPT = `import { createTypeChecker } from "@toolwright/code-mode";
import { filesystemCodeMode } from "./gen/filesystem/code-mode.gen.js";
import { memoryCodeMode } from "./gen/memory/code-mode.gen.js";

const checker = createTypeChecker([filesystemCodeMode, memoryCodeMode]);
const good = checker.check('const g = await memory.readGraph();\\nconst names: string[] = g.entities.map((e) => e.name);\\nreturn names;');
const bad = checker.check('const g = await memory.readGraph();\\nawait filesystem.readTextFile({ path: g.nodes });');
console.log(JSON.stringify({ good, bad, index: memoryCodeMode.index.length, tokens: memoryCodeMode.tokens }));
checker.dispose();
`;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "toolwright-code-mode-"));
  app = join(root, "app");
  const packed: readonly PackedPackage[] = await packWorkspaces(root);
  const tarball = (name: string) => join(root, packed.find((p) => p.name === name)!.filename);
  cpSync(join(REPO, "examples", "catalogues", "design.lock.json"), join(app, "design.lock.json"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "code-mode-app", private: true, type: "module" }));
  writeFileSync(join(app, "design.ts"), DESIGN);
  const install = await run(
    "npm",
    [
      "install",
      ...["@toolwright/dsl", "@toolwright/runtime", "@toolwright/codegen", "@toolwright/code-mode"].map(tarball),
      `tsx@${rootPkg.devDependencies.tsx}`,
      ...NPM_FLAGS,
    ],
    app,
    600_000,
  );
  expect(install.code, install.stderr).toBe(0);
}, 900_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("installed code mode", { timeout: 600_000 }, () => {
  it("gen prints code-mode.gen.ts, and the user's script checks programs against it", async () => {
    const gen = await run("npx", ["--no-install", "toolwright", "gen", "design.ts", "--out", "src/gen"], app, 300_000);
    expect(gen.code, gen.stderr).toBe(0);
    expect(readFileSync(join(app, "src", "gen", "memory", "code-mode.gen.ts"), "utf8")).toMatch(
      /^export const memoryCodeMode: CodeModeApiData = \{$/m,
    );
    writeFileSync(join(app, "src", "check.ts"), SCRIPT);
    const r = await run("npx", ["--no-install", "tsx", "src/check.ts"], app, 300_000);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      good: { ok: boolean; js?: string };
      bad: {
        ok: boolean;
        failure?: { kind: string; recovery: { action: string }; diagnostics: { line: number; column: number; code: number }[] };
      };
      index: number;
      tokens: number;
    };
    expect(out.good.ok).toBe(true);
    expect(out.good.js).toContain("return names;");
    expect(out.good.js).not.toContain(": string[]");
    expect(out.bad.ok).toBe(false);
    expect(out.bad.failure).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call" } });
    expect(out.bad.failure!.diagnostics).toEqual([expect.objectContaining({ line: 2, column: 41, code: 2339 })]);
    expect(out.index).toBe(9);
    expect(out.tokens).toBeGreaterThan(500);
  });
});
