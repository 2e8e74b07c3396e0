/**
 * Interop: the real server-memory over stdio with MEMORY_FILE_PATH in a temp folder (never the
 * package's own file). State persists across a restart of the server.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CallResponse } from "@toolwright/runtime/caller";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve("@modelcontextprotocol/server-memory/package.json"));
const memory = join(packageDir, "dist/index.js");

let dir = "";
let file = "";
const open: StdioCaller[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tw-memory-"));
  file = join(dir, "memory.jsonl");
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  rmSync(dir, { recursive: true, force: true });
});

function start(): StdioCaller {
  const caller = createStdioCaller({ command: process.execPath, args: [memory], name: "memory", env: [`MEMORY_FILE_PATH=${file}`] });
  open.push(caller);
  return caller;
}
function structured(response: CallResponse): unknown {
  if (!response.ok) throw new Error(`call failed: ${response.failure.kind} ${response.failure.message}`);
  expect(response.value.isError).not.toBe(true);
  return response.value.structuredContent;
}

describe("server-memory over stdio", () => {
  it("lists 9 tools, each with an outputSchema and annotations", async () => {
    const listed = await start().listTools();
    if (!listed.ok) throw new Error(listed.failure.message);
    expect(listed.value.map((t) => t.name).sort()).toEqual([
      "add_observations",
      "create_entities",
      "create_relations",
      "delete_entities",
      "delete_observations",
      "delete_relations",
      "open_nodes",
      "read_graph",
      "search_nodes",
    ]);
    expect(listed.value.every((t) => t.outputSchema && t.annotations)).toBe(true);
    expect(listed.value.find((t) => t.name === "read_graph")?.annotations?.readOnlyHint).toBe(true);
  });

  it("builds a graph in the temp file, and the graph survives a server restart", async () => {
    const first = start();
    structured(
      await first.callTool({
        name: "create_entities",
        arguments: {
          entities: [
            { name: "Ada", entityType: "person", observations: ["wrote the first program"] },
            { name: "Engine", entityType: "machine", observations: [] },
          ],
        },
      }),
    );
    structured(
      await first.callTool({
        name: "create_relations",
        arguments: { relations: [{ from: "Ada", to: "Engine", relationType: "programmed" }] },
      }),
    );
    structured(
      await first.callTool({ name: "add_observations", arguments: { observations: [{ entityName: "Engine", contents: ["analytical"] }] } }),
    );
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8")).toContain('"name":"Ada"');
    await first.close();

    const second = start();
    const graph = structured(await second.callTool({ name: "read_graph", arguments: {} })) as {
      entities: { name: string; observations: string[] }[];
      relations: unknown[];
    };
    expect(graph.entities.map((e) => e.name).sort()).toEqual(["Ada", "Engine"]);
    expect(graph.entities.find((e) => e.name === "Engine")?.observations).toEqual(["analytical"]);
    expect(graph.relations).toEqual([{ from: "Ada", to: "Engine", relationType: "programmed" }]);

    const found = structured(await second.callTool({ name: "search_nodes", arguments: { query: "program" } })) as {
      entities: { name: string }[];
    };
    expect(found.entities.map((e) => e.name)).toContain("Ada");

    structured(await second.callTool({ name: "delete_entities", arguments: { entityNames: ["Engine"] } }));
    const after = structured(await second.callTool({ name: "open_nodes", arguments: { names: ["Ada", "Engine"] } })) as {
      entities: { name: string }[];
      relations: unknown[];
    };
    expect(after.entities.map((e) => e.name)).toEqual(["Ada"]);
    expect(after.relations).toEqual([]);
  });

  it("bad arguments come back as a tool error value, not a crash", async () => {
    const caller = start();
    const response = await caller.callTool({ name: "create_entities", arguments: { entities: "not-an-array" } });
    const isErr = response.ok ? response.value.isError === true : response.failure.kind === "invalid_call";
    expect(isErr).toBe(true);
    expect(structured(await caller.callTool({ name: "read_graph", arguments: {} }))).toEqual({ entities: [], relations: [] });
  });
});
