import type { DesignDecl } from "@toolwright/dsl";
import { formats } from "@toolwright/runtime/codegen";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { describe, expect, it } from "vitest";
import { DesignError } from "../errors.js";
import type { IrToolset } from "../ir/ir.js";
import { resolveDesign } from "./resolve.js";
import { compileValidators } from "./validators.js";

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

describe("runtime format table", () => {
  it("has every format ajv-formats checks with code rather than an inlined regex", () => {
    const needed = Object.entries(fullFormats)
      .filter(([, def]) => !(def instanceof RegExp))
      .map(([name]) => name);
    expect(needed.length).toBeGreaterThan(5);
    for (const name of needed) expect(formats[name], name).toBeDefined();
  });

  it("each such format really is used by generated code and behaves like ajv-formats", () => {
    const cases: [string, unknown, boolean][] = [
      ["date", "2024-02-29", true],
      ["date", "2023-02-29", false],
      ["time", "23:59:60Z", true],
      ["time", "12:00:00", false],
      ["date-time", "2024-01-31T12:00:00.5+02:00", true],
      ["date-time", "2024-01-31 12:00", false],
      ["iso-time", "12:00:00", true],
      ["iso-date-time", "2024-01-31T12:00:00", true],
      ["uri", "https://example.com/x", true],
      ["uri", "not a uri", false],
      ["byte", "aGVsbG8=", true],
      ["byte", "***", false],
      ["regex", "^[a-z]+$", true],
      ["regex", "([", false],
      ["int32", 2 ** 31, false],
      ["int32", 7, true],
    ];
    for (const [format, value, valid] of cases) {
      const type = typeof value === "number" ? "number" : "string";
      const { code } = toolset({ type: "object", properties: { v: { type, format } }, required: ["v"] }).validators;
      expect(code, format).toMatch(/formats\[|formats\.[a-z]/);
      const entry = formats[format];
      const check =
        typeof entry === "function" ? entry : typeof entry === "object" ? (entry.validate as (v: unknown) => boolean) : () => true;
      expect(check(value as never), `${format} ${JSON.stringify(value)}`).toBe(valid);
      // Parity with ajv-formats itself.
      const def = (fullFormats as { [k: string]: unknown })[format];
      const ajvCheck =
        typeof def === "function"
          ? (def as (v: unknown) => boolean)
          : typeof def === "object" && def !== null
            ? (v: unknown) => {
                const validate = (def as { validate: unknown }).validate;
                return validate instanceof RegExp ? validate.test(String(v)) : (validate as (v: unknown) => boolean)(v);
              }
            : () => true;
      expect(ajvCheck(value), `ajv-formats ${format} ${JSON.stringify(value)}`).toBe(valid);
    }
  });
});

describe("validator source", () => {
  it("needs only runtime helpers, never ajv, and exports one typed validator per schema", () => {
    const { code, helpers } = compileValidators(
      toolset({
        type: "object",
        properties: { s: { type: "string", minLength: 2, format: "date" }, u: { type: "array", uniqueItems: true } },
      }),
      "d.ts",
    );
    expect([...code.matchAll(/^export const (\w+)/gm)].map((m) => m[1])).toEqual(["validateTPayload"]);
    expect(helpers).toEqual(["deepEqual", "formats", "ucs2length"]);
    expect(code).not.toMatch(/require\(|from "ajv|^import /m);
    expect(code).toMatch(/^export const validateTPayload: ValidateFunction = /m);
  });

  it("a schema ajv cannot compile is a design error naming the tool", () => {
    const ts = toolset({ type: "object" });
    // Bypass the resolver's checks to reach the compile step with a schema it would have refused.
    const broken = {
      ...ts,
      tools: [{ ...ts.tools[0]!, input: { kind: "schema", json: { type: "object", properties: { a: { $ref: "#/nowhere" } } } } }],
    } as IrToolset;
    expect(() => compileValidators(broken, "d.ts")).toThrow(DesignError);
    expect(() => compileValidators(broken, "d.ts")).toThrow(/^d\.ts toolset "w" tool "t": input schema: invalid schema: .*nowhere/);
  });
});
