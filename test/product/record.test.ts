/**
 * `toolwright record` as users get it: the packed tarballs (dsl, runtime, codegen, testkit)
 * installed into a fresh project outside the repository, the installed bin recording a scripted
 * session on the real server-memory over stdio, re-recording to the same bytes, keeping a token
 * from the environment out of the cassette, and the installed `@toolwright/testkit` replaying it.
 * Packs the built workspaces (`npm test` builds first).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_FLAGS, type PackedPackage, packWorkspaces, run } from "./support.js";

const require = createRequire(import.meta.url);
const MEMORY = join(dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist/index.js");
const TOKEN = "ghp_Pr0ductT3stT0kenV4lue0123456789abcdEF";
let root = "";
let app = "";

const toolwright = (...args: string[]) => run("npx", ["--no-install", "toolwright", ...args], app, 180_000, { TW_RECORD_TOKEN: TOKEN });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "tw-record-"));
  app = join(root, "app");
  mkdirSync(app);
  const packed: readonly PackedPackage[] = await packWorkspaces(app);
  const wanted = ["@toolwright/dsl", "@toolwright/runtime", "@toolwright/codegen", "@toolwright/testkit"];
  const tarballs = packed.filter((p) => wanted.includes(p.name)).map((p) => `./${p.filename}`);
  expect(tarballs).toHaveLength(4);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "record-app", private: true, type: "module" }));
  const install = await run("npm", ["install", ...tarballs, ...NPM_FLAGS], app, 600_000);
  expect(install.code, install.stderr).toBe(0);
  // The memory file is a literal path in a temp folder; the token is passed through by name.
  const design = [
    'import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";',
    `const memory = externalServer("memory", { command: "node", args: [${JSON.stringify(MEMORY)}], env: [${JSON.stringify(`MEMORY_FILE_PATH=${join(root, "memory.jsonl")}`)}, "TW_RECORD_TOKEN"] });`,
    'export default design({ toolsets: [toolset("memory", fromMCP(memory))] });',
    "",
  ].join("\n");
  writeFileSync(join(app, "design.ts"), design);
  const pulled = await toolwright("pull", "design.ts");
  expect(pulled.code, pulled.stderr).toBe(0);
}, 900_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("toolwright record (installed bin)", { timeout: 900_000 }, () => {
  it("records the read-only tools of server-memory, identically twice, with no secret, and the installed testkit replays it", async () => {
    const args = ["record", "design.ts", "--server", "memory", "--tool", "read_graph", "--tool", "search_nodes", "--tool", "open_nodes"];
    const first = await toolwright(...args, "--out", "first.cassette.jsonl");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('toolwright record: server "memory": 3 call(s) recorded');
    const second = await toolwright(...args, "--out", "second.cassette.jsonl", "--json");
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ ok: true, command: "record", server: "memory", out: "second.cassette.jsonl" });
    const text = readFileSync(join(app, "first.cassette.jsonl"), "utf8");
    expect(readFileSync(join(app, "second.cassette.jsonl"), "utf8")).toBe(text);
    expect(text.split("\n")[0]).toBe('{"cassette":1,"era":"2025-11-25","server":"memory","transport":"stdio"}');
    expect(text).toContain('"name":"read_graph"');
    expect(text).not.toContain(TOKEN);
    // The installed testkit replays it: no process, no network, the same answer as recorded.
    const script = [
      'import { readFileSync } from "node:fs";',
      'import { createReplayCaller } from "@toolwright/testkit";',
      'const caller = createReplayCaller(readFileSync("first.cassette.jsonl", "utf8"), { mode: "matching" });',
      'const graph = await caller.callTool({ name: "read_graph", arguments: {} });',
      'const missing = await caller.callTool({ name: "delete_entities", arguments: { entityNames: ["x"] } });',
      "await caller.close();",
      "console.log(JSON.stringify({ graph, missing }));",
      "",
    ].join("\n");
    writeFileSync(join(app, "replay.mjs"), script);
    const replayed = await run(process.execPath, ["replay.mjs"], app, 60_000);
    expect(replayed.code, replayed.stderr).toBe(0);
    const { graph, missing } = JSON.parse(replayed.stdout);
    expect(graph.ok).toBe(true);
    expect(graph.value.structuredContent).toEqual({ entities: [], relations: [] });
    expect(missing.ok).toBe(false);
    expect(missing.failure.message).toContain("the cassette holds no call tools/call delete_entities");
  });

  it("names the problem for an unknown server or tool, and writes nothing", async () => {
    const server = await toolwright("record", "design.ts", "--server", "nope", "--out", "x.jsonl");
    expect(server.code).toBe(2);
    expect(server.stderr).toContain("--server nope: no externalServer of that name (have: memory)");
    const tool = await toolwright("record", "design.ts", "--tool", "nope", "--out", "x.jsonl");
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain("--tool nope: the server's toolsets have no tool of that name");
    expect(() => readFileSync(join(app, "x.jsonl"))).toThrow();
  });
});
