/**
 * The getting-started page followed exactly as a new user would: in an empty folder in the OS temp
 * folder (outside the repository), next to the tarballs `npm pack --workspaces` makes, every block
 * of docs/getting-started/from-mcp-json.md is taken in page order: a ```bash block's lines are run
 * one by one (no shell, each must exit 0), a ```json [file] or ```ts [file] block is written to that
 * file, and a ```text block is what the command just before it must print. The mcp.json starts the
 * real memory server from npm, which the page installs into the project and starts with `node`. Then the `--check` commands of the CI page run in the
 * same folder and must pass, and fail once the design changes. Last, the folder goes back to what
 * the Install lines left, and the from-scratch page is followed the same way.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_FLAGS, packWorkspaces, type RunResult, readmeInstallLines, run } from "../product/support.js";
import { blocksOf, commandLines, readPage } from "./extract.js";

const PAGE = "docs/getting-started/from-mcp-json.md";

/** One step of the page as it ran. */
interface Step {
  readonly line: string;
  readonly result: RunResult;
}

let root: string;
let app: string;

/** Runs one command line of a page (npm or npx only, split at spaces, no shell). */
async function runLine(line: string, cwd: string): Promise<RunResult> {
  const [command, ...args] = line.split(/\s+/);
  if (command !== "npm" && command !== "npx") throw new Error(`a command line runs neither npm nor npx: ${line}`);
  const flags = command === "npm" && args[0] === "install" ? NPM_FLAGS : [];
  return run(command, [...args, ...flags], cwd, 600_000);
}

/** What following one page did. */
interface Followed {
  readonly steps: Step[];
  readonly written: string[];
  readonly outputs: { readonly after: string; readonly text: string; readonly actual: string }[];
}

/**
 * Follows `page` in `dir`, block by block in page order: bash lines run (each must exit 0), blocks
 * named `[file]` are written, a ```text block is what the last command that printed must print.
 * Unnamed ts blocks are alternatives the page discusses; samples.test.ts compiles them.
 */
async function follow(page: string, dir: string): Promise<Followed> {
  const done: Followed = { steps: [], written: [], outputs: [] };
  for (const block of blocksOf(readPage(page))) {
    if (block.lang === "bash") {
      for (const line of commandLines(block)) {
        const result = await runLine(line, dir);
        if (result.code !== 0)
          throw new Error(`${page}:${block.line}: \`${line}\` exited ${result.code}\n${result.stdout}\n${result.stderr}`);
        done.steps.push({ line, result });
      }
    } else if (block.name !== undefined) {
      const file = join(dir, block.name);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, block.code);
      done.written.push(block.name);
    } else if (block.lang === "text") {
      const printer = [...done.steps].reverse().find((s) => s.result.stdout.trim() !== "");
      done.outputs.push({ after: printer?.line ?? "(nothing ran)", text: block.code.trim(), actual: printer?.result.stdout.trim() ?? "" });
    } else if (block.lang !== "ts") throw new Error(`${page}:${block.line}: a ${block.lang} block with no [file name] cannot be followed`);
  }
  return done;
}

let fromMcpJson: Followed;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "tw-getting-started-"));
  app = join(root, "app");
  mkdirSync(app);
  await packWorkspaces(app);
  fromMcpJson = await follow(PAGE, app);
}, 1_800_000);

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe("the getting-started page, line by line in an empty folder", () => {
  it("installs with the same lines as the README", () => {
    const lines = fromMcpJson.steps.map((s) => s.line);
    expect(lines.slice(0, 5), "the page's Install block").toEqual(readmeInstallLines().filter((l) => l !== "npx toolwright --version"));
  });

  it("goes design → gen → call with the real memory server", () => {
    const lines = fromMcpJson.steps.map((s) => s.line);
    expect(lines).toEqual(
      expect.arrayContaining([
        "npm install --save-dev @modelcontextprotocol/server-memory",
        "npx toolwright init",
        "npx toolwright pull design.ts",
        "npx toolwright gen design.ts --out src/gen",
        "npx tsx main.ts",
      ]),
    );
    expect(fromMcpJson.written).toEqual([".mcp.json", "main.ts"]);
    expect(readFileSync(join(app, "design.ts"), "utf8")).toContain('externalServer("memory", mcpJson(".mcp.json"))');
    expect(JSON.parse(readFileSync(join(app, "design.lock.json"), "utf8"))).toMatchObject({ servers: { memory: expect.anything() } });
    expect(existsSync(join(app, "src", "gen", "memory", "client.gen.ts"))).toBe(true);
    // The real server stored the entity (server-memory keeps memory.jsonl next to its own code).
    const store = join(app, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "memory.jsonl");
    expect(readFileSync(store, "utf8")).toContain("Ada Lovelace");
  });

  it("prints exactly what the page shows", () => {
    expect(fromMcpJson.outputs.length).toBeGreaterThan(0);
    for (const o of fromMcpJson.outputs) expect(o.actual, `output of ${o.after}`).toBe(o.text);
  });

  it("the CI page's --check commands pass on the result, and gen --check fails once the design changes", async () => {
    const ci = blocksOf(readPage("docs/getting-started/ci.md"))
      .filter((b) => b.lang === "bash")
      .flatMap(commandLines);
    expect(ci).toEqual(["npx toolwright gen design.ts --out src/gen --check", "npx toolwright pull design.ts --check"]);
    for (const line of ci) {
      const r = await runLine(line, app);
      expect(r.code, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
    }
    const design = readFileSync(join(app, "design.ts"), "utf8");
    writeFileSync(join(app, "design.ts"), design.replace('toolset("memory"', 'toolset("graph"'));
    const stale = await runLine(ci[0] as string, app);
    writeFileSync(join(app, "design.ts"), design);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^stale: src\/gen\//m);
  });
});

describe("the from-scratch page, in the folder as the install left it", () => {
  let scratch: Followed;

  beforeAll(async () => {
    // Back to what the Install lines leave: the manifest, the lock, node_modules and the tarballs.
    const keep = new Set(["node_modules", "package.json", "package-lock.json"]);
    for (const entry of readdirSync(app))
      if (!keep.has(entry) && !entry.endsWith(".tgz")) rmSync(join(app, entry), { recursive: true, force: true });
    scratch = await follow("docs/getting-started/from-scratch.md", app);
  }, 1_200_000);

  it("pulls, generates, calls the real everything server and type-checks with the page's tsconfig", () => {
    expect(scratch.written).toEqual(["tsconfig.json", "design.ts", "app.ts"]);
    expect(scratch.steps.map((s) => s.line)).toEqual([
      "npm install --save-dev @modelcontextprotocol/server-everything",
      "npx toolwright pull design.ts",
      "npx toolwright gen design.ts --out src/gen",
      "npx tsx app.ts",
      "npx tsc --noEmit",
    ]);
    // The weather tool's structured result is random, but typed: a temperature is a number.
    const printed = scratch.steps.find((s) => s.line === "npx tsx app.ts")?.result.stdout.trim() ?? "";
    expect(printed).toMatch(/^-?\d+(\.\d+)?$/);
  });
});
