/**
 * Design for the durable example: the server-memory tools a librarian agent uses, declared inline
 * with the schemas and annotations server-memory reports in tools/list (writes are not idempotent).
 * Generate with: npx tsx packages/codegen/src/cli.ts gen examples/durable/design.ts --out examples/durable/src/gen
 */
import { array, design, fromExternalMCP, object, string, toolset } from "@toolwright/dsl";

const write = { readOnly: false, destructive: false, idempotent: false, openWorld: false } as const;
const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;

const memory = toolset("memory", fromExternalMCP("memory"), (t) => {
  t.description("Knowledge graph memory (server-memory).");
  t.tool("create_entities", {
    description: "Create multiple new entities in the knowledge graph",
    input: object({
      entities: array(
        object({
          name: string().describe("The name of the entity"),
          entityType: string().describe("The type of the entity"),
          observations: array(string()).describe("An array of observation contents associated with the entity"),
        }),
      ),
    }),
    annotations: write,
    examples: [{ entities: [{ name: "Ada Lovelace", entityType: "person", observations: ["wrote the first program"] }] }],
  });
  t.tool("create_relations", {
    description: "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice",
    input: object({
      relations: array(
        object({
          from: string().describe("The name of the entity where the relation starts"),
          to: string().describe("The name of the entity where the relation ends"),
          relationType: string().describe("The type of the relation"),
        }),
      ),
    }),
    annotations: write,
    examples: [{ relations: [{ from: "Ada Lovelace", to: "Analytical Engine", relationType: "programmed" }] }],
  });
  t.tool("add_observations", {
    description: "Add new observations to existing entities in the knowledge graph",
    input: object({
      observations: array(
        object({
          entityName: string().describe("The name of the entity to add the observations to"),
          contents: array(string()).describe("An array of observation contents to add"),
        }),
      ),
    }),
    annotations: write,
    examples: [{ observations: [{ entityName: "Ada Lovelace", contents: ["born in 1815"] }] }],
  });
  t.tool("open_nodes", {
    description: "Open specific nodes in the knowledge graph by their names",
    input: object({ names: array(string()).describe("An array of entity names to retrieve") }),
    annotations: read,
    examples: [{ names: ["Ada Lovelace"] }],
  });
  t.tool("read_graph", {
    description: "Read the entire knowledge graph",
    input: object({}),
    annotations: read,
    examples: [{}],
  });
});

export default design({ toolsets: [memory] });
