/** Golden case: raw draft-07 schemas as MCP servers send them ($schema, definitions, tuple items). */
import { design, fromExternalMCP, raw, toolset } from "@toolwright/dsl";

const legacy = toolset("legacy", fromExternalMCP("legacy-server"), (t) => {
  t.tool("plot", {
    description: "Plots points.",
    input: raw({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false } },
      properties: {
        points: { type: "array", items: { $ref: "#/definitions/point" }, minItems: 1 },
        color: { type: "string", enum: ["red", "green"], default: "red" },
      },
      required: ["points"],
    }),
    output: raw({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { url: { type: "string", format: "uri" } },
    }),
  });
});

export default design({ toolsets: [legacy] });
