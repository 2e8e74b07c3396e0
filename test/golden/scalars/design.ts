/** Golden case: scalar schema families (string formats and bounds, numbers, integers, booleans, enums). */
import { boolean, design, enumOf, fromExternalMCP, integer, number, object, string, toolset } from "@toolwright/dsl";

const scalars = toolset("scalars", fromExternalMCP("scalar-server"), (t) => {
  t.tool("make_user", {
    description: "Creates a user.",
    input: object({
      email: string({ format: "email" }).describe("Login e-mail").examples("ada@example.com"),
      handle: string({ pattern: "^[a-z][a-z0-9_]{2,15}$", minLength: 3, maxLength: 16 }),
      born: string({ format: "date" }).optional(),
      age: integer({ minimum: 0, maximum: 150 }).optional(),
      score: number({ exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.01 }).optional(),
      admin: boolean().describe("Grants every permission").optional(),
      role: enumOf(["reader", "writer", "owner"]),
    }),
    output: object({ id: string({ format: "uuid" }), created: string({ format: "date-time" }) }),
    annotations: { destructive: false, idempotent: false },
    tags: ["users", "write"],
    examples: [
      { email: "ada@example.com", handle: "ada", role: "owner" },
      { email: "grace@example.com", handle: "grace", role: "reader", admin: false },
    ],
    requiresConfirmation: true,
    meta: { owner: "identity-team" },
  });
  t.tool("ping", { input: object({}) });
});

export default design({ toolsets: [scalars] });
