// Type tests: `expectTypeOf` pins the static type of every builder. They fail at compile time, which
// typecheck.test.ts runs (tsc over tsconfig.test.json); at run time they only assert JSON shape.
import { describe, expectTypeOf, it } from "vitest";
import { s } from "./s.js";
import type { Infer, Schema } from "./schema.js";
import { array, nullable, object, oneOf, record, union } from "./schema-composite.js";
import { named } from "./schema-named.js";
import { boolean, enumOf, integer, literal, nullValue, number, raw, string, unknownValue } from "./schema-primitives.js";

interface TreeNode {
  value: string;
  children: TreeNode[];
}

describe("inference", () => {
  it("leaves", () => {
    expectTypeOf<Infer<ReturnType<typeof string>>>().toEqualTypeOf<string>();
    expectTypeOf(string({ enum: ["a", "b"] })).toEqualTypeOf<Schema<"a" | "b">>();
    expectTypeOf(string({ format: "email" })).toEqualTypeOf<Schema<string>>();
    expectTypeOf(number()).toEqualTypeOf<Schema<number>>();
    expectTypeOf(integer({ minimum: 1 })).toEqualTypeOf<Schema<number>>();
    expectTypeOf(boolean()).toEqualTypeOf<Schema<boolean>>();
    expectTypeOf(literal("x")).toEqualTypeOf<Schema<"x">>();
    expectTypeOf(literal(4)).toEqualTypeOf<Schema<4>>();
    expectTypeOf(literal(null)).toEqualTypeOf<Schema<null>>();
    expectTypeOf(enumOf(["a", 1, true])).toEqualTypeOf<Schema<"a" | 1 | true>>();
    expectTypeOf(nullValue()).toEqualTypeOf<Schema<null>>();
    expectTypeOf(unknownValue()).toEqualTypeOf<Schema<unknown>>();
    expectTypeOf(raw<{ id: string }>({ type: "object" })).toEqualTypeOf<Schema<{ id: string }>>();
    expectTypeOf(raw({})).toEqualTypeOf<Schema<unknown>>();
  });

  it("objects: required, optional, open", () => {
    const o = object({ a: string(), b: integer().optional(), c: array(boolean()) });
    expectTypeOf<Infer<typeof o>>().toEqualTypeOf<{ a: string; b?: number; c: boolean[] }>();
    const open = object({ a: string() }, { closed: false });
    expectTypeOf<Infer<typeof open>>().toEqualTypeOf<{ [key: string]: unknown; a: string }>();
    const nested = object({ inner: object({ x: number().optional() }).optional() });
    expectTypeOf<Infer<typeof nested>>().toEqualTypeOf<{ inner?: { x?: number } }>();
  });

  it("optional() changes the optionality flag only", () => {
    expectTypeOf(string().optional()).toEqualTypeOf<Schema<string, true>>();
    expectTypeOf(string().optional().describe("x")).toEqualTypeOf<Schema<string, true>>();
  });

  it("arrays, records, unions, oneOf, nullable", () => {
    expectTypeOf(array(string(), { minItems: 1 })).toEqualTypeOf<Schema<string[]>>();
    expectTypeOf(record(number())).toEqualTypeOf<Schema<{ [key: string]: number }>>();
    expectTypeOf(record(number(), { keys: string({ enum: ["x", "y"] }) })).toEqualTypeOf<Schema<{ x?: number; y?: number }>>();
    expectTypeOf(union(string(), integer())).toEqualTypeOf<Schema<string | number>>();
    expectTypeOf(oneOf(literal("a"), object({ b: boolean() }))).toEqualTypeOf<Schema<"a" | { b: boolean }>>();
    expectTypeOf(nullable(string())).toEqualTypeOf<Schema<string | null>>();
    expectTypeOf(nullable(string().optional())).toEqualTypeOf<Schema<string | null, true>>();
    expectTypeOf(integer().nullable()).toEqualTypeOf<Schema<number | null>>();
  });

  it("named and recursive types", () => {
    const Address = named("Address", object({ city: string() }));
    expectTypeOf(Address).toEqualTypeOf<Schema<{ city: string }>>();
    const Tree = named<TreeNode>("TreeNode", (self) => object({ value: string(), children: array(self) }));
    expectTypeOf<Infer<typeof Tree>>().toEqualTypeOf<TreeNode>();
    const input = object({ root: Tree, homes: array(Address).optional() });
    expectTypeOf<Infer<typeof input>>().toEqualTypeOf<{ root: TreeNode; homes?: { city: string }[] }>();
  });

  it("the s namespace infers the same", () => {
    const o = s.object({ q: s.string({ enum: ["x"] }), n: s.integer().nullable(), t: s.union(s.literal(1), s.null()) });
    expectTypeOf<Infer<typeof o>>().toEqualTypeOf<{ q: "x"; n: number | null; t: 1 | null }>();
  });
});

describe("misuse is a type error", () => {
  it("rejects wrong types (checked by tsc, never run)", () => {
    const misuse = () => {
      // @ts-expect-error examples must match the schema's type
      string().examples(1);
      // @ts-expect-error defaults must match the schema's type
      integer().default("1");
      // @ts-expect-error object fields must be schema builders
      object({ a: "string" });
      // @ts-expect-error array items must be a schema builder
      array({ type: "string" });
      // @ts-expect-error the recursive body must describe the declared type
      named<TreeNode>("Bad", (self) => object({ value: integer(), children: array(self) }));
      // @ts-expect-error unknown string option
      string({ minimum: 1 });
    };
    expectTypeOf(misuse).toBeFunction();
  });
});
