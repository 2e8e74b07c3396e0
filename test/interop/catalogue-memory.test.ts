/**
 * Real catalogue: every tool of server-memory (9, all with an outputSchema) called through the
 * client generated from the pulled lock (examples/catalogues), with typed structured results
 * decoded by the generated validators. MEMORY_FILE_PATH is a fresh temp file.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolResult } from "@toolwright/runtime";
import { checkDrift } from "@toolwright/runtime/catalogue";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkMemoryDrift, createMemoryClient, type MemoryClient, memorySpecs } from "../../examples/catalogues/src/gen/memory/index.js";
import { memoryCatalogue as goldenCatalogue } from "../golden/live-catalogue/expected/memory/index.js";

const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve("@modelcontextprotocol/server-memory/package.json")), "dist/index.js");

let dir = "";
let caller: StdioCaller;
let memory: MemoryClient;
const called = new Set<string>();

function value<R>(name: string, result: ToolResult<R>): R {
  called.add(name);
  if (!result.ok) throw new Error(`${name} failed: ${result.failure.kind} ${result.failure.message}`);
  // Every memory tool has an outputSchema: the value is the decoded structuredContent itself.
  expect(result.value).toBe(result.structured);
  return result.value;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tw-catalogue-memory-"));
  caller = createStdioCaller({ name: "memory", command: process.execPath, args: [bin], env: [`MEMORY_FILE_PATH=${join(dir, "m.jsonl")}`] });
  memory = createMemoryClient(caller);
});
afterAll(async () => {
  await caller.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("server-memory through the generated client", () => {
  it("the live catalogue matches the lock (no drift under the fail policy)", async () => {
    const report = await checkMemoryDrift(caller, { policy: "fail" });
    expect(report).toEqual({ ok: true, server: "memory", drift: [] });
  });

  it("the live-catalogue golden lock (with an inline override) also matches the live server", async () => {
    expect(await checkDrift(caller, goldenCatalogue, { policy: "fail" })).toEqual({ ok: true, server: "memory", drift: [] });
  });

  it("calls every tool with typed results", async () => {
    const created = value(
      "create_entities",
      await memory.createEntities({
        entities: [
          { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
          { name: "Engine", entityType: "machine", observations: ["analytical"] },
        ],
      }),
    );
    expect(created.entities.map((e) => e.name)).toEqual(["Ada", "Engine"]);
    const rel = value(
      "create_relations",
      await memory.createRelations({ relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] }),
    );
    expect(rel.relations).toEqual([{ from: "Ada", to: "Engine", relationType: "programmed" }]);
    const added = value(
      "add_observations",
      await memory.addObservations({ observations: [{ entityName: "Ada", contents: ["born 1815"] }] }),
    );
    expect(added.results).toEqual([{ entityName: "Ada", addedObservations: ["born 1815"] }]);
    const graph = value("read_graph", await memory.readGraph({}));
    expect(graph.entities.find((e) => e.name === "Ada")?.observations).toEqual(["wrote the first program", "born 1815"]);
    expect(graph.relations).toHaveLength(1);
    const found = value("search_nodes", await memory.searchNodes({ query: "analytical" }));
    expect(found.entities.map((e) => e.name)).toEqual(["Engine"]);
    const opened = value("open_nodes", await memory.openNodes({ names: ["Ada"] }));
    expect(opened.entities.map((e) => e.entityType)).toEqual(["person"]);
    const delObs = value(
      "delete_observations",
      await memory.deleteObservations({ deletions: [{ entityName: "Ada", observations: ["born 1815"] }] }),
    );
    expect(delObs.success).toBe(true);
    const delRel = value(
      "delete_relations",
      await memory.deleteRelations({ relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] }),
    );
    expect(delRel.success).toBe(true);
    const delEnt = value("delete_entities", await memory.deleteEntities({ entityNames: ["Engine"] }));
    expect(delEnt.success).toBe(true);
    const after = value("read_graph", await memory.readGraph({}));
    expect(after.entities.map((e) => e.name)).toEqual(["Ada"]);
    expect(after.relations).toEqual([]);
    expect(existsSync(join(dir, "m.jsonl"))).toBe(true);
    expect([...called].sort()).toEqual(memorySpecs.map((s) => s.name).sort());
    expect(called.size).toBe(9);
  });

  it("a payload the schema rejects fails as invalid_call with field issues (generated validator)", async () => {
    // @ts-expect-error entityNames must be an array of strings
    const bad = await memory.deleteEntities({ entityNames: "Ada" });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.failure.kind).toBe("invalid_call");
    expect(!bad.ok && bad.failure.recovery.issues?.map((i) => i.field)).toEqual(["entityNames"]);
  });
});
