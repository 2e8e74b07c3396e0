/**
 * Schema builder core. Each builder holds a JSON Schema 2020-12 node as plain data and carries the
 * static TypeScript type it describes, so `Infer<typeof schema>` gives the payload type. The
 * concrete builders live in schema-primitives.ts, schema-composite.ts and schema-named.ts.
 */
import { assertJson, deferProblem, fail, PROBLEM } from "./errors.js";

/** A JSON Schema 2020-12 node, kept as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/** Brand used only at the type level to carry a schema's static type. */
declare const typeBrand: unique symbol;

/** A schema builder: plain JSON Schema plus a static type `T`. Immutable; every method copies. */
export interface Schema<T = unknown, Opt extends boolean = false> {
  readonly kind: "schema";
  /** The JSON Schema node this builder stands for. Named types appear as `{ "$ref": "#/$defs/Name" }`. */
  readonly json: JsonSchema;
  /** True when the field may be omitted from its parent object. */
  readonly isOptional: Opt;
  readonly [typeBrand]?: T;
  /** Adds a description (becomes JSDoc in generated code). */
  describe(text: string): Schema<T, Opt>;
  /** Adds a title. */
  title(text: string): Schema<T, Opt>;
  /** Adds example values (JSON data of the schema's type). */
  examples(...values: T[]): Schema<T, Opt>;
  /** Sets a default value. */
  default(value: T): Schema<T, Opt>;
  /** Marks the node deprecated (`deprecated: true`). */
  deprecated(): Schema<T, Opt>;
  /** Marks the field as optional inside an object. */
  optional(): Schema<T, true>;
  /** Allows `null` as well (same as `nullable(schema)`). */
  nullable(): Schema<T | null, Opt>;
  /** Merges extra JSON Schema keywords into the node (escape hatch for rare keywords). */
  with(extra: JsonSchema): Schema<T, Opt>;
}

/** Any schema builder, whatever its type and optionality. */
// biome-ignore lint/suspicious/noExplicitAny: `any` keeps builders of every type assignable here.
export type AnySchema = Schema<any, boolean>;

/** The static type a schema builder describes. */
export type Infer<S> = S extends Schema<infer T, boolean> ? T : never;

/**
 * A named definition registered for a `$ref` node. The body is filled in after the ref node exists,
 * which is what makes recursive types possible.
 */
export interface NamedDefinition {
  readonly name: string;
  body: JsonSchema | undefined;
}

// Which JSON nodes are references to named definitions. A WeakMap keeps the emitted JSON clean
// (`{ "$ref": ... }` only) while `collectDefs` can still find every definition a schema uses.
const definitions = new WeakMap<object, NamedDefinition>();

// Every definition by name, so a JSON copy (which loses object identity) can still be resolved
// when the name is unambiguous.
const byName = new Map<string, NamedDefinition[]>();

/** Registers `json` as a `$ref` node standing for `definition`. Used by `named()`. */
export function registerRef(json: JsonSchema, definition: NamedDefinition): void {
  definitions.set(json, definition);
  const list = byName.get(definition.name);
  if (list) list.push(definition);
  else byName.set(definition.name, [definition]);
}

/** The named definition a `$ref` node stands for, if it was made by `named()`. */
export function definitionOf(json: unknown): NamedDefinition | undefined {
  return typeof json === "object" && json !== null ? definitions.get(json) : undefined;
}

/**
 * The definitions registered under `name` whose bodies differ, for `$ref` nodes that lost their
 * identity (a JSON copy). One entry means the name is unambiguous.
 */
export function definitionsNamed(name: string): NamedDefinition[] {
  const out: NamedDefinition[] = [];
  const seen = new Set<string>();
  for (const d of byName.get(name) ?? []) {
    const key = JSON.stringify(d.body);
    if (d.body !== undefined && !seen.has(key)) {
      seen.add(key);
      out.push(d);
    }
  }
  return out;
}

/** Copies `from`'s `$ref` registration onto `to` (used when a node is re-shaped). */
export function carryRef(from: JsonSchema, to: JsonSchema): JsonSchema {
  const definition = definitions.get(from);
  if (definition) definitions.set(to, definition);
  return to;
}

// Set by schema-composite.ts; kept as a hook so this core file has no import cycle.
let makeNullable: ((json: JsonSchema) => JsonSchema) | undefined;

/** Installs the JSON transform behind `.nullable()`. Internal. */
export function setNullableTransform(transform: (json: JsonSchema) => JsonSchema): void {
  makeNullable = transform;
}

/**
 * Runs a builder; a mistake it throws is recorded on a `fallback` node instead (see `PROBLEM`), so
 * the code generator can report it with the toolset, the tool and the field's JSON pointer.
 */
export function deferred<T, Opt extends boolean = false>(
  fallback: JsonSchema,
  build: () => Schema<T, Opt>,
  isOptional = false as Opt,
): Schema<T, Opt> {
  // The fallback's own problem (a mistake made earlier on the same node) is the one reported.
  return deferProblem(build, (problem) => createSchema<T, Opt>(Object.freeze({ [PROBLEM]: problem, ...fallback }), isOptional));
}

/** Creates a schema builder around a JSON Schema node. */
export function createSchema<T, Opt extends boolean = false>(json: JsonSchema, isOptional = false as Opt): Schema<T, Opt> {
  const derive = (extra: JsonSchema) => carryRef(json, Object.freeze({ ...json, ...extra }));
  // A mistake in a method is recorded on this node's copy, like a builder's (see `deferred`).
  const guarded = (build: () => Schema<T, Opt>) => deferred(json, build, isOptional);
  const node: Schema<T, Opt> = {
    kind: "schema",
    json,
    isOptional,
    describe: (text) =>
      guarded(() => {
        if (typeof text !== "string") fail("describe()", "the description must be a string");
        return createSchema<T, Opt>(derive({ description: text }), isOptional);
      }),
    title: (text) =>
      guarded(() => {
        if (typeof text !== "string") fail("title()", "the title must be a string");
        return createSchema<T, Opt>(derive({ title: text }), isOptional);
      }),
    examples: (...values) =>
      guarded(() => {
        assertJson("examples()", "every example", values);
        return createSchema<T, Opt>(derive({ examples: values }), isOptional);
      }),
    default: (value) =>
      guarded(() => {
        assertJson("default()", "the default", value);
        return createSchema<T, Opt>(derive({ default: value }), isOptional);
      }),
    deprecated: () => createSchema<T, Opt>(derive({ deprecated: true }), isOptional),
    optional: () => createSchema<T, true>(json, true),
    nullable: () => {
      if (!makeNullable) fail("nullable()", "schema builders are not loaded");
      return createSchema<T | null, Opt>(makeNullable(json), isOptional);
    },
    with: (extra) =>
      guarded(() => {
        assertJson("with()", "extra keywords", extra);
        return createSchema<T, Opt>(derive(extra), isOptional);
      }),
  };
  return Object.freeze(node);
}

/** True when `value` is a schema builder. */
export function isSchema(value: unknown): value is AnySchema {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "schema";
}

/** Fails with a readable message unless `value` is a schema builder. */
export function assertSchema(where: string, what: string, value: unknown): asserts value is AnySchema {
  if (!isSchema(value)) {
    const got = value === undefined ? "undefined" : typeof value === "function" ? "a function (did you forget to call it?)" : typeof value;
    fail(where, `${what} must be a schema builder such as string() or object({...}); got ${got}`);
  }
}
