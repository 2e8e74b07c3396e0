/**
 * The `toolwright` CLI, run in-process through `main(argv)`: exit codes, summaries, --check, --json,
 * --help, --watch, and bad designs (nothing written, exit 2). Designs are loaded with tsx, as users'
 * are, so the DSL is built first.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "./cli.js";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
let tmp: string;

function run(argv: string[], signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  const done = main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: repo, ...(signal ? { signal } : {}) });
  return { done, out, err };
}

async function exec(...argv: string[]) {
  const r = run(argv);
  const code = await r.done;
  return { code, stdout: r.out.join("\n"), stderr: r.err.join("\n") };
}

function rel(path: string): string {
  return relative(repo, path);
}

function listAll(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

beforeAll(() => {
  const build = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", "packages/dsl", "packages/runtime"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(build.status, build.stdout).toBe(0);
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  tmp = mkdtempSync(join(repo, ".tmp", "cli-"));
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("usage", () => {
  it("--help lists the command, examples and exit codes", async () => {
    const r = await exec("gen", "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--check/);
    expect(r.stdout).toMatch(/Examples:/);
    expect(r.stdout).toMatch(/Exit codes: 0 ok, 1 --check found stale files, 2 usage or design error/);
  });

  it("--version prints the package version", async () => {
    const r = await exec("--version");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    [[]],
    [["frobnicate"]],
    [["gen", "x.ts"]],
    [["gen", "x.ts", "--out", "o", "--bogus"]],
    [["gen", "x.ts", "--out", "o", "--check", "--watch"]],
  ])("usage errors exit 2 with one line naming the problem and the help: %j", async (argv) => {
    const r = await exec(...argv);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: .+ \(see toolwright (gen )?--help\)$/);
  });
});

describe("gen", () => {
  const design = "test/golden/refs-recursive/design.ts";

  it("writes the same files as the golden expected output, and a one-line summary", async () => {
    const out = join(tmp, "gen1");
    const r = await exec("gen", design, "--out", rel(out));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^toolwright gen: 1 toolset, 3 tools, 9 files \(9 written, 0 unchanged\) in \d+ ms -> /);
    const expected = join(repo, "test", "golden", "refs-recursive", "expected");
    expect(listAll(out)).toEqual(listAll(expected));
    for (const f of listAll(expected)) expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(expected, f), "utf8"));
    const again = await exec("gen", design, "--out", rel(out));
    expect(again.stdout).toMatch(/\(0 written, 9 unchanged, nothing changed\)/);
    expect(listAll(out).some((f) => f.endsWith(".tmp"))).toBe(false);
  });

  it("--check: 0 when fresh; 1 naming changed, missing and leftover files", async () => {
    const out = join(tmp, "check");
    expect((await exec("gen", design, "--out", rel(out))).code).toBe(0);
    expect((await exec("gen", design, "--out", rel(out), "--check")).code).toBe(0);
    writeFileSync(join(out, "files", "types.gen.ts"), "// edited\n");
    rmSync(join(out, "files", "client.gen.ts"));
    const header = readFileSync(join(out, "files", "index.ts"), "utf8")
      .split("\n")
      .slice(0, 2)
      .join("\n");
    writeFileSync(join(out, "files", "old.gen.ts"), `${header}\nexport {};\n`);
    writeFileSync(join(out, "mine.ts"), "// a user file: never touched\n");
    const r = await exec("gen", design, "--out", rel(out), "--check");
    expect(r.code).toBe(1);
    for (const f of ["files/types.gen.ts", "files/client.gen.ts", "files/old.gen.ts"]) expect(r.stderr).toContain(f);
    expect(r.stderr).not.toContain("mine.ts");
    expect(readFileSync(join(out, "files", "types.gen.ts"), "utf8")).toBe("// edited\n");
    const fix = await exec("gen", design, "--out", rel(out));
    expect(fix.stdout).toMatch(/\(2 written, 7 unchanged, 1 removed\)/);
    expect(existsSync(join(out, "mine.ts"))).toBe(true);
    expect((await exec("gen", design, "--out", rel(out), "--check")).code).toBe(0);
  });

  it("counts the servers a design implements in the summary line", async () => {
    const r = await exec("gen", "test/golden/mcp-server-scaffold/design.ts", "--out", rel(join(tmp, "servers")), "--no-cache");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^toolwright gen: 1 toolset, 3 tools, 3 servers, \d+ files /m);
  });

  it("an --out that cannot be written is one line naming --out and why, exit 2", async () => {
    writeFileSync(join(tmp, "blocker"), "a file where a folder is needed\n");
    const r = await exec("gen", design, "--out", rel(join(tmp, "blocker", "gen")), "--no-cache");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: cannot write --out \S+blocker\/gen: \S+blocker\/gen\/files: a file is in the way where a folder is needed \(ENOTDIR\)$/,
    );
  });

  it("--json prints a machine-readable summary", async () => {
    const r = await exec("gen", design, "--out", rel(join(tmp, "json")), "--json");
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ ok: true, command: "gen", exitCode: 0, toolsets: 1, tools: 3, design });
    expect(summary.files).toHaveLength(9);
    const bad = await exec("gen", "nope.ts", "--out", rel(join(tmp, "json2")), "--json");
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      ok: false,
      exitCode: 2,
      error: expect.stringMatching(/nope\.ts: design file not found/),
      location: { file: "nope.ts" },
      problem: "design file not found",
    });
  });
});

describe("re-run cache", () => {
  it("answers an unchanged re-run without generating, and notices every kind of change", async () => {
    const dir = join(tmp, "cache");
    mkdirSync(join(dir, "parts"), { recursive: true });
    writeFileSync(join(dir, "parts", "names.ts"), 'export const names: string[] = ["one"];\n');
    writeFileSync(
      join(dir, "design.ts"),
      `import { design, fromExternalMCP, object, toolset } from "@toolwright/dsl";
import { names } from "./parts/names.js";
export default design({ toolsets: [toolset("c", fromExternalMCP("c"), (t) => { for (const n of names) t.tool(n, { input: object({}) }); })] });\n`,
    );
    const design = rel(join(dir, "design.ts"));
    const out = rel(join(dir, "out"));
    const gen = async (...extra: string[]) => JSON.parse((await exec("gen", design, "--out", out, "--json", ...extra)).stdout);
    expect(await gen()).toMatchObject({ cached: false, written: expect.arrayContaining(["c/client.gen.ts"]) });
    expect(await gen()).toMatchObject({
      cached: true,
      written: [],
      tools: 1,
      inputs: expect.arrayContaining([design, rel(join(dir, "parts", "names.ts"))]),
    });
    expect(await gen("--no-cache")).toMatchObject({ cached: false, written: [] });
    // An imported file changes.
    writeFileSync(join(dir, "parts", "names.ts"), 'export const names: string[] = ["one", "two"];\n');
    expect(await gen()).toMatchObject({ cached: false, tools: 2 });
    expect(await gen()).toMatchObject({ cached: true, tools: 2 });
    // An output is edited or deleted by hand.
    writeFileSync(join(dir, "out", "c", "types.gen.ts"), "// edited\n");
    expect(await gen()).toMatchObject({ cached: false, written: ["c/types.gen.ts"] });
    rmSync(join(dir, "out", "c", "index.ts"));
    expect(await gen()).toMatchObject({ cached: false, written: ["c/index.ts"] });
    // A lock appears next to the design.
    writeFileSync(join(dir, "design.lock.json"), '{"version":1,"servers":{}}\n');
    expect(await gen()).toMatchObject({ cached: false, written: [] });
    // --check on an unchanged tree is answered from the cache too, and still catches edits.
    expect(await gen("--check")).toMatchObject({ cached: true, exitCode: 0 });
    writeFileSync(join(dir, "out", "c", "specs.gen.ts"), "// edited\n");
    expect(await gen("--check")).toMatchObject({ cached: false, exitCode: 1, stale: ["c/specs.gen.ts"] });
  });
});

describe("bad designs: clear error, exit 2, nothing written", () => {
  const cases: [string, string, RegExp][] = [
    ["throws", `throw new Error("boom at load");\nexport default 1;\n`, /cannot load design: .*boom at load/],
    ["syntax", `import { design } from "@toolwright/dsl";\nexport default design({ toolsets: [ }`, /cannot load design/],
    ["not-a-design", "export default { hello: 1 };\n", /default export is not a design/],
    [
      "schema",
      `import { design, fromExternalMCP, raw, toolset } from "@toolwright/dsl";
export default design({ toolsets: [toolset("shop", fromExternalMCP("shop"), (t) => { t.tool("buy", { input: raw({ type: "object", properties: { n: { type: "strin" } } }) }); })] });\n`,
      /toolset "shop" tool "buy": input schema: invalid schema/,
    ],
  ];

  it.each(cases)("%s", async (name, source, message) => {
    const dir = join(tmp, `bad-${name}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "design.ts"), source);
    const out = join(dir, "out");
    mkdirSync(join(out, "shop"), { recursive: true });
    writeFileSync(join(out, "shop", "keep.gen.ts"), "// previous output\n");
    const r = await exec("gen", rel(join(dir, "design.ts")), "--out", rel(out));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^design error: /);
    expect(r.stderr).toContain(rel(join(dir, "design.ts")));
    expect(r.stderr).toMatch(message);
    expect(listAll(out)).toEqual(["shop/keep.gen.ts"]);
  });
});

describe("--watch", () => {
  it("regenerates when the design or a local file it imports changes, and stops on abort", async () => {
    const dir = join(tmp, "watch");
    mkdirSync(join(dir, "parts"), { recursive: true });
    const part = (tools: string[]) => `export const names: string[] = ${JSON.stringify(tools)};\n`;
    writeFileSync(join(dir, "parts", "names.ts"), part(["one"]));
    const source = (extra: string) =>
      `import { design, fromExternalMCP, object, toolset } from "@toolwright/dsl";
import { names } from "./parts/names.js";
export default design({ toolsets: [toolset("w", fromExternalMCP("w"), (t) => { for (const n of [...names, ${JSON.stringify(extra)}]) t.tool(n, { input: object({}) }); })] });\n`;
    writeFileSync(join(dir, "design.ts"), source("base"));
    const out = join(dir, "out");
    const stop = new AbortController();
    const r = run(["gen", rel(join(dir, "design.ts")), "--out", rel(out), "--watch"], stop.signal);
    const client = () => (existsSync(join(out, "w", "client.gen.ts")) ? readFileSync(join(out, "w", "client.gen.ts"), "utf8") : "");
    const waitFor = async (check: () => boolean) => {
      for (let i = 0; i < 1200 && !check(); i++) await new Promise((f) => setTimeout(f, 50));
      expect(check()).toBe(true);
    };
    await waitFor(() => r.err.some((e) => e.includes("watching")));
    expect(client()).toContain("one(");
    writeFileSync(join(dir, "design.ts"), source("two"));
    await waitFor(() => client().includes("two("));
    writeFileSync(join(dir, "parts", "names.ts"), part(["one", "three"]));
    await waitFor(() => client().includes("three("));
    expect(r.out.filter((l) => l.startsWith("toolwright gen:")).length).toBeGreaterThanOrEqual(3);
    stop.abort();
    expect(await r.done).toBe(0);
  });
});
