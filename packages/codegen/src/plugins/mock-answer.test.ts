import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { mockAnswer, sampleSchema, withoutNullBranches } from "./mock-answer.js";

const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
addFormats(ajv);
const valid = (schema: object, value: unknown) => ajv.validate(schema, value);

/** Output schemas of the real servers pulled into examples/catalogues (everything, filesystem, memory). */
function lockedOutputSchemas(): { tool: string; schema: object }[] {
  const lock = JSON.parse(readFileSync(new URL("../../../../examples/catalogues/design.lock.json", import.meta.url), "utf8")) as {
    servers?: { [server: string]: { tools?: { name: string; outputSchema?: object }[] } };
  };
  const out: { tool: string; schema: object }[] = [];
  for (const [server, entry] of Object.entries(lock.servers ?? {})) {
    for (const tool of entry.tools ?? []) {
      if (tool.outputSchema === undefined) continue;
      // The servers declare draft-07; these schemas read the same under 2020-12, which is what the IR holds.
      const { $schema: _dialect, ...schema } = tool.outputSchema as { $schema?: string };
      out.push({ tool: `${server}.${tool.name}`, schema });
    }
  }
  return out;
}

describe("mock answers", () => {
  it("are deterministic: the same schema gives the same value, call after call", () => {
    const schema = {
      type: "object",
      properties: {
        when: { type: "string", format: "date-time" },
        n: { type: "integer", minimum: 3 },
        tags: { type: "array", items: { type: "string" }, minItems: 2 },
      },
      required: ["when", "n", "tags"],
    };
    const first = sampleSchema(schema);
    expect(sampleSchema(schema)).toEqual(first);
    expect(sampleSchema(structuredClone(schema))).toEqual(first);
    expect(first.from).toBe("schema");
    expect(valid(schema, first.value)).toBe(true);
  });

  it("prefer the schema's own example, default or const (the design's words) over a sample", () => {
    expect(sampleSchema({ type: "object", examples: [{ city: "Oslo" }, { city: "Rome" }] })).toEqual({
      from: "example",
      value: { city: "Oslo" },
    });
    expect(sampleSchema({ type: "number", default: 7 })).toEqual({ from: "example", value: 7 });
    expect(sampleSchema({ const: "fixed" })).toEqual({ from: "example", value: "fixed" });
  });

  it("satisfy bounds, enums, formats, references and nullable unions", () => {
    const schema = {
      type: "object",
      properties: {
        level: { enum: ["low", "high"] },
        score: { type: "number", minimum: 10, maximum: 20 },
        email: { type: "string", format: "email" },
        name: { type: "string", minLength: 3 },
        maybe: { anyOf: [{ type: "null" }, { type: "integer" }] },
        either: { type: ["null", "string"] },
        items: { type: "array", items: { $ref: "#/$defs/Item" }, minItems: 1 },
      },
      required: ["level", "score", "email", "name", "maybe", "either", "items"],
      additionalProperties: false,
      $defs: { Item: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } },
    };
    const answer = sampleSchema(schema);
    expect(answer.from).toBe("schema");
    expect(ajv.errors ?? null).toBeNull();
    expect(valid(schema, answer.value)).toBe(true);
  });

  it("satisfy every output schema of the real servers' lock", () => {
    const schemas = lockedOutputSchemas();
    expect(schemas.length).toBeGreaterThan(10);
    for (const { tool, schema } of schemas) {
      const answer = sampleSchema(schema as { [key: string]: unknown });
      expect({ tool, valid: valid(schema, answer.value) }).toEqual({ tool, valid: true });
    }
  });

  it("of a tool without an output schema are text naming the tool", () => {
    expect(mockAnswer({ id: "files.read", output: undefined })).toEqual({ from: "text", value: "mock answer of files.read" });
  });

  it("null branches are dropped only where a value branch remains", () => {
    expect(withoutNullBranches({ type: ["null"] })).toEqual({ type: "null" });
    expect(withoutNullBranches({ anyOf: [{ type: "null" }] })).toEqual({ anyOf: [{ type: "null" }] });
    expect(withoutNullBranches({ oneOf: [{ type: "null" }, { type: "string" }], enum: [null] })).toEqual({
      oneOf: [{ type: "string" }],
      enum: [null],
    });
  });
});
