/**
 * Every TypeScript sample in docs/ and the README compiles against the BUILT packages, as a user's
 * code would (module resolution through node_modules to each package's dist and its exports map,
 * not the vitest aliases to sources). Each page is one project folder under .tmp/docs-samples/:
 * a block written ```ts [file.ts] becomes that file, any other ```ts block `sample-<n>.ts`. Samples
 * import generated code from `./src/gen/<toolset>/index.js`: the committed generation of the real
 * memory, filesystem and everything servers (examples/catalogues/src/gen), or, on a page marked
 * `<!-- samples: gen design.ts -->`, what `toolwright gen` makes from that page's own design.ts.
 * mcp.json samples are validated against the shipped JSON Schema, and the generated reference
 * pages must match their sources. The README's Install lines are checked by test/product.
 */
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, run } from "../product/support.js";
import { blocksOf, pages, readPage } from "./extract.js";

const DIR = join(REPO, ".tmp", "docs-samples");
const GEN_MARK = "<!-- samples: gen design.ts -->";
const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");
const BIN = join(REPO, "packages", "codegen", "dist", "bin.js");

/** Where each written sample came from, to report errors as `page:line`. */
const origin = new Map<string, { page: string; line: number }>();
const files: string[] = [];
let tsc: { code: number | null; stdout: string; stderr: string };

/** The tsc diagnostics, each with the page and line of the sample it is in. */
function diagnostics(output: string): string[] {
  return output
    .split("\n")
    .filter((l) => /error TS\d+/.test(l))
    .map((l) => {
      const m = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(l);
      const from = m ? origin.get(join(DIR, m[1] ?? "")) : undefined;
      return from && m ? `${from.page}:${from.line + Number(m[2]) - 1}: ${m[4]}` : l;
    });
}

beforeAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, "package.json"), '{ "private": true, "type": "module" }\n');
  for (const toolset of ["everything", "filesystem", "memory"])
    cpSync(join(REPO, "examples", "catalogues", "src", "gen", toolset), join(DIR, "_gen", toolset), { recursive: true });
  for (const page of pages()) {
    const text = readPage(page);
    const ts = blocksOf(text).filter((b) => b.lang === "ts" || b.lang === "typescript");
    if (ts.length === 0) continue;
    const dir = join(DIR, page.replace(/\.md$/, "").replace(/[/.]/g, "_"));
    mkdirSync(join(dir, "src"), { recursive: true });
    ts.forEach((b, i) => {
      const file = join(dir, b.name ?? `sample-${i + 1}.ts`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, b.code);
      origin.set(file, { page, line: b.line });
      files.push(file);
    });
    if (text.includes(GEN_MARK)) {
      const gen = await run(process.execPath, [BIN, "gen", "design.ts", "--out", "src/gen", "--no-cache"], dir);
      if (gen.code !== 0) throw new Error(`${page}: toolwright gen failed:\n${gen.stdout}${gen.stderr}`);
    } else symlinkSync(join(DIR, "_gen"), join(dir, "src", "gen"), "dir");
  }
  // A control: a sample naming an export that does not exist must fail, or the check proves nothing.
  const control = join(DIR, "_control", "renamed.ts");
  mkdirSync(dirname(control), { recursive: true });
  writeFileSync(
    control,
    'import { createStdioCallerRenamed } from "@toolwright/runtime/stdio";\nexport const c = createStdioCallerRenamed;\n',
  );
  origin.set(control, { page: "(control)", line: 1 });
  const tsconfig = {
    compilerOptions: {
      target: "es2022",
      module: "nodenext",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
      moduleDetection: "force",
    },
    files: [...files, control].map((f) => f.slice(DIR.length + 1)),
  };
  writeFileSync(join(DIR, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  tsc = await run(process.execPath, [TSC, "-p", "tsconfig.json", "--pretty", "false"], DIR, 600_000);
}, 900_000);

describe("the docs' samples", () => {
  it("found the samples of the pages that have them", () => {
    const checked = new Set([...origin.values()].map((o) => o.page));
    for (const page of ["README.md", "docs/getting-started/from-mcp-json.md", "docs/guides/servers.md", "docs/guides/model-sdks.md"])
      expect(checked).toContain(page);
    expect(files.length).toBeGreaterThan(15);
  });

  it("every TypeScript sample compiles against the built packages", () => {
    const errors = diagnostics(`${tsc.stdout}${tsc.stderr}`).filter((e) => !e.startsWith("(control)"));
    expect(errors, errors.join("\n")).toEqual([]);
  });

  it("a sample naming a missing export fails the check", () => {
    const control = diagnostics(`${tsc.stdout}${tsc.stderr}`).filter((e) => e.startsWith("(control)"));
    expect(control.join("\n")).toMatch(/has no exported member named 'createStdioCallerRenamed'/);
    expect(tsc.code).not.toBe(0);
  });

  it("the servers guide's example runs: its client calls its server and prints what the page shows", async () => {
    const page = "docs/guides/servers.md";
    const blocks = blocksOf(readPage(page));
    const at = blocks.findIndex((b) => b.lang === "bash" && b.code.trim() === "npx tsx client.ts");
    const shown = blocks.slice(at + 1).find((b) => b.lang === "text");
    expect(at, "the page runs its client").toBeGreaterThan(0);
    const dir = join(DIR, "docs_guides_servers");
    const r = await run("npx", ["tsx", "client.ts"], dir, 300_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(shown?.code.trim());
    // The secret in the thrown error reached the server's onError, not the client.
    expect(r.stdout).not.toContain("hunter2");
  });

  it("every mcp.json sample is valid against the shipped JSON Schema", async () => {
    const schema = JSON.parse(readPage("packages/runtime/mcp-config.schema.json")) as object;
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    let seen = 0;
    for (const page of pages())
      for (const b of blocksOf(readPage(page)).filter((b) => b.lang === "json" && /mcp\.json$/.test(b.name ?? ""))) {
        seen++;
        expect(validate(JSON.parse(b.code)), `${page}:${b.line} ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    expect(seen).toBeGreaterThan(0);
  });

  it("the generated reference pages match the CLI, the mcp.json schema and the failure table", async () => {
    const r = await run(
      process.execPath,
      [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/docs-reference.ts", "--check"],
      REPO,
    );
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
  });
});
