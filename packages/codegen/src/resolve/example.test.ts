import { describe, expect, it } from "vitest";
import { exampleFromSchema } from "./example.js";
import { createAjv } from "./schema.js";

const ajv = createAjv();

describe("synthetic examples", () => {
  it.each([
    [{ type: "object", properties: { q: { type: "string", minLength: 10 } }, required: ["q"] }],
    [
      {
        type: "object",
        properties: { n: { type: "integer", minimum: 5, maximum: 9 }, x: { type: "number", exclusiveMinimum: 2.5 } },
        required: ["n", "x"],
      },
    ],
    [
      {
        type: "object",
        properties: { when: { type: "string", format: "date-time" }, id: { type: "string", format: "uuid" } },
        required: ["when", "id"],
      },
    ],
    [{ type: "object", properties: { tags: { type: "array", items: { type: "string", maxLength: 3 }, minItems: 2 } }, required: ["tags"] }],
    [{ type: "object", properties: { mode: { enum: ["a", "b"] }, on: { type: ["boolean", "null"] } }, required: ["mode", "on"] }],
    [
      {
        type: "object",
        $defs: { N: { type: "object", properties: { next: { $ref: "#/$defs/N" }, v: { type: "string" } }, required: ["v"] } },
        properties: { n: { $ref: "#/$defs/N" } },
        required: ["n"],
      },
    ],
    [
      {
        type: "object",
        properties: { s: { anyOf: [{ type: "integer" }, { type: "string" }] } },
        required: ["s"],
        additionalProperties: false,
      },
    ],
  ])("is valid for %j", (schema) => {
    const example = exampleFromSchema(schema);
    expect(example).toBeDefined();
    expect(ajv.validate(schema, example), JSON.stringify(ajv.errors)).toBe(true);
  });

  it.each([
    [{ type: "object", properties: { code: { type: "string", pattern: "^[A-Z]{3}$" } }, required: ["code"] }],
    [{ type: "object", properties: { n: { type: "integer", multipleOf: 7 } }, required: ["n"] }],
    [{ type: "object", properties: { f: { type: "string", format: "idn-email" } }, required: ["f"] }],
    [{ type: "object", properties: { n: { type: "number", minimum: 5, maximum: 1 } }, required: ["n"] }],
  ])("gives up rather than guess for %j", (schema) => {
    expect(exampleFromSchema(schema)).toBeUndefined();
  });

  it("optional fields are left out", () => {
    expect(
      exampleFromSchema({ type: "object", properties: { a: { type: "string" }, b: { type: "string", pattern: "x" } }, required: ["a"] }),
    ).toEqual({ a: "example" });
  });
});
