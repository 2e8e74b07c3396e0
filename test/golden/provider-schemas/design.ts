/**
 * Golden case: `gen --providers openai,anthropic,gemini` (options.json). Optional fields, a name
 * Gemini rejects, formats strict mode drops, a tagged union and a $ref'd named schema, so the
 * specs carry each provider's rewritten input schema.
 */
import { array, design, enumOf, fromExternalMCP, integer, literal, named, object, string, toolset, union } from "@toolwright/dsl";

const owner = named("Owner", object({ login: string(), team: string().optional() }));

const search = toolset("search", fromExternalMCP("search-server"), (t) => {
  t.tool("find_documents", {
    description: "Finds documents.",
    input: object({
      query: string({ minLength: 1 }).describe("Words to look for"),
      "file-path": string().describe("Folder to search").optional(),
      limit: integer({ minimum: 1, maximum: 50 }).optional(),
      since: string({ format: "date" }).optional(),
      homepage: string({ format: "uri" }).optional(),
      mode: enumOf(["fast", "full"]).optional(),
      filter: union(object({ kind: literal("tag"), tag: string() }), object({ kind: literal("owner"), owner })).optional(),
      tags: array(string(), { maxItems: 5 }).optional(),
    }),
    annotations: { readOnly: true },
  });
  t.tool("ping", { input: object({}) });
});

export default design({ toolsets: [search] });
