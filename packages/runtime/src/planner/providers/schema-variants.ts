/**
 * Schema certification per provider: `providerSchema(schema, provider)` gives the variant a
 * provider accepts and the notes on every rewrite; `restoreArguments` maps a model's arguments
 * from a variant back to the original shape before validation.
 */
import { geminiPropertyNames, toGeminiSchema } from "./gemini-schema.js";
import { toOpenAIStrictSchema } from "./openai-schema.js";
import {
  allowsNull,
  definitionsOf,
  isSchema,
  type JsonSchema,
  NoteSink,
  requiredSet,
  resolveRef,
  type SchemaProvider,
  type SchemaVariant,
  schemaEntries,
  typesOf,
} from "./schema-walk.js";

/** The Anthropic variant: `input_schema` takes JSON Schema as is, but needs an object with no union at the top. */
export function toAnthropicSchema(input: JsonSchema): SchemaVariant {
  const sink = new NoteSink();
  let schema: JsonSchema = input;
  for (const key of ["anyOf", "oneOf", "allOf"])
    if (input[key] !== undefined)
      sink.add("error", "", key, `the arguments schema uses ${key} at the top level, which Anthropic's input_schema rejects`);
  if (input.type === undefined && input.properties !== undefined) {
    sink.add("info", "", "type", "type object added at the top level");
    schema = { type: "object", ...input };
  } else if (!typesOf(input).includes("object") || typesOf(input).length > 1)
    sink.add("error", "", "type", "the arguments schema is not an object; Anthropic needs type object at the top level");
  return { provider: "anthropic", schema, notes: sink.notes };
}

// Keyed by the schema object (generated specs hold one object per tool): converting on every
// model turn would cost more than the call. Weak, so a dropped catalogue frees its variants.
const cache = new WeakMap<object, Map<SchemaProvider, SchemaVariant>>();

/** The variant of `schema` for `provider` (OpenAI: strict mode). Cached per schema object. */
export function providerSchema(schema: JsonSchema, provider: SchemaProvider): SchemaVariant {
  let byProvider = cache.get(schema);
  if (!byProvider) {
    byProvider = new Map();
    cache.set(schema, byProvider);
  }
  const hit = byProvider.get(provider);
  if (hit) return hit;
  const variant =
    provider === "openai" ? toOpenAIStrictSchema(schema) : provider === "gemini" ? toGeminiSchema(schema) : toAnthropicSchema(schema);
  byProvider.set(provider, variant);
  return variant;
}

/** As deep as the variants keep (gemini-schema.ts); a model's deeper output is left as it came. */
const MAX_DEPTH = 64;

/**
 * The object schema `value` was produced from: the schema itself, or for a union the first object
 * branch whose property names cover every key of the value (under Gemini's renames), since the
 * branch decides which renames and null rules apply.
 */
function objectShape(
  schema: JsonSchema,
  value: { readonly [key: string]: unknown },
  root: JsonSchema,
  defs: Map<string, JsonSchema>,
  provider: SchemaProvider,
): JsonSchema | undefined {
  if (schema.properties !== undefined) return schema;
  const branches = (schema.anyOf ?? schema.oneOf) as unknown;
  if (!Array.isArray(branches)) return undefined;
  const keys = Object.keys(value);
  for (const raw of branches) {
    const b = isSchema(raw) && typeof raw.$ref === "string" ? resolveRef(raw.$ref, root, defs) : raw;
    if (!isSchema(b) || b.properties === undefined) continue;
    const names = schemaEntries(b.properties).map(([k]) => k);
    const known = new Set(provider === "gemini" ? geminiPropertyNames(names).values() : names);
    if (keys.every((k) => known.has(k))) return b;
  }
  return undefined;
}

/**
 * Maps arguments a model produced from `provider`'s variant back to `original`'s shape: Gemini
 * property names renamed back; for OpenAI strict, a `null` on a property that was optional and does
 * not accept null is dropped (it stands for "omitted"). Never throws; unknown parts are kept.
 */
export function restoreArguments(value: unknown, original: JsonSchema, provider: SchemaProvider): unknown {
  // Anthropic's variant is the original schema: nothing to map.
  if (provider === "anthropic") return value;
  const defs = definitionsOf(original);
  const walk = (v: unknown, schema: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH || !isSchema(schema) || typeof v !== "object" || v === null) return v;
    if (typeof schema.$ref === "string") return walk(v, resolveRef(schema.$ref, original, defs), depth + 1);
    if (Array.isArray(v)) return isSchema(schema.items) ? v.map((item) => walk(item, schema.items, depth + 1)) : v;
    const obj = v as { readonly [key: string]: unknown };
    const shape = objectShape(schema, obj, original, defs, provider);
    if (!shape) return v;
    const props = new Map(schemaEntries(shape.properties));
    const back = new Map<string, string>();
    if (provider === "gemini") for (const [orig, renamed] of geminiPropertyNames([...props.keys()])) back.set(renamed, orig);
    const required = requiredSet(shape);
    // Unknown keys are copied as they are: the validator that runs next names them, with this field path.
    const out: { [key: string]: unknown } = {};
    for (const key of Object.keys(obj)) {
      const name = back.get(key) ?? key;
      const prop = props.get(name);
      const item = obj[key];
      if (provider === "openai" && item === null && prop && !required.has(name) && !allowsNull(prop, original, defs)) continue;
      // defineProperty: a model-supplied "__proto__" key stays a plain own key.
      Object.defineProperty(out, name, {
        value: prop ? walk(item, prop, depth + 1) : item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return walk(value, original, 0);
}

export { geminiPropertyNames, toGeminiSchema } from "./gemini-schema.js";
export { nullable, toOpenAIStrictSchema } from "./openai-schema.js";
export type { JsonSchema, SchemaNote, SchemaProvider, SchemaVariant } from "./schema-walk.js";
export { SCHEMA_PROVIDERS } from "./schema-walk.js";
