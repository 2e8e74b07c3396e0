/**
 * Golden case: a pulled surface. The lock records the server's prompts, resources and resource
 * templates besides its one tool; the client gets a typed method for each, and the drift
 * catalogue their fingerprints. Two prompts whose names make the same method ("summarize",
 * "Summarize") keep both, the second with a hash suffix (a pulled name cannot be changed); the
 * toolset's own `t.resource` replaces the pulled resource of the same URI.
 */
import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";

const notes = externalServer("notes", { command: "node", args: ["notes-server.js"] });

export default design({
  toolsets: [
    toolset("notes", fromMCP(notes), (t) => {
      t.resource("notes://index", { name: "index", description: "The index, as this design reads it", mimeType: "application/json" });
    }),
  ],
});
