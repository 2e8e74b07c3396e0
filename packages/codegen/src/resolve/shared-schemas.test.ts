import type { DesignDecl } from "@toolwright/dsl";
import { deepEqual, formats, ucs2length } from "@toolwright/runtime/codegen";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { IrToolset } from "../ir/ir.js";
import { resolveDesign } from "./resolve.js";
import { createAjv } from "./schema.js";
import { SHARED_PREFIX, shareSubSchemas } from "./shared-schemas.js";

type Schema = { [key: string]: unknown };
const entity = (label: string): Schema => ({
  type: "object",
  description: `an entity (${label})`,
  properties: {
    name: { type: "string", minLength: 2, description: label },
    kind: { enum: ["a", "b"] },
    tags: { type: "array", items: { type: "string" }, maxItems: 3 },
    'we"ird': { type: ["string", "null"] },
  },
  required: ["name", 'we"ird'],
  additionalProperties: false,
});
const tree = {
  type: "object",
  $defs: {
    node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } },
  },
  properties: { root: { $ref: "#/$defs/node" }, copy: entity("tree") },
};

function toolsetOf(tools: readonly { name: string; input: Schema; output?: Schema }[]): IrToolset {
  const d = {
    kind: "design",
    toolsets: [
      {
        kind: "toolset",
        name: "w",
        provider: { kind: "external-mcp", server: "w", suite: "w" },
        tools: tools.map((t) => ({ kind: "tool", ...t })),
      },
    ],
    agents: [],
    servers: [],
  };
  return resolveDesign(d as unknown as DesignDecl, { file: "d.ts" }).toolsets[0]!;
}

type Validate = ((value: unknown) => boolean) & { errors?: unknown[] | null };
/** Evaluates generated validators source (TypeScript annotations removed) into its exports. */
function load(code: string): { [name: string]: Validate } {
  const js = code.replace(/^export const (\w+): ValidateFunction = /gm, "const $1 = exports.$1 = ");
  const exports: { [name: string]: Validate } = {};
  new Function("exports", "ucs2length", "deepEqual", "formats", js)(exports, ucs2length, deepEqual, formats);
  return exports;
}

const errorsOf = (v: Validate) => (v.errors ?? []).map((e) => ({ ...(e as object), schemaPath: undefined }));

/** Values shaped like the schemas above (their property names), so nested keywords are reached. */
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, "a", "b", "xy", 3, -1, true),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom("name", "kind", "tags", 'we"ird', "entities", "entity", "one", "many", "count", "root", "copy", "children", "x"),
      tie("value"),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

describe("shared sub-schemas", () => {
  for (const unevaluated of [false, true]) {
    it(`generated validators report exactly what ajv reports on the unshared schemas${unevaluated ? " (with unevaluatedProperties)" : ""}`, () => {
      const tools = [
        {
          name: "t1",
          input: { type: "object", properties: { entities: { type: "array", items: entity("one") } }, required: ["entities"] },
          output: { type: "object", properties: { entity: entity("two"), count: { type: "integer", minimum: 0 } } },
        },
        {
          name: "t2",
          input: {
            type: "object",
            properties: { one: entity("three"), many: { type: "array", items: entity("four") } },
            ...(unevaluated ? { unevaluatedProperties: false } : { additionalProperties: false }),
          },
        },
        {
          name: "t3",
          input: {
            type: "object",
            anyOf: [entity("five"), { type: "object", properties: { entities: { type: "array", items: entity("six") } } }],
          },
        },
        { name: "t4", input: tree },
      ];
      const ts = toolsetOf(tools);
      const { code } = ts.validators;
      // The entity shape is compiled once where it may be shared, and inline in the anyOf: 2 checks.
      expect(code.match(/ < 2\b/g)?.length).toBe(2);
      // A schema's JSON is printed only where the code reads it (here: the enum's allowed values).
      for (const [, name] of code.matchAll(/^const (schema\d+) = /gm)) expect(code.split(name!).length, name).toBeGreaterThan(2);
      const generated = load(code);
      const ajv = createAjv();
      const cases = ts.tools.flatMap((tool) => [
        { name: tool.symbols.validatePayload.name, reference: ajv.compile(tool.input.json as object) },
        ...(tool.output && tool.symbols.validateResult
          ? [{ name: tool.symbols.validateResult.name, reference: ajv.compile(tool.output.json as object) }]
          : []),
      ]);
      fc.assert(
        fc.property(values, (value) => {
          for (const { name, reference } of cases) {
            const mine = generated[name]!;
            expect(mine(value), name).toBe(reference(value));
            expect(errorsOf(mine), name).toEqual(errorsOf(reference as Validate));
          }
        }),
        { numRuns: 400 },
      );
    });
  }

  it("hoists a repeated self-contained sub-schema once and leaves positional ones alone", () => {
    const { roots, shared } = shareSubSchemas([
      { type: "object", properties: { a: entity("x"), b: tree.properties.root, c: { type: "array", items: entity("y") } } },
      tree,
    ] as never);
    expect([...shared.keys()]).toEqual([`${SHARED_PREFIX}0`]);
    const [first, second] = roots as Schema[];
    expect((first!.properties as Schema).a).toEqual({ $ref: `${SHARED_PREFIX}0` });
    expect((first!.properties as Schema).b).toEqual({ $ref: "#/$defs/node" });
    expect(((second!.properties as Schema).copy as Schema).$ref).toBe(`${SHARED_PREFIX}0`);
    expect(second!.$defs).toEqual(tree.$defs);
  });
});
