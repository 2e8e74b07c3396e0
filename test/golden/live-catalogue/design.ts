/**
 * Golden case: a live-catalogue lock written by a real `toolwright pull` of server-memory (sorted
 * tools, sorted keys, per-tool and server fingerprints). One pulled tool is overridden inline with
 * a stricter schema; drift is still judged against what the server listed (the lock's
 * fingerprints), so the generated checkMemoryDrift stays exact.
 * Refresh: toolwright pull test/golden/live-catalogue/design.ts
 */
import { design, externalServer, fromMCP, object, string, toolset } from "@toolwright/dsl";

const memory = externalServer(
  "memory",
  {
    command: "node",
    args: ["../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js"],
    env: ["MEMORY_FILE_PATH=/dev/null"],
  },
  (t) => {
    t.tool("search_nodes", {
      title: "Search nodes",
      description: "Search the knowledge graph (inline override: non-empty query of at most 200 characters)",
      input: object({ query: string({ minLength: 1, maxLength: 200 }).describe("Text matched against names, types and observations") }),
      annotations: { readOnly: true },
    });
  },
);

export default design({ toolsets: [toolset("memory", fromMCP(memory))] });
