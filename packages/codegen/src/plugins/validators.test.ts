import type { DesignDecl } from "@toolwright/dsl";
import { describe, expect, it } from "vitest";
import { DesignError } from "../errors.js";
import type { IrToolset } from "../ir/ir.js";
import { resolveDesign } from "../resolve/resolve.js";
import { validatorSource } from "./validators.js";

function toolset(input: object): IrToolset {
  const d = {
    kind: "design",
    toolsets: [
      {
        kind: "toolset",
        name: "w",
        provider: { kind: "external-mcp", server: "w", suite: "w" },
        tools: [{ kind: "tool", name: "t", input }],
      },
    ],
    agents: [],
    servers: [],
  };
  return resolveDesign(d as unknown as DesignDecl, { file: "d.ts" }).toolsets[0]!;
}

describe("validator source", () => {
  it("imports only runtime helpers, never ajv, and exports one validator per schema", () => {
    const { js, names } = validatorSource(
      toolset({
        type: "object",
        properties: { s: { type: "string", minLength: 2, format: "date" }, u: { type: "array", uniqueItems: true } },
      }),
      "d.ts",
    );
    expect(names).toEqual(["validateTPayload"]);
    expect(js).toMatch(/^import \{ deepEqual, formats, ucs2length \} from "@toolwright\/runtime\/codegen";/);
    expect(js).not.toMatch(/require\(|from "ajv/);
    expect(js).toMatch(/export const validateTPayload = /);
  });

  it("a schema ajv cannot compile is a design error naming the tool", () => {
    const ts = toolset({ type: "object" });
    // Bypass the resolver's checks to reach the compile step with a schema it would have refused.
    const broken = {
      ...ts,
      tools: [{ ...ts.tools[0]!, input: { kind: "schema", json: { type: "object", properties: { a: { $ref: "#/nowhere" } } } } }],
    } as IrToolset;
    expect(() => validatorSource(broken, "d.ts")).toThrow(DesignError);
    expect(() => validatorSource(broken, "d.ts")).toThrow(/^d\.ts toolset "w" tool "t": input schema: invalid schema: .*nowhere/);
  });
});
