/**
 * A server declared once, in mcp.json: `toolwright init` writes the design from the project's
 * `.toolwright/mcp.json`, `pull` snapshots the real servers through the manager's config loader,
 * `gen` emits `create<Server>Caller`, and that factory starts the real server-memory and
 * server-everything with the entry's allowlisted environment (`${VAR}` read at run time, literals
 * never copied into generated code, the parent's other variables never passed). The manager,
 * reading the same file, sees the same tools; editing the entry makes `gen --check` fail.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMcpManager, loadMcpConfig } from "@toolwright/runtime/manager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../packages/codegen/src/cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const bin = (pkg: string) => join(repo, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");
const LITERAL = "literal-api-token-7f3a9c";
const PARENT_SECRET = "parent-secret-value-91b2";

/** The slice of the generated memory module this test uses (the real types live in the temporary project). */
interface MemoryModule {
  createMemoryCaller(): { close(): Promise<void> };
  createMemoryClient(caller: unknown): {
    createEntities(p: { entities: { name: string; entityType: string; observations: string[] }[] }): Promise<{ ok: boolean }>;
    readGraph(p: object): Promise<{ ok: true; value: { entities: { name: string }[] } } | { ok: false }>;
  };
}

let dir = "";
const saved = { ...process.env };

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

function generatedText(): string {
  const root = join(dir, "src", "gen");
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
    .join("\n");
}

beforeAll(async () => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "mcp-json-caller-"));
  mkdirSync(join(dir, ".toolwright"));
  const config = {
    mcpServers: {
      memory: { command: process.execPath, args: [bin("server-memory")], env: { MEMORY_FILE_PATH: "${TW_TEST_MEMORY_FILE}" } },
      everything: {
        command: process.execPath,
        args: [bin("server-everything"), "stdio"],
        env: { GREETING: "${TW_TEST_GREETING:-hello}", API_TOKEN: LITERAL },
      },
    },
  };
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify(config, null, 2));
  process.env.TW_TEST_MEMORY_FILE = join(dir, "memory.jsonl");
  process.env.TW_TEST_PARENT_SECRET = PARENT_SECRET;
  delete process.env.API_TOKEN;
});

afterAll(() => {
  for (const key of ["TW_TEST_MEMORY_FILE", "TW_TEST_PARENT_SECRET", "TW_TEST_GREETING", "API_TOKEN"]) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("init -> pull -> gen -> create<Server>Caller against real servers", () => {
  it("init writes the design from .toolwright/mcp.json; pull and gen succeed", async () => {
    const init = await cli("init");
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/wrote design\.ts with 2 servers \(memory, everything\) from \.toolwright\/mcp\.json/);
    const design = readFileSync(join(dir, "design.ts"), "utf8");
    expect(design).toContain('externalServer("memory", mcpJson())');
    expect(design).toContain('toolset("everything", fromMCP(everything))');

    const pull = await cli("pull", "design.ts");
    expect(pull.stderr).toBe("");
    expect(pull.code).toBe(0);
    expect(pull.stdout).toMatch(/2 servers \(memory 9, everything \d+\)/);

    const gen = await cli("gen", "design.ts", "--out", "src/gen");
    expect(gen.stderr).toBe("");
    expect(gen.code).toBe(0);
    expect(existsSync(join(dir, "src", "gen", "memory", "caller.gen.ts"))).toBe(true);
  });

  it("generated code holds no env value: literals are withheld, ${VAR} stays a reference", () => {
    const text = generatedText();
    expect(text).not.toContain(LITERAL);
    expect(text).not.toContain(join(dir, "memory.jsonl"));
    expect(text).toContain('expandProcessEnv("${TW_TEST_MEMORY_FILE}"');
  });

  it("createMemoryCaller starts the real server with the entry's env (MEMORY_FILE_PATH read at run time)", async () => {
    const gen = (await import(pathToFileURL(join(dir, "src", "gen", "memory", "index.ts")).href)) as MemoryModule;
    const caller = gen.createMemoryCaller();
    try {
      const client = gen.createMemoryClient(caller);
      const created = await client.createEntities({
        entities: [{ name: "toolwright", entityType: "project", observations: ["declared once"] }],
      });
      expect(created.ok).toBe(true);
      const graph = await client.readGraph({});
      expect(graph.ok && graph.value.entities.map((e) => e.name)).toEqual(["toolwright"]);
      // The server wrote where the mcp.json entry's ${TW_TEST_MEMORY_FILE} pointed when the caller was created.
      expect(readFileSync(join(dir, "memory.jsonl"), "utf8")).toContain("declared once");
    } finally {
      await caller.close();
    }
  });

  it("createEverythingCaller: the child sees GREETING, not the withheld literal nor the parent's other variables", async () => {
    process.env.TW_TEST_GREETING = "from-the-environment";
    const gen = (await import(pathToFileURL(join(dir, "src", "gen", "everything", "index.ts")).href)) as {
      createEverythingCaller: (o?: { env?: readonly string[] }) => { close(): Promise<void> };
      createEverythingClient: (c: unknown) => { getEnv(p: object): Promise<{ ok: boolean; value?: unknown; content?: unknown }> };
    };
    const caller = gen.createEverythingCaller();
    try {
      const env = await gen.createEverythingClient(caller).getEnv({});
      expect(env.ok).toBe(true);
      const text = JSON.stringify(env);
      expect(text).toContain("from-the-environment");
      expect(text).not.toContain(PARENT_SECRET);
      expect(text).not.toContain(LITERAL);
    } finally {
      await caller.close();
    }
    // overrides.env adds entries: the withheld API_TOKEN can be supplied explicitly.
    const withToken = gen.createEverythingCaller({ env: ["API_TOKEN=supplied-by-the-app"] });
    try {
      const env = await gen.createEverythingClient(withToken).getEnv({});
      expect(JSON.stringify(env)).toContain("supplied-by-the-app");
    } finally {
      await withToken.close();
    }
  });

  it("the manager reads the same entries and lists the tools the lock holds", async () => {
    const lock = JSON.parse(readFileSync(join(dir, "design.lock.json"), "utf8")) as {
      servers: { [name: string]: { tools: { name: string }[] } };
    };
    const manager = createMcpManager(loadMcpConfig({ projectDir: dir, globalDir: join(dir, "no-global") }));
    try {
      await manager.start();
      const byServer = (server: string) =>
        manager
          .tools()
          .filter((t) => t.server === server)
          .map((t) => t.name)
          .sort();
      expect(byServer("memory")).toEqual(lock.servers.memory!.tools.map((t) => t.name).sort());
      expect(byServer("everything")).toEqual(lock.servers.everything!.tools.map((t) => t.name).sort());
    } finally {
      await manager.stop();
    }
  });

  it("editing the mcp.json entry makes gen --check name the stale caller", async () => {
    const file = join(dir, ".toolwright", "mcp.json");
    const config = JSON.parse(readFileSync(file, "utf8"));
    config.mcpServers.memory.env.EXTRA = "${TW_TEST_EXTRA:-x}";
    writeFileSync(file, JSON.stringify(config, null, 2));
    const check = await cli("gen", "design.ts", "--out", "src/gen", "--check");
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("stale: src/gen/memory/caller.gen.ts");
  });
});
