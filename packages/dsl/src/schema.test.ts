import { describe, expect, it } from "vitest";
import { DslError } from "./errors.js";
import { s } from "./s.js";
import { type AnySchema, isSchema } from "./schema.js";
import { array, nullable, object, oneOf, record, union } from "./schema-composite.js";
import { collectDefs, named, toJsonSchema } from "./schema-named.js";
import { boolean, enumOf, integer, literal, nullValue, number, raw, string, unknownValue } from "./schema-primitives.js";

describe("leaf builders emit JSON Schema 2020-12", () => {
  it("string with every option", () => {
    expect(string({ format: "email", pattern: "^a", minLength: 1, maxLength: 9 }).json).toEqual({
      type: "string",
      format: "email",
      pattern: "^a",
      minLength: 1,
      maxLength: 9,
    });
    expect(string({ enum: ["a", "b"] }).json).toEqual({ type: "string", enum: ["a", "b"] });
    expect(string({ format: undefined }).json).toEqual({ type: "string" });
  });

  it("number and integer with inclusive and exclusive bounds", () => {
    expect(number({ minimum: 0, exclusiveMaximum: 1, multipleOf: 0.5 }).json).toEqual({
      type: "number",
      minimum: 0,
      exclusiveMaximum: 1,
      multipleOf: 0.5,
    });
    expect(integer({ exclusiveMinimum: 0, maximum: 10 }).json).toEqual({ type: "integer", exclusiveMinimum: 0, maximum: 10 });
  });

  it("boolean, literal, enum, null, unknown", () => {
    expect(boolean().json).toEqual({ type: "boolean" });
    expect(literal("x").json).toEqual({ type: "string", const: "x" });
    expect(literal(3).json).toEqual({ type: "number", const: 3 });
    expect(literal(null).json).toEqual({ type: "null", const: null });
    expect(enumOf(["a", "b"]).json).toEqual({ type: "string", enum: ["a", "b"] });
    expect(enumOf([1, "a"]).json).toEqual({ enum: [1, "a"] });
    expect(nullValue().json).toEqual({ type: "null" });
    expect(unknownValue().json).toEqual({});
  });

  it("annotations on any node: description, title, examples, default, deprecated", () => {
    const node = integer().describe("How many").title("Count").examples(1, 2).default(1).deprecated();
    expect(node.json).toEqual({ type: "integer", description: "How many", title: "Count", examples: [1, 2], default: 1, deprecated: true });
    expect(object({ a: string() }).describe("obj").json.description).toBe("obj");
  });

  it("raw is passed through and `with` merges keywords", () => {
    const r = raw<{ x: number }>({ type: "object", properties: { x: { type: "number" } }, dependentRequired: { x: [] } });
    expect(r.json).toEqual({ type: "object", properties: { x: { type: "number" } }, dependentRequired: { x: [] } });
    expect(string().with({ contentEncoding: "base64" }).json).toEqual({ type: "string", contentEncoding: "base64" });
  });
});

describe("composite builders", () => {
  it("object: required and optional, closed by default, open on request", () => {
    const closed = object({ a: string(), b: integer().optional() });
    expect(closed.json).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" } },
      required: ["a"],
      additionalProperties: false,
    });
    expect(object({ a: string().optional() }, { closed: false, maxProperties: 3 }).json).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      maxProperties: 3,
    });
  });

  it("object keeps a hostile key such as __proto__ as a plain property", () => {
    const json = object({ ["__proto__"]: string() } as { ["__proto__"]: ReturnType<typeof string> }).json as { properties: object };
    expect(Object.keys(json.properties)).toEqual(["__proto__"]);
    expect(JSON.parse(JSON.stringify(json)).properties).toHaveProperty("__proto__");
  });

  it("array with limits, record with key schema", () => {
    expect(array(string(), { minItems: 1, maxItems: 3, uniqueItems: true }).json).toEqual({
      type: "array",
      items: { type: "string" },
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
    });
    expect(record(number(), { keys: string({ pattern: "^[a-z]+$" }), maxProperties: 5 }).json).toEqual({
      type: "object",
      additionalProperties: { type: "number" },
      propertyNames: { type: "string", pattern: "^[a-z]+$" },
      maxProperties: 5,
    });
  });

  it("union is anyOf, oneOf is oneOf", () => {
    expect(union(string(), integer()).json).toEqual({ anyOf: [{ type: "string" }, { type: "integer" }] });
    expect(oneOf(literal("a"), object({ b: boolean() })).json.oneOf).toHaveLength(2);
  });

  it("nullable: type arrays for simple nodes, anyOf otherwise with annotations lifted", () => {
    expect(nullable(string().describe("d")).json).toEqual({ type: ["string", "null"], description: "d" });
    expect(string({ enum: ["a"] }).nullable().json).toEqual({ type: ["string", "null"], enum: ["a", null] });
    expect(nullable(union(string(), integer()).describe("u")).json).toEqual({
      anyOf: [{ anyOf: [{ type: "string" }, { type: "integer" }] }, { type: "null" }],
      description: "u",
    });
    expect(nullable(string().optional()).isOptional).toBe(true);
  });

  it("s namespace has every builder", () => {
    expect(s.object({ q: s.string(), n: s.null(), m: s.map(s.integer()) }).json).toEqual({
      type: "object",
      properties: { q: { type: "string" }, n: { type: "null" }, m: { type: "object", additionalProperties: { type: "integer" } } },
      required: ["q", "n", "m"],
      additionalProperties: false,
    });
    expect(s.const(1).json).toEqual({ type: "number", const: 1 });
  });
});

interface TreeNode {
  value: string;
  children: TreeNode[];
}

describe("named types and $defs", () => {
  const Address = named("Address", object({ street: string(), city: string() }));

  it("emits a $ref and collects the definition", () => {
    const input = object({ home: Address, work: Address.optional() });
    expect(input.json.properties).toEqual({ home: { $ref: "#/$defs/Address" }, work: { $ref: "#/$defs/Address" } });
    expect(collectDefs(input)).toEqual({
      Address: {
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" } },
        required: ["street", "city"],
        additionalProperties: false,
      },
    });
    expect(collectDefs(input.json)).toEqual(collectDefs(input));
  });

  it("recursive types reference themselves", () => {
    const Tree = named<TreeNode>("TreeNode", (self) => object({ value: string(), children: array(self) }));
    expect(Tree.json).toEqual({ $ref: "#/$defs/TreeNode" });
    const defs = collectDefs(object({ root: Tree }));
    expect(Object.keys(defs)).toEqual(["TreeNode"]);
    expect(defs.TreeNode).toEqual({
      type: "object",
      properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/TreeNode" } } },
      required: ["value", "children"],
      additionalProperties: false,
    });
  });

  it("definitions that use definitions are collected in first-use order, through annotations and nullable", () => {
    const City = named("City", string({ minLength: 1 }));
    const Place = named("Place", object({ city: City.describe("where").nullable() }));
    expect(Object.keys(collectDefs(object({ p: array(Place), c: City })))).toEqual(["Place", "City"]);
  });

  it("toJsonSchema places $defs at the root and inlines a named root", () => {
    const Tree = named<TreeNode>("Tree", (self) => object({ value: string(), children: array(self) }));
    const doc = toJsonSchema(Tree.describe("a tree"));
    expect(doc.type).toBe("object");
    expect(doc.description).toBe("a tree");
    expect(doc.$ref).toBeUndefined();
    expect(Object.keys(doc.$defs as object)).toEqual(["Tree"]);
    expect(toJsonSchema(object({ a: string() }))).toEqual(object({ a: string() }).json);
  });

  it("a JSON copy is resolved by name while the name is unambiguous", () => {
    const Point = named("CopyPoint", object({ x: number(), y: number() }));
    const copy = JSON.parse(JSON.stringify(object({ at: Point, path: array(Point) }).json)) as { [key: string]: unknown };
    expect(collectDefs(copy)).toEqual(collectDefs(Point));
    expect(Object.keys(toJsonSchema(copy).$defs as object)).toEqual(["CopyPoint"]);
    // A document's own $defs win over a DSL type of the same name.
    expect(collectDefs({ $defs: { CopyPoint: { type: "string" } }, properties: { p: { $ref: "#/$defs/CopyPoint" } } })).toEqual({});
    named("CopyTwice", string());
    named("CopyTwice", integer());
    expect(() => collectDefs({ properties: { t: { $ref: "#/$defs/CopyTwice" } } })).toThrow(
      /two different schemas use the same name "CopyTwice"/,
    );
  });

  it("two different schemas under one name is an error", () => {
    const A1 = named("A", string());
    const A2 = named("A", integer());
    expect(() => collectDefs(object({ x: A1, y: A2 }))).toThrow(/two different schemas use the same name "A"/);
  });
});

describe("misuse is recorded on the node and reported with the field's JSON pointer", () => {
  const cases: [string, () => unknown, RegExp][] = [
    ["bad regex", () => string({ pattern: "([" }), /string\(\): pattern "\(\[" is not a valid regular expression/],
    ["min > max length", () => string({ minLength: 5, maxLength: 2 }), /minLength \(5\) is greater than maxLength \(2\)/],
    ["negative length", () => string({ minLength: -1 }), /minLength must be a non-negative integer/],
    ["unknown option", () => string({ minimum: 1 } as never), /string\(\): unknown option "minimum"/],
    ["empty enum", () => string({ enum: [] as unknown as ["a"] }), /enum must be a non-empty array/],
    ["impossible range", () => integer({ minimum: 5, maximum: 1 }), /integer\(\): no integer satisfies the bounds/],
    ["exclusive equal", () => number({ exclusiveMinimum: 1, maximum: 1 }), /no number satisfies/],
    ["multipleOf 0", () => number({ multipleOf: 0 }), /multipleOf must be greater than 0/],
    ["NaN bound", () => number({ minimum: Number.NaN }), /minimum must be a finite number/],
    ["array items not a schema", () => array("string" as never), /array\(\): items must be a schema builder/],
    ["uncalled builder", () => object({ a: string as never }), /field "a" must be a schema builder.*did you forget to call it/],
    ["object of a schema", () => object(string() as never), /object\(\): expects a shape/],
    ["empty union", () => (union as (...a: unknown[]) => unknown)(), /union\(\): expects at least one member/],
    ["union member", () => union(string(), 3 as never), /member 2 must be a schema builder/],
    ["duplicate enum", () => enumOf(["a", "a"]), /enumOf\(\): has duplicate values/],
    ["literal object", () => literal({} as never), /literal\(\): values must be strings/],
    ["bad name", () => named("a/b", string()), /named\("a\/b"\): the name must start/],
    ["self as body", () => named("S", (self) => self), /returned `self`/],
    ["optional named", () => named("O", string().optional()), /cannot be optional/],
    ["raw not object", () => raw("x" as never), /raw\(\): expects a JSON Schema object/],
    ["raw with function", () => raw({ f: () => 1 }), /raw\(\): the schema must be plain JSON data; found a function/],
    ["default not JSON", () => number().default(Number.POSITIVE_INFINITY), /default\(\): the default must be plain JSON data/],
  ];
  it.each(cases)("%s", (_label, run, message) => {
    // Building never throws: the builder cannot know where it is used.
    const bad = run() as AnySchema;
    expect(isSchema(bad)).toBe(true);
    let error: unknown;
    try {
      toJsonSchema(object({ outer: object({ "a/b": array(bad) }) }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DslError);
    const at = " at /properties/outer/properties/a~1b/items";
    expect((error as Error).message).toContain(`${at}: `);
    expect((error as Error).message.replace(at, "")).toMatch(message);
    // The JSON stays clean: the record is a symbol key that JSON never shows.
    expect(JSON.stringify(bad.json)).not.toMatch(/problem/);
  });

  it("a mistake inside a named type is reported under $defs", () => {
    const Address = named("Address", object({ zip: string({ pattern: "(?<" }) }));
    expect(() => toJsonSchema(object({ home: Address }))).toThrow(/string\(\) at \/\$defs\/Address\/properties\/zip: pattern "\(\?<"/);
  });

  it("derived nodes keep the first mistake (describe, optional, nullable)", () => {
    const bad = string({ minLength: -1 })
      .describe(42 as never)
      .optional()
      .nullable();
    expect(() => toJsonSchema(object({ n: bad }))).toThrow(/string\(\) at \/properties\/n: minLength must be a non-negative integer/);
    expect(() => toJsonSchema(object({ n: string().describe(42 as never) }))).toThrow(/describe\(\) at \/properties\/n: the description/);
  });
});
