/**
 * Design for the recovery example: the tools the scripted model uses from three reference servers,
 * declared inline with the schemas those servers report in tools/list.
 * Generate with: npx tsx packages/codegen/src/bin.ts gen examples/recovery/design.ts --out examples/recovery/src/gen
 */
import { agent, array, design, fromExternalMCP, number, object, string, toolset } from "@toolwright/dsl";

const readOnly = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const;

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
    annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
    examples: [{ entities: [{ name: "Ada Lovelace", entityType: "person", observations: ["wrote the first program"] }] }],
  });
  t.tool("create_relations", {
    description: "Create multiple new relations between entities in the knowledge graph",
    input: object({ relations: array(object({ from: string(), to: string(), relationType: string() })) }),
    examples: [{ relations: [{ from: "Ada Lovelace", to: "Analytical Engine", relationType: "programmed" }] }],
  });
  t.tool("search_nodes", {
    description: "Search for nodes in the knowledge graph based on a query",
    input: object({ query: string().describe("The search query to match against entity names, types, and observation content") }),
    annotations: readOnly,
    examples: [{ query: "Ada" }],
  });
});

const files = toolset("files", fromExternalMCP("filesystem"), (t) => {
  t.description("Sandboxed file access (server-filesystem).");
  t.tool("read_text_file", {
    description: "Read the complete contents of a file as text",
    input: object({
      path: string().describe("Absolute path of a file inside an allowed directory"),
      head: number().describe("If provided, returns only the first N lines of the file").optional(),
      tail: number().describe("If provided, returns only the last N lines of the file").optional(),
    }),
    annotations: readOnly,
    examples: [{ path: "/allowed/dir/notes.txt" }],
  });
  t.tool("list_allowed_directories", {
    description: "Returns the list of directories that this server is allowed to access",
    input: object({}),
    annotations: readOnly,
    examples: [{}],
  });
});

const everything = toolset("everything", fromExternalMCP("everything"), (t) => {
  t.tool("trigger-long-running-operation", {
    description: "Demonstrates a long running operation with progress updates",
    input: object({
      duration: number().describe("Duration of the operation in seconds").optional(),
      steps: number().describe("Number of steps in the operation").optional(),
    }),
    annotations: readOnly,
    examples: [{ duration: 2, steps: 2 }],
  });
});

/** The agent the scripted model plays; its run policy is enforced by the runtime. */
const researcher = agent("researcher", {
  use: [memory, files, everything],
  runPolicy: { maxToolCalls: 9, maxConsecutiveFailedToolCalls: 3, toolTimeout: 1500 },
});

export default design({ toolsets: [memory, files, everything], agents: [researcher] });
