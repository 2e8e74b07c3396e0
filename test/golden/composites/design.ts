/** Golden case: arrays (items, bounds, uniqueItems), nested objects (closed and open), records. */
import { array, design, fromExternalMCP, integer, number, object, record, string, toolset } from "@toolwright/dsl";

const inventory = toolset("inventory", fromExternalMCP("inventory-server"), (t) => {
  t.tool("put_items", {
    description: "Stores items in a bin.",
    input: object({
      bin: object({ aisle: integer({ minimum: 1 }), shelf: string({ minLength: 1 }) }).describe("Where the items go"),
      items: array(object({ sku: string({ pattern: "^[A-Z]{3}-[0-9]{4}$" }), count: integer({ minimum: 1 }) }), {
        minItems: 1,
        maxItems: 50,
      }),
      labels: array(string(), { uniqueItems: true }).optional(),
      attributes: record(string()).describe("Free-form attributes").optional(),
      extra: object({ note: string().optional() }, { closed: false }).optional(),
    }),
    output: object({ stored: integer(), weights: record(number()) }),
  });
});

export default design({ toolsets: [inventory] });
