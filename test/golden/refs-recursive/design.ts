/** Golden case: named types shared through $defs, recursive types, and refs shared by two tools. */
import { array, design, fromExternalMCP, named, object, raw, string, toolset } from "@toolwright/dsl";

interface TreeNode {
  name: string;
  children?: TreeNode[];
}

const address = named("Address", object({ street: string(), city: string() }));
const tree = named<TreeNode>("TreeNode", (self) => object({ name: string(), children: array(self).optional() }));

const files = toolset("files", fromExternalMCP("file-server"), (t) => {
  t.tool("ship", { input: object({ to: address, from: address.optional() }) });
  t.tool("mkdirs", { input: object({ root: tree }), output: object({ created: tree }) });
  t.tool("linked", {
    description: "A raw schema whose root refers to itself.",
    input: raw({
      type: "object",
      properties: { value: { type: "string" }, next: { $ref: "#" } },
      required: ["value"],
      additionalProperties: false,
    }),
  });
});

export default design({ toolsets: [files] });
