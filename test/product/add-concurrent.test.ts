/**
 * Concurrent `toolwright add` runs through the built bin (packages/codegen/dist/bin.js): 12 runs,
 * each adding a different server to one design at the same moment, in several rounds (it is a race).
 * Every run that exits 0 must find its server in the final design, and the design must still load.
 * Before the edit lock and the re-read before write, 4-8 of 12 successful runs were lost.
 * Then a "server" that edits the design while `add --inline` lists its tools: the edit is planned
 * again on the new text, so both the other edit and the added server are kept.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDesign } from "../../packages/codegen/src/load/load-design.js";
import { runToolwright } from "../support/toolwright-cli.js";
import { REPO } from "./support.js";

const RUNS = 12;
const ROUNDS = 2;
const names = Array.from({ length: RUNS }, (_, i) => `server-${String(i + 1).padStart(2, "0")}`);
const STARTER = 'import { design } from "@toolwright/dsl";\n\nexport default design({ toolsets: [] });\n';
let dir = "";

beforeAll(() => {
  mkdirSync(join(REPO, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(REPO, ".tmp", "add-concurrent-"));
  mkdirSync(join(dir, ".toolwright"));
  const servers = Object.fromEntries(names.map((n) => [n, { command: "node", args: [`${n}.js`] }]));
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: servers }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("concurrent toolwright add", () => {
  // Timeout generous: 24 CLI processes on a shared, loaded machine.
  it(`${RUNS} parallel adds of different servers into one design: no success is lost`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      writeFileSync(join(dir, "design.ts"), STARTER);
      const runs = await Promise.all(names.map((n) => runToolwright(["add", n], { cwd: dir, killAfterMs: 240_000 })));
      const loaded = await loadDesign("design.ts", dir);
      const present = new Set(loaded.design.servers.map((s) => s.name));
      const toolsets = new Set(loaded.design.toolsets.map((t) => t.name));
      for (const [i, run] of runs.entries()) {
        expect(run.killed, `round ${round} ${names[i]}: ${run.output}`).toBe(false);
        // Runs take turns: each one succeeds, and a success is in the file.
        expect(run.status, `round ${round} ${names[i]}: ${run.output}`).toBe(0);
        expect(present.has(names[i]!), `round ${round}: ${names[i]} exited 0 but is missing`).toBe(true);
        expect(toolsets.has(names[i]!), `round ${round}: toolset ${names[i]} missing`).toBe(true);
      }
      expect(present.size).toBe(RUNS);
      // The lock is released and no temporary file is left next to the design.
      expect(readdirSync(dir).sort()).toEqual([".toolwright", "design.ts"]);
    }
  }, 900_000);

  it("re-plans an --inline edit when another program changes the design meanwhile", async () => {
    const memory = join(REPO, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
    const design = join(dir, "touched.ts");
    // The server edits the design when it starts, that is while add lists its tools, before add writes.
    const touch = `require("node:fs").appendFileSync(${JSON.stringify(design)}, "// edited meanwhile\\n"); import(${JSON.stringify(`file://${memory}`)});`;
    writeFileSync(
      join(dir, "touch.json"),
      JSON.stringify({
        mcpServers: { memory: { command: process.execPath, args: ["-e", touch], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } } },
      }),
    );
    writeFileSync(design, STARTER);
    const run = await runToolwright(["add", "memory", "--inline", "--from", "touch.json", "--design", "touched.ts"], { cwd: dir });
    expect(run.status, run.output).toBe(0);
    const text = readFileSync(design, "utf8");
    expect(text).toContain("// edited meanwhile\n");
    expect(text).toContain('t.tool("create_entities"');
    const loaded = await loadDesign("touched.ts", dir);
    expect(loaded.design.toolsets.map((t) => t.name)).toEqual(["memory"]);
    // The live catalogue went into the lock, so gen and the drift check have it.
    expect(existsSync(join(dir, "touched.lock.json"))).toBe(true);
  }, 120_000);
});
