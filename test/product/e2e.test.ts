/**
 * The product as a user gets it. The packages are packed with `npm pack`, a fresh project is
 * made outside the repository (in the OS temp folder) by running the README's Install lines, and
 * everything then goes through the installed `npx toolwright`: init (the design from the project's
 * mcp.json), pull from a real server-memory, gen, gen --check (fresh: 0; after a design edit: 1,
 * naming the stale files), a strict type-check, and the app run three ways (tsx, a plain `tsc` build
 * with no allowJs, an esbuild bundle), each starting the real server through the generated
 * `createMemoryCaller()` (the mcp.json entry) and printing typed results, the pulled
 * `memory://knowledge-graph` resource read through its generated `readKnowledgeGraph()`. Bad input gets one line and exit 2, and nothing is
 * written outside `--out`. Install size and time and gen time are printed for the closing note.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  folderSize,
  listFiles,
  NPM_FLAGS,
  type PackedPackage,
  PUBLISHED,
  packWorkspaces,
  REPO,
  type RunResult,
  run,
  runReadmeInstall,
} from "./support.js";

const rootPkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { devDependencies: { [name: string]: string } };
// The server and build tools the test app uses, at the versions the repo tests with; the app's own
// code uses Node APIs, so it has @types/node (generated code does not need it).
const EXTRA = ["@modelcontextprotocol/server-memory", "esbuild", "@types/node"].map((n) => `${n}@${rootPkg.devDependencies[n]}`);
const SERVER = "node_modules/@modelcontextprotocol/server-memory/dist/index.js";

let root: string;
let app: string;
let packed: readonly PackedPackage[];
const metrics: { [name: string]: number | string } = { node: process.version };

/** `npx <args>` in the app (the installed bins), failing the test with the output when it fails. */
function npx(args: readonly string[], memoryFile = join(root, "pull-memory.jsonl")): Promise<RunResult> {
  return run("npx", ["--no-install", ...args], app, 180_000, { TW_E2E_MEMORY_FILE: memoryFile });
}

function ok(r: RunResult, what: string): RunResult {
  expect(r.code, `${what} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
}

/** The project's mcp.json: the one place the server is declared (init, pull, gen and the app read it). */
const MCP_JSON = {
  mcpServers: {
    memory: { command: "node", args: [SERVER], env: { MEMORY_FILE_PATH: "${TW_E2E_MEMORY_FILE}" } },
  },
};

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: false,
    rootDir: "src",
    outDir: "dist",
  },
  include: ["src/**/*.ts"],
};

const APP = `import { renderFailure } from "@toolwright/runtime";
import { createMemoryCaller, createMemoryClient, type ReadGraphResult } from "./gen/memory/index.js";

const mode = process.argv[2];
if (mode === undefined) {
  console.error("usage: app <mode>  (TW_E2E_MEMORY_FILE names the server's memory file)");
  process.exit(2);
}
// The connection comes from .toolwright/mcp.json, through the generated factory.
const caller = createMemoryCaller();
const memory = createMemoryClient(caller);
try {
  const created = await memory.createEntities({
    entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program", "mode " + mode] }],
  });
  if (!created.ok) throw new Error(renderFailure(created.failure));
  const graph = await memory.readGraph({});
  if (!graph.ok) throw new Error(renderFailure(graph.failure));
  const result: ReadGraphResult = graph.value;
  const entities: string[] = result.entities.map((e) => \`\${e.name}:\${e.entityType}:\${e.observations.length}\`);
  // The resource the pull recorded, read through its generated typed reader.
  const read = await memory.readKnowledgeGraph();
  if (!read.ok) throw new Error(renderFailure(read.failure));
  const item = read.value[0];
  const resource = item && "text" in item ? { uri: item.uri, mimeType: item.mimeType, hasAda: item.text.includes('"Ada"') } : null;
  // A payload the validator must refuse before anything is sent.
  const bad = await memory.createEntities(JSON.parse('{"entities":[{"name":1}]}'));
  const invalid = bad.ok ? null : { kind: bad.failure.kind, action: bad.failure.recovery.action };
  console.log(JSON.stringify({ mode, entities, resource, invalid }));
} finally {
  await caller.close();
}
`;

/** The `count` biggest packages under `nodeModules`, as "name 12.3 MB" (what the install size is made of). */
function largest(nodeModules: string, count: number): string {
  const dirs = readdirSync(nodeModules, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .flatMap((e) => (e.name.startsWith("@") ? readdirSync(join(nodeModules, e.name)).map((n) => `${e.name}/${n}`) : [e.name]));
  return dirs
    .map((name) => ({ name, bytes: folderSize(join(nodeModules, name)) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count)
    .map((d) => `${d.name} ${(d.bytes / 1e6).toFixed(1)} MB`)
    .join(", ");
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "tw-e2e-"));
  app = join(root, "app");
  mkdirSync(app);
  const packStarted = performance.now();
  packed = await packWorkspaces(app);
  metrics.packMs = Math.round(performance.now() - packStarted);
  // The README's Install lines, one by one, in the empty folder next to the tarballs.
  let installMs = 0;
  for (const { line, result } of await runReadmeInstall(app)) {
    if (line.startsWith("npm install")) installMs += result.ms;
    if (line.includes("--version")) expect(result.stdout.trim()).toBe(packed[0]?.version);
  }
  metrics.installMs = installMs;
  metrics.installBytes = folderSize(join(app, "node_modules"));
  metrics.largestPackages = largest(join(app, "node_modules"), 6);
  const extra = await run("npm", ["install", "--save-dev", ...EXTRA, ...NPM_FLAGS], app, 300_000);
  expect(extra.code, extra.stderr).toBe(0);
  writeFileSync(join(app, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  mkdirSync(join(app, "src"));
  writeFileSync(join(app, "src", "app.ts"), APP);
  mkdirSync(join(app, ".toolwright"));
  writeFileSync(join(app, ".toolwright", "mcp.json"), `${JSON.stringify(MCP_JSON, null, 2)}\n`);
}, 900_000);

afterAll(() => {
  console.log(`product e2e metrics: ${JSON.stringify(metrics)}`);
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

// Each test runs npx commands of up to 180 s each; the bound is for a hang, not a speed check.
describe("packed packages installed in a fresh project", { timeout: 900_000 }, () => {
  it("the install has the dependency shape the docs describe", () => {
    const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as {
      dependencies?: { [n: string]: string };
      devDependencies?: { [n: string]: string };
    };
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(["@toolwright/runtime"]);
    expect(Object.keys(pkg.devDependencies ?? {})).toEqual(expect.arrayContaining(["@toolwright/codegen", "@toolwright/dsl"]));
    // One copy of each package: codegen's runtime and the DSL peer resolve to the app's own.
    expect(existsSync(join(app, "node_modules", "@toolwright", "codegen", "node_modules"))).toBe(false);
    expect(existsSync(join(app, "node_modules", "ts-morph"))).toBe(true);
  });

  it("init writes design.ts from the project's mcp.json, and never overwrites it", async () => {
    const init = ok(await npx(["toolwright", "init"]), "toolwright init");
    expect(init.stdout).toMatch(/wrote design\.ts with 1 server \(memory\) from \.toolwright\/mcp\.json/);
    const design = readFileSync(join(app, "design.ts"), "utf8");
    expect(design).toMatch(/externalServer\("memory", mcpJson\(\)\)/);
    const again = await npx(["toolwright", "init"]);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe("error: design.ts: already exists; pass --force to overwrite it");
    expect(readFileSync(join(app, "design.ts"), "utf8")).toBe(design);
  });

  it("pull, gen and gen --check run through the installed bin; gen writes only under --out", async () => {
    const before = listFiles(app);
    const pull = ok(await npx(["toolwright", "pull", "design.ts"]), "toolwright pull");
    expect(pull.stdout).toMatch(/memory/);
    expect(existsSync(join(app, "design.lock.json"))).toBe(true);
    const gen = ok(await npx(["toolwright", "gen", "design.ts", "--out", "src/gen"]), "toolwright gen");
    metrics.genMs = Number(/ in (\d+) ms/.exec(gen.stdout)?.[1] ?? Number.NaN);
    metrics.genProcessMs = gen.ms;
    expect(gen.stdout).toMatch(/^toolwright gen: 1 toolset, 9 tools, 10 files \(10 written, 0 unchanged\)/);
    const added = listFiles(app).filter((f) => !before.includes(f));
    expect(added.filter((f) => !f.startsWith("src/gen/"))).toEqual(["design.lock.json"]);
    expect(added).toEqual(expect.arrayContaining(["src/gen/memory/validators.gen.ts", "src/gen/memory/caller.gen.ts"]));
    const check = ok(await npx(["toolwright", "gen", "design.ts", "--out", "src/gen", "--check"]), "toolwright gen --check");
    expect(check.stdout).toMatch(/up to date/);
  });

  it("after the design is edited, gen --check exits 1, names the stale files and writes nothing", async () => {
    const original = readFileSync(join(app, "design.ts"), "utf8");
    // A second toolset, added the way a user would: its own import line and one more list entry.
    const edited = original.replace(
      "toolsets: [",
      'toolsets: [\n    tw.toolset("notes", tw.fromExternalMCP("notes"), (t) => { t.tool("jot", { input: tw.object({ text: tw.string() }) }); }),',
    );
    expect(edited).not.toBe(original);
    writeFileSync(join(app, "design.ts"), `import * as tw from "@toolwright/dsl";\n${edited}`);
    try {
      const before = listFiles(app);
      const check = await npx(["toolwright", "gen", "design.ts", "--out", "src/gen", "--check"]);
      expect(check.code, check.stderr).toBe(1);
      expect(check.stderr).toMatch(/^stale: src\/gen\/notes\/client\.gen\.ts$/m);
      expect(check.stderr).toMatch(/^stale: src\/gen\/notes\/validators\.gen\.ts$/m);
      expect(check.stderr).toMatch(/^toolwright gen --check: \d+ stale files in src\/gen; run toolwright gen design\.ts --out src\/gen$/m);
      expect(listFiles(app)).toEqual(before);
    } finally {
      writeFileSync(join(app, "design.ts"), original);
    }
    ok(await npx(["toolwright", "gen", "design.ts", "--out", "src/gen", "--check"]), "gen --check after restoring the design");
  });

  it("the app and the generated code pass a strict tsc --noEmit", async () => {
    ok(await npx(["tsc", "--noEmit", "-p", "tsconfig.json"]), "tsc --noEmit");
  });

  const expected = (mode: string) => ({
    mode,
    entities: ["Ada:person:2"],
    resource: { uri: "memory://knowledge-graph", mimeType: "application/json", hasAda: true },
    invalid: { kind: "invalid_call", action: "correct_call" },
  });
  const appRun = async (mode: string, command: string, args: readonly string[]) => {
    const env = { TW_E2E_MEMORY_FILE: join(root, `${mode}-memory.jsonl`) };
    const r = ok(await run(command, [...args, mode], app, 60_000, env), `app via ${mode}`);
    return JSON.parse(r.stdout.trim().split("\n").pop() ?? "") as unknown;
  };

  it("runs through tsx against the real server", async () => {
    expect(await appRun("tsx", "npx", ["--no-install", "tsx", "src/app.ts"])).toEqual(expected("tsx"));
  });

  it("runs from a plain tsc build (no allowJs), validators included", async () => {
    expect(TSCONFIG.compilerOptions).not.toHaveProperty("allowJs");
    ok(await npx(["tsc", "-p", "tsconfig.json"]), "tsc build");
    expect(existsSync(join(app, "dist", "gen", "memory", "validators.gen.js"))).toBe(true);
    expect(await appRun("tsc", process.execPath, ["dist/app.js"])).toEqual(expected("tsc"));
  });

  it("runs from an esbuild bundle", async () => {
    const args = [
      "esbuild",
      "src/app.ts",
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--outfile=bundle/app.mjs",
      "--log-level=warning",
    ];
    ok(await npx(args), "esbuild");
    expect(await appRun("esbuild", process.execPath, ["bundle/app.mjs"])).toEqual(expected("esbuild"));
  });
});

describe("bad input through the installed bin: one line, exit 2, nothing written", { timeout: 900_000 }, () => {
  const cases: [string, string[], RegExp][] = [
    ["a wrong design path", ["gen", "designs/nope.ts", "--out", "src/gen"], /designs\/nope\.ts: design file not found/],
    ["no design argument", ["gen", "--out", "src/gen"], /missing an argument: toolwright gen <design>/],
    ["a file that is not a design", ["gen", "tsconfig.json", "--out", "src/gen"], /tsconfig\.json: the default export is not a design/],
    ["an unknown server", ["pull", "design.ts", "--server", "nope"], /--server nope: no externalServer of that name \(have: memory\)/],
    [
      "an unwritable --out",
      ["gen", "design.ts", "--out", "blocker/gen", "--no-cache"],
      /cannot write --out blocker\/gen: .*a file is in the way/,
    ],
  ];
  it.each(cases)("%s", async (_what, argv, message) => {
    writeFileSync(join(app, "blocker"), "a file where --out needs a folder\n");
    // Root ignores permission bits, so a file in the way is what makes this --out unwritable.
    chmodSync(join(app, "blocker"), 0o444);
    const before = listFiles(app);
    const lock = readFileSync(join(app, "design.lock.json"), "utf8");
    const r = await npx(["toolwright", ...argv]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(listFiles(app)).toEqual(before);
    expect(readFileSync(join(app, "design.lock.json"), "utf8")).toBe(lock);
    rmSync(join(app, "blocker"), { force: true });
  });
});

describe("the tarballs", () => {
  it("ship LICENSE, README and CHANGELOG, and no tests, sources maps or build info", () => {
    expect(packed.map((p) => p.name)).toEqual(expect.arrayContaining(["@toolwright/dsl", "@toolwright/runtime", "@toolwright/codegen"]));
    for (const p of packed.filter((p) => PUBLISHED.includes(p.name.replace("@toolwright/", "")))) {
      for (const f of ["LICENSE", "README.md", "CHANGELOG.md", "package.json"]) expect(p.files, `${p.name} ${f}`).toContain(f);
      expect(
        p.files.filter((f) => /\.test\.|\.map$|tsbuildinfo|^src\//.test(f)),
        p.name,
      ).toEqual([]);
    }
    metrics.tarballBytes = packed.reduce((n, p) => n + p.size, 0);
  });
});
