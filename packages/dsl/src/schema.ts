/**
 * Schema builders. Each builder holds a JSON Schema 2020-12 node as plain data and carries the
 * static TypeScript type it describes, so `Infer<typeof schema>` gives the payload type.
 */

/** A JSON Schema 2020-12 node, kept as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/** Brand used only at the type level to carry a schema's static type. */
declare const typeBrand: unique symbol;

/** A schema builder: plain JSON Schema plus a static type `T`. Immutable; every method copies. */
export interface Schema<T = unknown, Opt extends boolean = false> {
  readonly kind: "schema";
  /** The JSON Schema node this builder stands for. */
  readonly json: JsonSchema;
  /** True when the field may be omitted from its parent object. */
  readonly isOptional: Opt;
  readonly [typeBrand]?: T;
  /** Adds a description (becomes JSDoc in generated code). */
  describe(text: string): Schema<T, Opt>;
  /** Adds a title. */
  title(text: string): Schema<T, Opt>;
  /** Adds example values. */
  examples(...values: T[]): Schema<T, Opt>;
  /** Sets a default value. */
  default(value: T): Schema<T, Opt>;
  /** Marks the field as optional inside an object. */
  optional(): Schema<T, true>;
  /** Merges extra JSON Schema keywords into the node (escape hatch for rare keywords). */
  with(extra: JsonSchema): Schema<T, Opt>;
}

/** The static type a schema builder describes. */
export type Infer<S> = S extends Schema<infer T, boolean> ? T : never;

/** Creates a schema builder around a JSON Schema node. */
export function createSchema<T, Opt extends boolean = false>(json: JsonSchema, isOptional = false as Opt): Schema<T, Opt> {
  const node: Schema<T, Opt> = {
    kind: "schema",
    json,
    isOptional,
    describe: (text) => createSchema<T, Opt>({ ...json, description: text }, isOptional),
    title: (text) => createSchema<T, Opt>({ ...json, title: text }, isOptional),
    examples: (...values) => createSchema<T, Opt>({ ...json, examples: values }, isOptional),
    default: (value) => createSchema<T, Opt>({ ...json, default: value }, isOptional),
    optional: () => createSchema<T, true>(json, true),
    with: (extra) => createSchema<T, Opt>({ ...json, ...extra }, isOptional),
  };
  return Object.freeze(node);
}

/** Options shared by string builders. */
export interface StringOptions {
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
}

/** Options shared by number and integer builders. */
export interface NumberOptions {
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
}

/** Options for array builders. */
export interface ArrayOptions {
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
}

/** Options for object builders. */
export interface ObjectOptions {
  /** When true (the default), unknown properties are rejected (`additionalProperties: false`). */
  readonly closed?: boolean;
}

type Shape = { readonly [key: string]: Schema<unknown, boolean> };
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends Schema<unknown, true> ? K : never;
}[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type described by a shape of field builders. */
export type InferShape<S extends Shape> = Simplify<{ [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> }>;

function clean<T extends object>(options: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (!options) return out;
  for (const [k, v] of Object.entries(options)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** A string. */
export function string(options?: StringOptions): Schema<string> {
  return createSchema({ type: "string", ...clean(options) });
}

/** A number (float). */
export function number(options?: NumberOptions): Schema<number> {
  return createSchema({ type: "number", ...clean(options) });
}

/** An integer. */
export function integer(options?: NumberOptions): Schema<number> {
  return createSchema({ type: "integer", ...clean(options) });
}

/** A boolean. */
export function boolean(): Schema<boolean> {
  return createSchema({ type: "boolean" });
}

/** A string restricted to the given values. */
export function enumOf<const V extends readonly [string, ...string[]]>(values: V): Schema<V[number]> {
  return createSchema({ type: "string", enum: [...values] });
}

/** An array of `items`. */
export function array<I>(items: Schema<I, boolean>, options?: ArrayOptions): Schema<I[]> {
  return createSchema({ type: "array", items: items.json, ...clean(options) });
}

/** An object. Fields marked `.optional()` are left out of `required`. Closed by default. */
export function object<S extends Shape>(shape: S, options?: ObjectOptions): Schema<InferShape<S>> {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    properties[key] = field.json;
    if (!field.isOptional) required.push(key);
  }
  const json: Record<string, unknown> = { type: "object", properties };
  if (required.length > 0) json.required = required;
  if (options?.closed !== false) json.additionalProperties = false;
  return createSchema(json);
}

/** True when `value` is a schema builder. */
export function isSchema(value: unknown): value is Schema<unknown, boolean> {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "schema";
}
