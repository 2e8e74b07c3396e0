/** Golden case: anyOf unions, oneOf, nullable, literal/const, enum of mixed literals. */
import {
  design,
  enumOf,
  fromExternalMCP,
  integer,
  literal,
  nullable,
  number,
  object,
  oneOf,
  string,
  toolset,
  union,
} from "@toolwright/dsl";

const shapes = toolset("shapes", fromExternalMCP("shape-server"), (t) => {
  t.tool("area", {
    description: "Computes the area of a shape.",
    input: object({
      shape: oneOf(
        object({ kind: literal("circle"), radius: number({ exclusiveMinimum: 0 }) }),
        object({ kind: literal("rect"), width: number(), height: number() }),
      ),
      unit: nullable(enumOf(["cm", "m"])),
      precision: union(integer({ minimum: 0, maximum: 10 }), literal("auto")).optional(),
      label: nullable(string()).optional(),
    }),
    output: object({ area: number(), unit: string(), mode: literal(1) }),
  });
});

export default design({ toolsets: [shapes] });
