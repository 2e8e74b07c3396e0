/**
 * JSON Schema to DSL code: what the builders can say is printed as builder calls, and each printed
 * node, evaluated with the real DSL, gives back the schema; what they cannot say falls back to raw(...).
 */
import * as dsl from "@toolwright/dsl";
import { describe, expect, it } from "vitest";
import { sameSchema, schemaToDsl } from "./schema-to-dsl.js";

/** Evaluates printed DSL code with the real builders in scope. */
function evaluate(code: string): unknown {
  const names = Object.keys(dsl);
  return new Function(...names, `return ${code};`)(...names.map((n) => (dsl as unknown as { [k: string]: unknown })[n]));
}

describe("schemaToDsl", () => {
  it.each([
    [
      "string with limits",
      { type: "string", minLength: 1, maxLength: 5, format: "email" },
      'string({ format: "email", minLength: 1, maxLength: 5 })',
    ],
    ["integer", { type: "integer", minimum: 0 }, "integer({ minimum: 0 })"],
    ["string enum", { type: "string", enum: ["a", "b"] }, 'enumOf(["a", "b"])'],
    ["const", { type: "string", const: "x" }, 'literal("x")'],
    ["nullable", { type: ["number", "null"] }, "number().nullable()"],
    ["record", { type: "object", additionalProperties: { type: "boolean" } }, "record(boolean())"],
    ["union", { anyOf: [{ type: "string" }, { type: "number" }] }, "union(string(), number())"],
    [
      "described optional field",
      { type: "object", properties: { a: { type: "string", description: "A" } }, additionalProperties: false },
      'object({\n  a: string().describe("A").optional(),\n})',
    ],
    [
      "open object",
      { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      "object({\n  a: string(),\n}, { closed: false })",
    ],
  ])("%s", (_name, json, code) => {
    const out = schemaToDsl(json);
    expect(out.code).toBe(code);
    expect(sameSchema(evaluate(out.code), json)).toBe(true);
  });

  it("falls back to raw(...) for keywords the builders do not have, and keeps the rest as builders", () => {
    const json = {
      type: "object",
      properties: { data: { type: "string", contentEncoding: "base64" }, n: { type: "number" } },
      required: ["data", "n"],
    };
    const out = schemaToDsl(json);
    expect(out.code).toContain('data: raw({\n    type: "string",\n    contentEncoding: "base64",\n  }),');
    expect(out.code).toContain("n: number(),");
    expect(out.uses).toEqual(new Set(["object", "raw", "number"]));
    expect(sameSchema(evaluate(out.code), json)).toBe(true);
  });

  it("a node the builders reject (they record the mistake instead of throwing) falls back to raw(...)", () => {
    for (const json of [
      { type: "string", pattern: "(?<" },
      { type: "integer", minimum: 5, maximum: 1 },
      { type: "string", enum: ["a", "a"] },
    ]) {
      const out = schemaToDsl(json);
      expect(out.code.startsWith("raw("), out.code).toBe(true);
      expect(dsl.findProblem(evaluate(out.code) as dsl.AnySchema)).toBeUndefined();
    }
  });

  it("sameSchema tells different schemas apart", () => {
    expect(sameSchema(dsl.string(), { type: "number" })).toBe(false);
    expect(sameSchema(dsl.object({ a: dsl.string() }), { type: "object", properties: { a: { type: "string" } }, required: ["a"] })).toBe(
      false,
    );
  });
});
