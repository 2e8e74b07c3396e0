/**
 * Composite schema builders: array, object, record, union (anyOf), oneOf, nullable.
 * Child nodes are embedded by identity, so `collectDefs` can follow named types inside them.
 */
import { fail, show } from "./errors.js";
import {
  type AnySchema,
  assertSchema,
  carryRef,
  createSchema,
  deferred,
  type Infer,
  isSchema,
  type JsonSchema,
  type Schema,
  setNullableTransform,
} from "./schema.js";
import { checkCount, checkKeys, checkOrder, defined } from "./schema-primitives.js";

/** Options for array builders. */
export interface ArrayOptions {
  readonly minItems?: number | undefined;
  readonly maxItems?: number | undefined;
  readonly uniqueItems?: boolean | undefined;
}

/** Options for object builders. */
export interface ObjectOptions {
  /** When true (the default), unknown properties are rejected (`additionalProperties: false`). */
  readonly closed?: boolean | undefined;
  readonly minProperties?: number | undefined;
  readonly maxProperties?: number | undefined;
}

/** Options for record builders. */
export interface RecordOptions {
  /** A string schema every key must satisfy (`propertyNames`); its type narrows the keys. */
  readonly keys?: Schema<string, boolean>;
  readonly minProperties?: number | undefined;
  readonly maxProperties?: number | undefined;
}

/** The fields of an object schema. */
export type Shape = { readonly [key: string]: AnySchema };
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends Schema<unknown, true> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type described by a shape of field builders. */
export type InferShape<S extends Shape> = Simplify<{ [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> }>;
/** The type of an open object: the declared fields plus any other keys. */
export type InferOpenShape<S extends Shape> = Simplify<InferShape<S> & { [key: string]: unknown }>;

/** An array of `items`. */
export function array<I>(items: Schema<I, boolean>, options?: ArrayOptions): Schema<I[]> {
  return deferred({ type: "array" }, () => buildArray(items, options));
}

function buildArray<I>(items: Schema<I, boolean>, options: ArrayOptions | undefined): Schema<I[]> {
  const where = "array()";
  assertSchema(where, "items", items);
  checkKeys(where, options, ["minItems", "maxItems", "uniqueItems"]);
  const o = defined(options);
  checkCount(where, "minItems", o.minItems);
  checkCount(where, "maxItems", o.maxItems);
  checkOrder(where, "minItems", o.minItems, "maxItems", o.maxItems);
  if (o.uniqueItems !== undefined && typeof o.uniqueItems !== "boolean") fail(where, "uniqueItems must be a boolean");
  return createSchema({ type: "array", items: items.json, ...o });
}

/** An open object: the declared fields plus any other properties. */
export function object<S extends Shape>(shape: S, options: ObjectOptions & { readonly closed: false }): Schema<InferOpenShape<S>>;
/** An object. Fields marked `.optional()` are left out of `required`. Closed by default. */
export function object<S extends Shape>(shape: S, options?: ObjectOptions): Schema<InferShape<S>>;
export function object<S extends Shape>(shape: S, options?: ObjectOptions): Schema<InferShape<S>> {
  return deferred({ type: "object" }, () => buildObject(shape, options));
}

function buildObject<S extends Shape>(shape: S, options: ObjectOptions | undefined): Schema<InferShape<S>> {
  const where = "object()";
  if (typeof shape !== "object" || shape === null || Array.isArray(shape) || (shape as { kind?: unknown }).kind === "schema") {
    fail(where, `expects a shape such as { name: string() }; got ${show(shape)}`);
  }
  checkKeys(where, options, ["closed", "minProperties", "maxProperties"]);
  const o = defined(options);
  checkCount(where, "minProperties", o.minProperties);
  checkCount(where, "maxProperties", o.maxProperties);
  checkOrder(where, "minProperties", o.minProperties, "maxProperties", o.maxProperties);
  if (o.closed !== undefined && typeof o.closed !== "boolean") fail(where, "closed must be a boolean");
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    assertSchema(where, `field "${key}"`, field);
    // defineProperty keeps keys such as "__proto__" as ordinary properties.
    Object.defineProperty(properties, key, { value: field.json, enumerable: true, writable: true, configurable: true });
    if (!field.isOptional) required.push(key);
  }
  const json: Record<string, unknown> = { type: "object", properties };
  if (required.length > 0) json.required = required;
  if (o.closed !== false) json.additionalProperties = false;
  if (o.minProperties !== undefined) json.minProperties = o.minProperties;
  if (o.maxProperties !== undefined) json.maxProperties = o.maxProperties;
  return createSchema(json);
}

type RecordOf<K extends string, V> = string extends K ? { [key: string]: V } : { [P in K]?: V };

/** A map from string keys to `values` (`additionalProperties: <values>`). */
export function record<V, K extends string = string>(
  values: Schema<V, boolean>,
  options?: RecordOptions & { readonly keys?: Schema<K, boolean> },
): Schema<RecordOf<K, V>> {
  return deferred({ type: "object" }, () => buildRecord(values, options));
}

function buildRecord<V, K extends string>(values: Schema<V, boolean>, options: RecordOptions | undefined): Schema<RecordOf<K, V>> {
  const where = "record()";
  assertSchema(where, "values", values);
  checkKeys(where, options, ["keys", "minProperties", "maxProperties"]);
  const o = defined(options);
  checkCount(where, "minProperties", o.minProperties);
  checkCount(where, "maxProperties", o.maxProperties);
  checkOrder(where, "minProperties", o.minProperties, "maxProperties", o.maxProperties);
  if (o.keys !== undefined) assertSchema(where, "keys", o.keys);
  const json: Record<string, unknown> = { type: "object", additionalProperties: values.json };
  if (o.keys) json.propertyNames = o.keys.json;
  if (o.minProperties !== undefined) json.minProperties = o.minProperties;
  if (o.maxProperties !== undefined) json.maxProperties = o.maxProperties;
  return createSchema(json);
}

type Members = readonly [AnySchema, ...AnySchema[]];

function members(where: string, list: readonly unknown[]): JsonSchema[] {
  if (list.length === 0) fail(where, "expects at least one member schema");
  return list.map((m, i) => {
    assertSchema(where, `member ${i + 1}`, m);
    return m.json;
  });
}

/** A value matching at least one member (`anyOf`). */
export function union<const M extends Members>(...schemas: M): Schema<Infer<M[number]>> {
  return deferred({}, () => createSchema({ anyOf: members("union()", schemas) }));
}

/** A value matching exactly one member (`oneOf`). */
export function oneOf<const M extends Members>(...schemas: M): Schema<Infer<M[number]>> {
  return deferred({}, () => createSchema({ oneOf: members("oneOf()", schemas) }));
}

const ANNOTATIONS = ["title", "description", "default", "examples", "deprecated"] as const;

// A plain `type: "string"` node becomes `type: ["string", "null"]` (and gains null in its enum);
// anything else is wrapped in anyOf, with the annotations lifted to the wrapper for docs.
function nullableJson(json: JsonSchema): JsonSchema {
  const simple = typeof json.type === "string" && json.$ref === undefined && json.const === undefined;
  if (simple) {
    if (json.type === "null") return json;
    const out: Record<string, unknown> = { ...json, type: [json.type, "null"] };
    if (Array.isArray(json.enum) && !json.enum.includes(null)) out.enum = [...json.enum, null];
    return Object.freeze(out);
  }
  const inner: Record<string, unknown> = { ...json };
  const outer: Record<string, unknown> = {};
  for (const key of ANNOTATIONS) {
    if (key in inner) {
      outer[key] = inner[key];
      delete inner[key];
    }
  }
  return Object.freeze({ anyOf: [carryRef(json, Object.freeze(inner)), { type: "null" }], ...outer });
}
setNullableTransform(nullableJson);

/** `schema` or `null`. Keeps the field's optionality. */
export function nullable<T, Opt extends boolean>(schema: Schema<T, Opt>): Schema<T | null, Opt> {
  return deferred(
    {},
    () => {
      assertSchema("nullable()", "the argument", schema);
      return schema.nullable();
    },
    isSchema(schema) ? schema.isOptional : (false as Opt),
  );
}
