/**
 * Generated names never collide with tool names (issue 25, item 10). Over arbitrary toolset names
 * and tool names (many spelled like the generated helpers: `find_<toolset>`, `<toolset>_specs`,
 * `create_<toolset>_client`, ...), every tool keeps the identifiers its own name maps to (no `_`
 * or hash because of a helper), no toolset-level helper ends like a tool-derived name, no module or
 * index exports one name twice, and a sample of the generated code compiles under strict tsc.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { design, fromExternalMCP, nameProblem, object, string, toolset } from "@toolwright/dsl";
import fc from "fast-check";
import { ts } from "ts-morph";
import { afterAll, describe, expect, it } from "vitest";
import { camelName, memberName, pascalName } from "../../packages/codegen/src/emit/names.js";
import { TOOL_NAME_SUFFIXES } from "../../packages/codegen/src/emit/toolset-names.js";
import { generate } from "../../packages/codegen/src/generate.js";
import { resolveDesign } from "../../packages/codegen/src/resolve/resolve.js";
import { parseTs } from "../support/hostile-text.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const root = join(repo, ".tmp", `generated-names-${process.pid}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const plainName = (n: string) => n.trim() !== "" && nameProblem(n) === undefined;

const toolsetName = fc.oneof(
  fc.constantFrom("memory", "x", "my.weird-tools", "3d", "then", "find", "spec", "Memory Tools", "검색"),
  fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_.-]{0,12}$/),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).filter(plainName),
);

/** Words the toolset-level helpers are made of, around the toolset's own name. */
const PREFIXES = ["find", "create", "register", "check", "validate", "get", "read", "serve", ""] as const;
const SUFFIXES = [
  "spec",
  "specs",
  "spec_map",
  "spec_by_name",
  "client",
  "toolset",
  "requests",
  "catalogue",
  "toolset_name",
  "drift",
] as const;
const MORE_SUFFIXES = ["tool_request", "payload", "result", "caller", "prompt", "prompt_args", "params", "server", ""] as const;

function toolNames(ts: string): fc.Arbitrary<string[]> {
  const helperLike = fc
    .tuple(fc.constantFrom(...PREFIXES), fc.constantFrom(...SUFFIXES, ...MORE_SUFFIXES), fc.constantFrom("_", "-", ".", " "))
    .map(([p, s, sep]) => [p, ts, s].filter((w) => w !== "").join(sep));
  const any = fc.oneof(
    fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,10}$/),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 }).filter(plainName),
  );
  // One identifier per tool: two tools that sanitize alike are a (different) design error.
  return fc
    .uniqueArray(fc.oneof({ weight: 3, arbitrary: helperLike }, { weight: 1, arbitrary: any }), {
      minLength: 1,
      maxLength: 8,
      selector: (n) => camelName(n),
    })
    .filter(
      (names) =>
        new Set(names.map(pascalName)).size === names.length && new Set(names.map((n) => memberName(camelName(n)))).size === names.length,
    );
}

const sample = toolsetName.chain((ts) => toolNames(ts).map((tools) => ({ ts, tools })));

function designOf({ ts: name, tools }: { ts: string; tools: readonly string[] }) {
  return design({
    toolsets: [
      toolset(name, fromExternalMCP("server"), (t) => {
        for (const tool of tools) t.tool(tool, { input: object({ q: string() }), output: object({ ok: string() }) });
      }),
    ],
  });
}

/** Every name a module exports (declarations and re-exports). */
function exportedNames(text: string): string[] {
  const { file } = parseTs(text);
  const names: string[] = [];
  for (const st of file.statements) {
    const exported = ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause))
      for (const e of st.exportClause.elements) names.push(e.name.text);
    else if (exported && ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) names.push(d.name.getText(file));
    else if (exported && (ts.isFunctionDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && st.name)
      names.push(st.name.text);
  }
  return names;
}

describe("no tool name reaches a generated helper", () => {
  it("every tool keeps the identifiers its own name maps to; helpers never end like a tool-derived name", () => {
    fc.assert(
      fc.property(sample, (s) => {
        const ir = resolveDesign(designOf(s), { file: "design.ts" });
        const set = ir.toolsets[0]!;
        for (const helper of Object.values(set.symbols))
          for (const suffix of TOOL_NAME_SUFFIXES) expect(helper.name.endsWith(suffix), helper.name).toBe(false);
        for (const tool of set.tools) {
          const camel = camelName(tool.name);
          const pascal = pascalName(tool.name);
          expect(tool.localName).toBe(camel);
          expect(tool.memberName).toBe(memberName(camel));
          expect(tool.typeName).toBe(pascal);
          expect(tool.symbols.spec.name).toBe(`${camel}Spec`);
          expect(tool.symbols.payload.name).toBe(`${pascal}Payload`);
          expect(tool.symbols.result.name).toBe(`${pascal}Result`);
          expect(tool.symbols.validatePayload.name).toBe(`validate${pascal}Payload`);
        }
      }),
      { numRuns: 200 },
    );
  }, 300_000);

  it("no generated module or index exports a name twice", async () => {
    await fc.assert(
      fc.asyncProperty(sample, async (s) => {
        const files = await generate(resolveDesign(designOf(s), { file: "design.ts" }));
        for (const [path, text] of files) {
          const names = exportedNames(text);
          expect(names.length, path).toBe(new Set(names).size);
        }
      }),
      { numRuns: 40 },
    );
  }, 300_000);

  it("a sample of the generated code compiles under strict tsc", async () => {
    const designs = fc.sample(sample, { numRuns: 6, seed: 25 });
    // The name the issue reported, in a toolset of its own.
    designs.push({ ts: "memory", tools: ["find_memory", "find_memory_spec_by_name", "memory_specs", "create_memory_client"] });
    for (const [i, s] of designs.entries()) {
      const files = await generate(resolveDesign(designOf(s), { file: `design-${i}.ts` }));
      for (const [path, text] of files) {
        const full = join(root, `d${i}`, path);
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, text);
      }
    }
    writeFileSync(
      join(root, "tsconfig.json"),
      JSON.stringify({ extends: "../../test/typecheck/tsconfig.strict.json", include: ["**/*.ts"] }),
    );
    const check = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "tsconfig.json"], {
      cwd: root,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(check.stdout + check.stderr).toBe("");
    expect(check.status).toBe(0);
    const last = await generate(resolveDesign(designOf(designs.at(-1)!), { file: "design.ts" }));
    const index = exportedNames(last.get("memory/index.ts")!);
    expect(index).toEqual(
      expect.arrayContaining(["findMemorySpec", "findMemorySpecByName", "findMemorySpecByNameSpec", "memorySpecsSpec", "memorySpecs"]),
    );
  }, 300_000);
});
