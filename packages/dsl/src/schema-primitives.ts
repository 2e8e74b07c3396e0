/**
 * Leaf schema builders: string, number, integer, boolean, enums, literals, null, unknown, and the
 * raw JSON Schema escape hatch. Bad options are recorded on the node (`deferred`) and reported
 * with the tool and the field by `toJsonSchema` and the code generator.
 */
import { assertJson, fail, isPlainObject, show } from "./errors.js";
import { createSchema, deferred, type JsonSchema, type Schema } from "./schema.js";

/** Options shared by string builders. */
export interface StringOptions {
  /** A JSON Schema format: "email", "uri", "date-time", "uuid"... */
  readonly format?: string | undefined;
  /** An ECMA-262 regular expression the value must match. */
  readonly pattern?: string | undefined;
  readonly minLength?: number | undefined;
  readonly maxLength?: number | undefined;
  /** Allowed values; narrows the static type to their union. */
  readonly enum?: readonly string[];
}

/** Options shared by number and integer builders. */
export interface NumberOptions {
  readonly minimum?: number | undefined;
  readonly maximum?: number | undefined;
  readonly exclusiveMinimum?: number | undefined;
  readonly exclusiveMaximum?: number | undefined;
  readonly multipleOf?: number | undefined;
}

/** A JSON primitive usable as a literal or enum value. */
export type Literal = string | number | boolean | null;

/** Copies the defined entries of `options`, so `exactOptionalPropertyTypes` callers can pass undefined. */
export function defined<T extends object>(options: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (!options) return out;
  for (const [k, v] of Object.entries(options)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Checks that `options` only has keys from `allowed`. */
export function checkKeys(where: string, options: unknown, allowed: readonly string[]): void {
  if (options === undefined) return;
  if (!isPlainObject(options)) fail(where, `options must be an object; got ${show(options)}`);
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) fail(where, `unknown option "${key}" (allowed: ${allowed.join(", ")})`);
  }
}

/** Checks a non-negative integer bound such as minLength. */
export function checkCount(where: string, name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    fail(where, `${name} must be a non-negative integer; got ${show(value)}`);
  }
}

/** Checks that `min <= max` when both are set. */
export function checkOrder(where: string, minName: string, min: number | undefined, maxName: string, max: number | undefined): void {
  if (min !== undefined && max !== undefined && min > max) fail(where, `${minName} (${min}) is greater than ${maxName} (${max})`);
}

const STRING_KEYS = ["format", "pattern", "minLength", "maxLength", "enum"] as const;

/** A string. With `enum`, the static type is the union of the values. */
export function string<const E extends readonly [string, ...string[]]>(options: StringOptions & { readonly enum: E }): Schema<E[number]>;
/** A string, with optional format, pattern and length limits. */
export function string(options?: StringOptions): Schema<string>;
export function string(options?: StringOptions): Schema<string> {
  return deferred({ type: "string" }, () => buildString(options));
}

function buildString(options: StringOptions | undefined): Schema<string> {
  const where = "string()";
  checkKeys(where, options, STRING_KEYS);
  const o = defined(options);
  if (o.format !== undefined && (typeof o.format !== "string" || o.format === "")) fail(where, "format must be a non-empty string");
  if (o.pattern !== undefined) {
    if (typeof o.pattern !== "string") fail(where, "pattern must be a string");
    try {
      new RegExp(o.pattern, "u");
    } catch (error) {
      fail(where, `pattern ${show(o.pattern)} is not a valid regular expression (${(error as Error).message})`);
    }
  }
  checkCount(where, "minLength", o.minLength);
  checkCount(where, "maxLength", o.maxLength);
  checkOrder(where, "minLength", o.minLength, "maxLength", o.maxLength);
  if (o.enum !== undefined) {
    if (!Array.isArray(o.enum) || o.enum.length === 0) fail(where, "enum must be a non-empty array of strings");
    for (const v of o.enum) if (typeof v !== "string") fail(where, `enum values must be strings; got ${show(v)}`);
    if (new Set(o.enum).size !== o.enum.length) fail(where, "enum has duplicate values");
  }
  const { enum: values, ...rest } = o;
  return createSchema({ type: "string", ...rest, ...(values ? { enum: [...values] } : {}) });
}

const NUMBER_KEYS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const;

function numeric(where: string, type: "number" | "integer", options: NumberOptions | undefined): Schema<number> {
  return deferred({ type }, () => buildNumeric(where, type, options));
}

function buildNumeric(where: string, type: "number" | "integer", options: NumberOptions | undefined): Schema<number> {
  checkKeys(where, options, NUMBER_KEYS);
  const o = defined(options);
  for (const key of NUMBER_KEYS) {
    const v = o[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v))) fail(where, `${key} must be a finite number; got ${show(v)}`);
  }
  if (o.multipleOf !== undefined && o.multipleOf <= 0) fail(where, `multipleOf must be greater than 0; got ${o.multipleOf}`);
  const low = Math.max(o.minimum ?? -Infinity, o.exclusiveMinimum ?? -Infinity);
  const high = Math.min(o.maximum ?? Infinity, o.exclusiveMaximum ?? Infinity);
  const strict = o.exclusiveMinimum !== undefined || o.exclusiveMaximum !== undefined;
  if (low > high || (strict && low === high)) fail(where, `no ${type} satisfies the bounds (lower ${low}, upper ${high})`);
  return createSchema({ type, ...o });
}

/** A number (float), with optional inclusive or exclusive bounds and `multipleOf`. */
export function number(options?: NumberOptions): Schema<number> {
  return numeric("number()", "number", options);
}

/** An integer, with optional inclusive or exclusive bounds and `multipleOf`. */
export function integer(options?: NumberOptions): Schema<number> {
  return numeric("integer()", "integer", options);
}

/** A boolean. */
export function boolean(): Schema<boolean> {
  return createSchema({ type: "boolean" });
}

function jsonType(value: Literal): string {
  if (value === null) return "null";
  return typeof value;
}

function checkLiteral(where: string, value: unknown): asserts value is Literal {
  const ok =
    value === null || typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
  if (!ok) fail(where, `values must be strings, finite numbers, booleans or null; got ${show(value)}`);
}

/** One of the given values (`enum`). All strings gives `type: "string"`. */
export function enumOf<const V extends readonly [Literal, ...Literal[]]>(values: V): Schema<V[number]> {
  return deferred({}, () => buildEnum(values));
}

function buildEnum<const V extends readonly [Literal, ...Literal[]]>(values: V): Schema<V[number]> {
  const where = "enumOf()";
  if (!Array.isArray(values) || values.length === 0) fail(where, "expects a non-empty array of values");
  for (const v of values) checkLiteral(where, v);
  if (new Set(values).size !== values.length) fail(where, "has duplicate values");
  const types = new Set(values.map(jsonType));
  const only = types.size === 1 ? [...types][0] : undefined;
  return createSchema({ ...(only !== undefined ? { type: only } : {}), enum: [...values] });
}

/** Exactly one value (`const`). */
export function literal<const V extends Literal>(value: V): Schema<V> {
  return deferred({}, () => {
    checkLiteral("literal()", value);
    return createSchema<V>({ type: jsonType(value), const: value });
  });
}

/** The JSON value `null`. */
export function nullValue(): Schema<null> {
  return createSchema({ type: "null" });
}

/** Any JSON value (the empty schema `{}`). */
export function unknownValue(): Schema<unknown> {
  return createSchema({});
}

/**
 * Raw JSON Schema, used as is: the escape hatch for keywords the builders do not cover.
 * Give the static type yourself: `raw<{ id: string }>({ type: "object", ... })`.
 */
export function raw<T = unknown>(json: JsonSchema): Schema<T> {
  return deferred({}, () => {
    if (!isPlainObject(json)) fail("raw()", `expects a JSON Schema object; got ${show(json)}`);
    assertJson("raw()", "the schema", json);
    return createSchema<T>(Object.freeze({ ...json }));
  });
}
