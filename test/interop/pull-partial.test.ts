/**
 * `toolwright pull` of several servers is not all or nothing, through the built bin: real
 * server-everything and server-memory (run by node from node_modules) answer while other servers
 * fail (a command that does not exist, one that exits at once, one that never answers). The lock
 * gets what answered, a failed server keeps its previous entry, each failure is named on stderr,
 * and the exit code is 3 (a partial pull). When every server fails, nothing is written (exit 2).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);
const binOf = (pkg: string) => join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), "dist/index.js");
// Inside the repo (git-ignored) so the design resolves @toolwright/dsl like a user's project.
const root = join(repo, ".tmp", `pull-partial-${process.pid}`);
const configFile = join(root, ".toolwright", "mcp.json");
const lockFile = join(root, "design.lock.json");

type Entry = { command: string; args: string[]; env?: { [key: string]: string } };
const memory = (file: string): Entry => ({
  command: process.execPath,
  args: [binOf("server-memory")],
  env: { MEMORY_FILE_PATH: join(root, file) },
});
const everything: Entry = { command: process.execPath, args: [binOf("server-everything"), "stdio"] };
const missingCommand: Entry = { command: join(root, "no-such-server"), args: [] };
const exitsAtOnce: Entry = { command: process.execPath, args: ["-e", "process.exit(3)"] };
const neverAnswers: Entry = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };

function configure(servers: { [name: string]: Entry }): void {
  writeFileSync(configFile, JSON.stringify({ mcpServers: servers }, null, 2));
}

function pull(...extra: string[]) {
  // --timeout bounds each server; the kill timer (well above it) only catches a pull that never ends.
  return runToolwright(["pull", "design.ts", "--timeout", "15000", ...extra], { cwd: root, killAfterMs: 150_000 });
}

type Lock = { servers: { [name: string]: unknown } };
const readLockFile = (): Lock => JSON.parse(readFileSync(lockFile, "utf8"));

beforeAll(async () => {
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  const build = spawnSync(process.execPath, [tsc, "-b", "packages/dsl", "packages/runtime", "packages/codegen"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(build.status, build.stdout + build.stderr).toBe(0);
  mkdirSync(join(root, ".toolwright"), { recursive: true });
  // The design names four servers; every connection is read from mcp.json, as `init` writes it.
  configure({ everything, memory: memory("a.jsonl"), flaky: memory("b.jsonl"), newcomer: memory("c.jsonl") });
  const init = await runToolwright(["init"], { cwd: root });
  expect(init.status, init.output).toBe(0);
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a partial pull", () => {
  let first: Lock;

  it("with every server up, the lock holds all four (exit 0)", async () => {
    const run = await pull();
    expect(run.status, run.output).toBe(0);
    first = readLockFile();
    expect(Object.keys(first.servers).sort()).toEqual(["everything", "flaky", "memory", "newcomer"]);
  }, 180_000);

  it("writes what answered, keeps the failed server's previous entry, names each failure, exits 3", async () => {
    // newcomer leaves the lock (as if never pulled), so one failed server has no previous entry;
    // memory leaves it too, so the lock must be written with what answered.
    const trimmed = { ...first, servers: { ...first.servers } };
    delete trimmed.servers.newcomer;
    delete trimmed.servers.memory;
    writeFileSync(lockFile, `${JSON.stringify(trimmed, null, 2)}\n`);
    configure({ everything, memory: memory("a.jsonl"), flaky: missingCommand, newcomer: exitsAtOnce });
    const run = await pull();
    expect(run.killed).toBe(false);
    expect(run.status, run.output).toBe(3);
    expect(run.output).toMatch(/error: pull failed for server "flaky": .+\(its previous lock entry is kept\)/);
    expect(run.output).toMatch(/error: pull failed for server "newcomer": .+\(it has no lock entry\)/);
    expect(run.output).toMatch(/2 failed \(flaky: previous entry kept, newcomer: no previous entry\); wrote design\.lock\.json/);
    const lock = readLockFile();
    expect(Object.keys(lock.servers).sort()).toEqual(["everything", "flaky", "memory"]);
    expect(lock.servers.flaky).toEqual(first.servers.flaky);
    expect(lock.servers.everything).toEqual(first.servers.everything);
    expect(lock.servers.memory).toEqual(first.servers.memory);
  }, 180_000);

  it("--json reports the partial pull with exit code 3 and each failed server", async () => {
    configure({ everything, memory: memory("a.jsonl"), flaky: exitsAtOnce, newcomer: missingCommand });
    const run = await pull("--json");
    expect(run.status, run.output).toBe(3);
    const summary = JSON.parse(run.output.trim().split("\n").at(-1) as string);
    expect(summary).toMatchObject({ ok: false, command: "pull", exitCode: 3 });
    expect(summary.failed.map((f: { server: string; kept: boolean }) => [f.server, f.kept])).toEqual([
      ["flaky", true],
      ["newcomer", false],
    ]);
    expect(summary.servers.map((s: { name: string }) => s.name).sort()).toEqual(["everything", "memory"]);
  }, 180_000);

  it("a server that never answers is bounded by --timeout and fails alone", async () => {
    configure({ everything, memory: memory("a.jsonl"), flaky: neverAnswers, newcomer: memory("c.jsonl") });
    const run = await runToolwright(["pull", "design.ts", "--timeout", "4000"], { cwd: root, killAfterMs: 150_000 });
    expect(run.killed).toBe(false);
    // Under heavy load a real server may also miss a 4 s budget; the hanging one always does.
    expect(run.output).toMatch(/error: pull failed for server "flaky": .*\(its previous lock entry is kept\)/);
    expect(run.status, run.output).toBe(3);
    expect(readLockFile().servers.flaky).toEqual(first.servers.flaky);
  }, 180_000);

  it("when every server fails, nothing is written and the exit code is 2", async () => {
    const before = readFileSync(lockFile, "utf8");
    configure({ everything: missingCommand, memory: exitsAtOnce, flaky: missingCommand, newcomer: exitsAtOnce });
    const run = await pull();
    expect(run.status, run.output).toBe(2);
    expect(run.output).toMatch(/pull failed for server/);
    expect(readFileSync(lockFile, "utf8")).toBe(before);
  }, 180_000);
});
