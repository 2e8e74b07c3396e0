// The benchmark's non-trivial input, in zod for the SDK and tmcp echo servers: a nested object with
// enums and a union (the same shape as the `order` tool of bench/scaffold/design.ts), and the one
// answer every server gives for it. Used only by the benchmark.
import { z } from "zod";

const tier = z.enum(["free", "pro", "team"]);
const item = z.object({ sku: z.string(), qty: z.number().int().min(1), kind: z.enum(["physical", "digital", "service"]) });
const pickup = z.object({ method: z.literal("pickup"), store: z.string() });
const post = z.object({
  method: z.literal("post"),
  address: z.object({ street: z.string(), city: z.string(), zip: z.string(), country: z.enum(["NL", "DE", "FR", "GB", "US"]) }),
});

/** The `order` tool's arguments as a zod raw shape (SDK `registerTool`'s `inputSchema`). */
export const orderShape = {
  customer: z.object({ name: z.string(), tier }),
  items: z.array(item).min(1),
  shipping: z.union([pickup, post]),
};

/** The same as one zod object (tmcp's `schema`). */
export const orderSchema = z.object(orderShape);

export { orderText } from "./order-text.mjs";
