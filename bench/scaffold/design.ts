/**
 * The benchmark's echo server declared with the DSL: the same tools the hand-written, SDK and tmcp
 * echo servers serve. `bench/sections/server.ts` runs `toolwright gen` on it and serves the scaffold.
 */
import { array, design, integer, literal, mcpServer, object, string, union } from "@toolwright/dsl";

/** The `order` tool's input: a nested object with enums and a union, like bench/servers/order-schema.mjs. */
const order = object({
  customer: object({ name: string(), tier: string({ enum: ["free", "pro", "team"] }) }),
  items: array(object({ sku: string(), qty: integer({ minimum: 1 }), kind: string({ enum: ["physical", "digital", "service"] }) }), {
    minItems: 1,
  }),
  shipping: union(
    object({ method: literal("pickup"), store: string() }),
    object({
      method: literal("post"),
      address: object({ street: string(), city: string(), zip: string(), country: string({ enum: ["NL", "DE", "FR", "GB", "US"] }) }),
    }),
  ),
});

/** `echo` with a `text` argument, like bench/servers/raw-echo-stdio.mjs, and `order`. */
export const benchEcho = mcpServer("bench-echo", { version: "1.0.0" }, (t) => {
  t.tool("echo", { description: "Returns its text argument.", input: object({ text: string() }) });
  t.tool("order", { description: "Summarises an order.", input: order });
});

export default design({ servers: [benchEcho] });
