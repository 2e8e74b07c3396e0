// The emitted JSON is real JSON Schema 2020-12: ajv's 2020 engine in strict mode compiles every
// builder's output (via toJsonSchema, so $defs are in place) and validates with the intended meaning.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { s } from "./s.js";
import type { AnySchema } from "./schema.js";
import { toJsonSchema } from "./schema-named.js";

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

interface TreeNode {
  label: string;
  children: TreeNode[];
}

const Tree = s.named<TreeNode>("AjvTree", (self) => s.object({ label: s.string({ minLength: 1 }), children: s.array(self) }));
const Color = s.named("AjvColor", s.enum(["red", "green"]));

const cases: [string, AnySchema, unknown[], unknown[]][] = [
  [
    "string options",
    s.string({ format: "email", pattern: "@x\\.io$", minLength: 6, maxLength: 40 }),
    ["a@x.io"],
    ["a@y.io", "a b@x.io", 3],
  ],
  ["string enum", s.string({ enum: ["a", "b"] }), ["a"], ["c"]],
  ["number bounds", s.number({ exclusiveMinimum: 0, maximum: 1, multipleOf: 0.25 }), [0.25, 1], [0, 1.25, 0.3]],
  ["integer", s.integer({ minimum: -2 }), [-2, 7], [1.5, -3, "1"]],
  ["boolean and null", s.union(s.boolean(), s.null()), [true, null], [0]],
  ["literal", s.literal("on"), ["on"], ["off"]],
  ["enum of mixed", s.enum([1, "one"]), [1, "one"], [2]],
  ["array limits", s.array(s.integer(), { minItems: 1, maxItems: 2, uniqueItems: true }), [[1], [1, 2]], [[], [1, 1], [1, 2, 3]]],
  ["closed object", s.object({ a: s.string(), b: s.integer().optional() }), [{ a: "x" }, { a: "x", b: 1 }], [{}, { a: "x", c: 1 }]],
  ["open object", s.object({ a: s.string() }, { closed: false }), [{ a: "x", c: 1 }], [{ c: 1 }]],
  [
    "record with keys",
    s.record(s.number(), { keys: s.string({ pattern: "^[a-z]+$" }), maxProperties: 2 }),
    [{ ab: 1 }],
    [{ Ab: 1 }, { a: 1, b: 2, c: 3 }, { a: "1" }],
  ],
  ["oneOf", s.oneOf(s.integer(), s.number({ minimum: 10 })), [3, 10.5], [12, 1.5]],
  [
    "nullable simple and complex",
    s.object({ n: s.string().nullable(), u: s.union(s.integer(), s.boolean()).nullable() }),
    [
      { n: null, u: null },
      { n: "x", u: true },
    ],
    [{ n: 1, u: null }],
  ],
  [
    "named and recursive",
    s.object({ root: Tree, color: Color.nullable() }),
    [{ root: { label: "a", children: [{ label: "b", children: [] }] }, color: "red" }],
    [
      { root: { label: "", children: [] }, color: null },
      { root: { label: "a", children: [{ label: "b" }] }, color: "red" },
    ],
  ],
  [
    "annotations everywhere",
    s.object({ q: s.string().describe("query").title("Q").examples("x").default("x").deprecated() }),
    [{ q: "y" }],
    [{ q: 1 }],
  ],
  ["raw", s.raw({ type: "object", dependentRequired: { a: ["b"] } }), [{ a: 1, b: 2 }, {}], [{ a: 1 }]],
];

describe("ajv 2020 (strict) accepts and applies every builder's JSON", () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  ajv.addKeyword("x-mcp-header");

  it.each(cases)("%s", (_label, schema, valid, invalid) => {
    const validate = ajv.compile(toJsonSchema(schema));
    for (const v of valid) expect(validate(v), JSON.stringify(v)).toBe(true);
    for (const v of invalid) expect(validate(v), JSON.stringify(v)).toBe(false);
  });
});
