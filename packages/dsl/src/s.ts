/**
 * The `s` namespace: every schema builder under one short name, for designs that prefer
 * `s.object({ q: s.string() })` to individual imports.
 */
import { array, nullable, object, oneOf, record, union } from "./schema-composite.js";
import { collectDefs, named, toJsonSchema } from "./schema-named.js";
import { boolean, enumOf, integer, literal, nullValue, number, raw, string, unknownValue } from "./schema-primitives.js";

/** All schema builders: `s.string()`, `s.object({...})`, `s.named("T", ...)`, `s.raw({...})`... */
export const s = Object.freeze({
  string,
  number,
  integer,
  boolean,
  enum: enumOf,
  enumOf,
  literal,
  const: literal,
  null: nullValue,
  unknown: unknownValue,
  array,
  object,
  record,
  map: record,
  union,
  anyOf: union,
  oneOf,
  nullable,
  named,
  raw,
  collectDefs,
  toJsonSchema,
});
