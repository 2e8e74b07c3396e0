/**
 * No command writes through a link out of the project, through the built bin: `init`, `add`,
 * `gen`, `pull`, `report` and `approve`, each with the file it writes (or a folder above it) made
 * a dangling link, a link to a file outside, or a link to a folder outside. Each is refused with
 * exit 2 and a line naming the path, and nothing outside the project is created or modified.
 * (There is no `record` command.) The servers are server-memory from node_modules, run by node.
 */
import { spawnSync } from "node:child_process";
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);
const memoryBin = join(dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist/index.js");
// Inside the repo (git-ignored) so designs resolve @toolwright/dsl like a user's project.
const root = join(repo, ".tmp", `write-links-${process.pid}`);
const outside = join(root, "outside");

/** Every entry under `dir`: kind, link target or file content; links are listed, never followed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name);
    const st = lstatSync(full);
    out[relative(dir, full)] = st.isSymbolicLink()
      ? `link:${readlinkSync(full)}`
      : st.isDirectory()
        ? "dir"
        : `file:${readFileSync(full, "utf8")}:${st.mtimeMs}`;
  }
  return out;
}

let n = 0;
/** A fresh project with an mcp.json naming server-memory (and `memory2`, which the design lacks). */
function project(): string {
  const dir = join(root, `p${n++}`);
  mkdirSync(join(dir, ".toolwright"), { recursive: true });
  const memory = (file: string) => ({ command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: join(dir, file) } });
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: { memory: memory("m.jsonl") } }, null, 2));
  return dir;
}

function addSecondServer(dir: string): void {
  const file = join(dir, ".toolwright", "mcp.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.mcpServers.memory2 = { ...config.mcpServers.memory, env: { MEMORY_FILE_PATH: join(dir, "m2.jsonl") } };
  writeFileSync(file, JSON.stringify(config, null, 2));
}

function run(cwd: string, argv: readonly string[]): Promise<CliRun> {
  return runToolwright(argv, { cwd, killAfterMs: 120_000 });
}

async function ok(cwd: string, argv: readonly string[]): Promise<void> {
  const r = await run(cwd, argv);
  expect(r.status, r.output).toBe(0);
}

/** Runs a command that must be refused; checks the line and that nothing outside changed. */
async function refused(cwd: string, argv: readonly string[], path: string): Promise<void> {
  const before = snapshot(outside);
  const siblings = readdirSync(root).sort();
  const r = await run(cwd, argv);
  expect(r.killed).toBe(false);
  expect(r.status, r.output).toBe(2);
  expect(r.output).toContain(`refusing to write ${join(cwd, path)}`);
  expect(r.output).toMatch(/symlink/);
  expect(r.output).not.toMatch(/\n\s+at /); // no stack trace
  expect(snapshot(outside)).toEqual(before);
  expect(readdirSync(root).sort()).toEqual(siblings);
}

beforeAll(() => {
  const build = spawnSync(
    process.execPath,
    [join(repo, "node_modules", "typescript", "bin", "tsc"), "-b", "packages/dsl", "packages/runtime", "packages/codegen"],
    {
      cwd: repo,
      encoding: "utf8",
    },
  );
  expect(build.status, build.stdout + build.stderr).toBe(0);
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(join(outside, "victim.ts"), "// the user's file outside the project\n");
  writeFileSync(join(outside, "victim.json"), "{}\n");
  writeFileSync(join(outside, "approvals.json"), `${JSON.stringify({ version: 1, servers: {} })}\n`);
}, 180_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("init", () => {
  it("refuses a dangling design.ts link, with and without --force", async () => {
    const dir = project();
    symlinkSync("../outside/made-by-init.ts", join(dir, "design.ts"));
    await refused(dir, ["init"], "design.ts");
    await refused(dir, ["init", "--force"], "design.ts");
  }, 120_000);

  it("refuses a design.ts link to a file outside (--force)", async () => {
    const dir = project();
    symlinkSync(join(outside, "victim.ts"), join(dir, "design.ts"));
    await refused(dir, ["init", "--force"], "design.ts");
  }, 120_000);

  it("refuses a folder on the way that links outside", async () => {
    const dir = project();
    symlinkSync("../outside/dir", join(dir, "src"));
    await refused(dir, ["init", "--design", "src/design.ts"], "src/design.ts");
  }, 120_000);
});

describe("add", () => {
  it("refuses a design that is a link to a file outside, and one in a folder that links outside", async () => {
    const dir = project();
    await ok(dir, ["init"]);
    addSecondServer(dir);
    // The same design, kept outside the project and linked in.
    cpSync(join(dir, "design.ts"), join(outside, "design.ts"));
    cpSync(join(dir, "design.ts"), join(outside, "dir", "design.ts"));
    rmSync(join(dir, "design.ts"));
    symlinkSync(join(outside, "design.ts"), join(dir, "design.ts"));
    await refused(dir, ["add", "memory2"], "design.ts");
    symlinkSync("../outside/dir", join(dir, "linked"));
    await refused(dir, ["add", "memory2", "--design", "linked/design.ts"], "linked/design.ts");
  }, 120_000);
});

describe("pull, gen and report", () => {
  let dir = "";
  beforeAll(async () => {
    dir = project();
    await ok(dir, ["init"]);
    await ok(dir, ["pull", "design.ts"]);
  }, 120_000);

  it("pull refuses a lock that links to a file outside or dangles", async () => {
    const lock = readFileSync(join(dir, "design.lock.json"), "utf8");
    rmSync(join(dir, "design.lock.json"));
    symlinkSync(join(outside, "victim.json"), join(dir, "design.lock.json"));
    await refused(dir, ["pull", "design.ts"], "design.lock.json");
    rmSync(join(dir, "design.lock.json"));
    symlinkSync("../outside/pulled.json", join(dir, "design.lock.json"));
    await refused(dir, ["pull", "design.ts"], "design.lock.json");
    rmSync(join(dir, "design.lock.json"));
    writeFileSync(join(dir, "design.lock.json"), lock);
  }, 120_000);

  it("gen refuses an --out folder that links outside, and a link inside --out", async () => {
    symlinkSync("../outside/dir", join(dir, "gen-linked"));
    await refused(dir, ["gen", "design.ts", "--out", "gen-linked", "--no-cache"], "gen-linked/memory");
    mkdirSync(join(dir, "gen", "memory"), { recursive: true });
    symlinkSync(join(outside, "victim.ts"), join(dir, "gen", "memory", "index.ts"));
    await refused(dir, ["gen", "design.ts", "--out", "gen", "--no-cache"], "gen/memory/index.ts");
  }, 120_000);

  it("report refuses an --out file that links outside and one in a folder that links outside", async () => {
    symlinkSync(join(outside, "victim.ts"), join(dir, "review.html"));
    await refused(dir, ["report", "design.ts", "--offline", "--out", "review.html"], "review.html");
    symlinkSync("../outside/dir", join(dir, "reports"));
    await refused(dir, ["report", "design.ts", "--offline", "--out", "reports/review.html"], "reports/review.html");
    symlinkSync("../outside/gone.html", join(dir, "dangling.html"));
    await refused(dir, ["report", "design.ts", "--offline", "--out", "dangling.html"], "dangling.html");
  }, 120_000);
});

describe("approve", () => {
  it("refuses an approval store that dangles or links to a file outside", async () => {
    const dir = project();
    symlinkSync("../../outside/gone.json", join(dir, ".toolwright", "mcp-approvals.json"));
    await refused(dir, ["approve"], ".toolwright/mcp-approvals.json");
    rmSync(join(dir, ".toolwright", "mcp-approvals.json"));
    symlinkSync(join(outside, "approvals.json"), join(dir, ".toolwright", "mcp-approvals.json"));
    await refused(dir, ["approve"], ".toolwright/mcp-approvals.json");
  }, 120_000);
});
