/**
 * `${VAR}` in an mcp.json entry's `command` (a virtualenv's binary, a pinned node): expanded like
 * `args`, `cwd`, `env` and `headers`, by the one expander, everywhere the entry is used. Through
 * the built bin, `init` keeps the reference (the design and the generated code hold `${TW_NODE}`,
 * never its value), `pull` starts the real server-memory through it, and the generated caller
 * makes a typed call; the manager starts it too. Unset, the variable names itself, the server and
 * the field.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager, loadMcpConfig, McpConfigError } from "../../packages/runtime/src/manager.js";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const memoryBin = join(repo, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");

/** The slice of the generated memory module this test uses. */
interface MemoryModule {
  createMemoryCaller(): { close(): Promise<void> };
  createMemoryClient(caller: unknown): {
    createEntities(p: { entities: { name: string; entityType: string; observations: string[] }[] }): Promise<{ ok: boolean }>;
    readGraph(p: object): Promise<{ ok: true; value: { entities: { name: string }[] } } | { ok: false }>;
  };
}

let dir = "";
let globalDir = "";
const saved = { ...process.env };
const VARS = { TW_NODE: process.execPath, TW_MEMORY_BIN: memoryBin };

beforeAll(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "mcp-json-command-var-"));
  globalDir = mkdtempSync(join(repo, ".tmp", "mcp-json-command-var-global-"));
  mkdirSync(join(dir, ".toolwright"));
  const entry = {
    command: "${TW_NODE}",
    args: ["${TW_MEMORY_BIN}"],
    cwd: "${TW_SERVER_CWD:-.}",
    env: { MEMORY_FILE_PATH: "${TW_MEMORY_DIR}/memory.jsonl" },
  };
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: { memory: entry } }, null, 2));
});

afterAll(() => {
  for (const key of ["TW_NODE", "TW_MEMORY_BIN", "TW_MEMORY_DIR"]) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(globalDir, { recursive: true, force: true });
});

const cli = (argv: string[], env: NodeJS.ProcessEnv) =>
  runToolwright(argv, { cwd: dir, env: { XDG_CONFIG_HOME: globalDir, ...env }, killAfterMs: 90_000 });

describe("${VAR} in command", () => {
  it("init keeps the reference; pull starts the server through it; gen's caller makes a typed call", async () => {
    const env = { ...VARS, TW_MEMORY_DIR: dir };
    const init = await cli(["init"], env);
    expect(init.output).toMatch(/wrote design\.ts with 1 server \(memory\)/);
    expect(init.status).toBe(0);
    expect(readFileSync(join(dir, "design.ts"), "utf8")).not.toContain(process.execPath);

    const pull = await cli(["pull", "design.ts"], env);
    expect(pull.output).toMatch(/memory 9/);
    expect(pull.status).toBe(0);

    const gen = await cli(["gen", "design.ts", "--out", "src/gen"], env);
    expect(gen.status).toBe(0);
    const caller = readFileSync(join(dir, "src", "gen", "memory", "caller.gen.ts"), "utf8");
    expect(caller).toContain('expandProcessEnv("${TW_NODE}"');
    const generated = readdirSync(join(dir, "src", "gen"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
      .join("\n");
    expect(generated).not.toContain(process.execPath);
    expect(generated).not.toContain(memoryBin);

    Object.assign(process.env, env);
    const mod = (await import(pathToFileURL(join(dir, "src", "gen", "memory", "index.ts")).href)) as MemoryModule;
    const memory = mod.createMemoryCaller();
    try {
      const client = mod.createMemoryClient(memory);
      const created = await client.createEntities({ entities: [{ name: "venv", entityType: "path", observations: ["expanded"] }] });
      expect(created.ok).toBe(true);
      const graph = await client.readGraph({});
      expect(graph.ok && graph.value.entities.map((e) => e.name)).toEqual(["venv"]);
      expect(readFileSync(join(dir, "memory.jsonl"), "utf8")).toContain("expanded");
    } finally {
      await memory.close();
    }
  }, 240_000);

  it("the manager starts the server through ${TW_NODE} and calls it", async () => {
    const config = loadMcpConfig({ projectDir: dir, globalDir, env: { ...VARS, TW_MEMORY_DIR: dir } });
    expect(config.mcpServers.memory).toMatchObject({ command: process.execPath, args: [memoryBin], cwd: "." });
    const manager = createMcpManager(config);
    try {
      const statuses = await manager.start();
      expect(statuses.map((s) => s.state)).not.toContain("failed");
      const graph = await manager.callTool("memory.read_graph", {});
      expect(graph.ok).toBe(true);
    } finally {
      await manager.stop();
    }
  }, 60_000);

  it("an unset variable in command names itself, the server and the field (pull and the manager)", async () => {
    delete process.env.TW_NODE;
    // undefined: the child's environment has no TW_NODE at all.
    const pull = await cli(["pull", "design.ts"], { TW_NODE: undefined, TW_MEMORY_BIN: memoryBin, TW_MEMORY_DIR: dir });
    expect(pull.status).not.toBe(0);
    expect(pull.output).toContain("TW_NODE is not set");
    expect(pull.output).toContain('server "memory"');
    expect(pull.output).toContain("/mcpServers/memory/command");

    let error: unknown;
    try {
      loadMcpConfig({ projectDir: dir, globalDir, env: { TW_MEMORY_BIN: memoryBin, TW_MEMORY_DIR: dir } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpConfigError);
    expect(error).toMatchObject({ variable: "TW_NODE", pointer: "/mcpServers/memory/command" });
    expect((error as Error).message).toContain('server "memory"');
    // Set but empty: refused before anything is spawned, naming the field and what it expanded.
    expect(() => loadMcpConfig({ projectDir: dir, globalDir, env: { TW_NODE: "", TW_MEMORY_BIN: memoryBin, TW_MEMORY_DIR: dir } })).toThrow(
      /server "memory" has an empty command at \/mcpServers\/memory\/command after expanding "\$\{TW_NODE\}"/,
    );
  }, 120_000);
});
