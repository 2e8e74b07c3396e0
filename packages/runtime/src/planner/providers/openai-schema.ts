/**
 * The OpenAI strict-mode variant of an input schema (Structured Outputs rules): every property
 * required, optional ones nullable, `additionalProperties: false` on every object, `oneOf` as
 * `anyOf`, `definitions` as `$defs`, and keywords strict mode rejects removed.
 */
import {
  allowsNull,
  child,
  definitionsOf,
  fieldLabel,
  isSchema,
  itemsOf,
  type JsonSchema,
  NoteSink,
  requiredSet,
  type SchemaVariant,
  schemaEntries,
  typesOf,
} from "./schema-walk.js";

/** Formats strict mode accepts on strings. */
const STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
/** Nesting OpenAI allows in a strict schema. */
const MAX_DEPTH = 10;

/** Keywords strict mode accepts, copied as they are. */
const KEPT = new Set([
  "type",
  "description",
  "enum",
  "const",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);
/** Annotations that carry no constraint: dropping them loses nothing the model needs. */
const HARMLESS = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
]);
/** Constraints strict mode rejects; the local validator still enforces them. */
const DROPPED_CONSTRAINTS = new Set([
  "minLength",
  "maxLength",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "not",
  "if",
  "then",
  "else",
]);
/** Keywords rewritten by the converter itself (objects, unions, refs), so the keyword loop skips them. */
const HANDLED = new Set([
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "oneOf",
  "allOf",
  "$ref",
  "$defs",
  "definitions",
  "default",
  "format",
]);

/** Makes a converted schema also accept `null` (for a property that was optional). */
export function nullable(schema: JsonSchema): JsonSchema {
  // A $ref or an untyped node cannot take "null" in its type: it becomes one branch of an anyOf.
  // A typed node gets "null" added to its type (and to its enum, which would refuse null otherwise).
  if (typeof schema.$ref === "string" || (schema.type === undefined && !Array.isArray(schema.anyOf) && schema.enum === undefined))
    return { anyOf: [schema, { type: "null" }] };
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const out: { [key: string]: unknown } = { ...schema };
  const types = typesOf(schema);
  if (types.length > 0) out.type = [...types, "null"];
  if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
  return out;
}

/**
 * `allOf` over object schemas as one object: the union of properties and required names, the
 * first description. Undefined when a branch is not an object with properties (not expressible).
 */
function mergeAllOf(branches: readonly unknown[]): JsonSchema | undefined {
  const properties: { [key: string]: unknown } = {};
  const required: string[] = [];
  let description: string | undefined;
  for (const b of branches) {
    if (!isSchema(b) || (b.type !== undefined && b.type !== "object") || b.properties === undefined) return undefined;
    for (const [k, v] of schemaEntries(b.properties)) properties[k] = v;
    required.push(...requiredSet(b));
    if (typeof b.description === "string") description ??= b.description;
  }
  return { type: "object", properties, required: [...new Set(required)], ...(description ? { description } : {}) };
}

/** Converts an input schema to OpenAI strict form, with a note for every rewrite. */
export function toOpenAIStrictSchema(input: JsonSchema): SchemaVariant {
  const sink = new NoteSink();
  const defs = definitionsOf(input);

  function convert(node: unknown, field: string, depth: number): JsonSchema {
    if (!isSchema(node)) {
      sink.add(
        "error",
        field,
        "type",
        `${fieldLabel(field)} is ${JSON.stringify(node)}, not a schema object; strict mode needs a typed schema`,
      );
      return {};
    }
    if (depth > MAX_DEPTH) {
      sink.add("error", field, "depth", `${fieldLabel(field)} is nested deeper than the ${MAX_DEPTH} levels strict mode allows`);
      return {};
    }
    // allOf first: the merged object then goes through the same keyword and property rules.
    let src = node;
    if (Array.isArray(src.allOf)) {
      const merged = mergeAllOf(src.allOf);
      if (!merged) {
        sink.add("error", field, "allOf", `${fieldLabel(field)} uses allOf over non-object schemas, which strict mode cannot express`);
        return {};
      }
      sink.add("info", field, "allOf", `${fieldLabel(field)}: allOf of objects merged into one object`);
      const { allOf: _a, ...rest } = src;
      src = { ...rest, ...merged };
    }
    // A $ref is sent as a bare $ref (its target is converted once, under $defs, below); the
    // definitions are moved to $defs, so refs into definitions are rewritten with them.
    if (typeof src.$ref === "string") {
      const ref = src.$ref.replace(/^#\/definitions\//, "#/$defs/");
      if (ref !== src.$ref) sink.add("info", field, "$ref", `${fieldLabel(field)}: $ref to definitions rewritten to $defs`);
      if (!ref.startsWith("#")) sink.add("error", field, "$ref", `${fieldLabel(field)}: external $ref ${src.$ref} cannot be sent`);
      for (const k of Object.keys(src))
        if (k !== "$ref" && k !== "description") sink.add("info", field, k, `${fieldLabel(field)}: ${k} next to $ref dropped`);
      return { $ref: ref };
    }
    const out: { [key: string]: unknown } = {};
    for (const key of Object.keys(src)) {
      if (KEPT.has(key) || HANDLED.has(key)) continue;
      if (HARMLESS.has(key)) sink.add("info", field, key, `${fieldLabel(field)}: ${key} removed`);
      else if (DROPPED_CONSTRAINTS.has(key))
        sink.add("warning", field, key, `${fieldLabel(field)}: ${key} removed (strict mode rejects it; Toolwright still validates it)`);
      else if (key === "patternProperties" || key === "prefixItems")
        sink.add("error", field, key, `${fieldLabel(field)} uses ${key}, which strict mode cannot express`);
      else if (key === "unevaluatedProperties" && src[key] === false)
        sink.add("info", field, key, `${fieldLabel(field)}: unevaluatedProperties false as additionalProperties false`);
      else sink.add("warning", field, key, `${fieldLabel(field)}: unsupported keyword ${key} removed`);
    }
    for (const key of KEPT) if (src[key] !== undefined) out[key] = src[key];
    // Strict mode wants a type on every schema; a const's type is the type of its value.
    if (src.const !== undefined && src.type === undefined)
      out.type = src.const === null ? "null" : typeof src.const === "number" ? "number" : typeof src.const;
    if (src.default !== undefined)
      sink.add("info", field, "default", `${fieldLabel(field)}: default removed (omitting the field still gets the server's default)`);
    if (typeof src.format === "string") {
      if (STRICT_FORMATS.has(src.format)) out.format = src.format;
      else
        sink.add(
          "warning",
          field,
          "format",
          `${fieldLabel(field)}: format "${src.format}" removed (not a strict-mode format; Toolwright still validates it)`,
        );
    }
    const union = (src.anyOf ?? src.oneOf) as unknown;
    if (Array.isArray(union)) {
      if (src.oneOf !== undefined)
        sink.add("info", field, "oneOf", `${fieldLabel(field)}: oneOf sent as anyOf (Toolwright still checks exactly one matches)`);
      // At the top level a branch has no field name; "(anyOf i)" keeps its notes apart.
      out.anyOf = union.map((b, i) => convert(b, field === "" ? `(anyOf ${i})` : field, depth + 1));
      if (field === "") sink.add("error", "", "anyOf", "the arguments schema is a union at the top level; strict mode needs an object");
    }
    const types = typesOf(src);
    if (types.length === 0 && out.anyOf === undefined && out.enum === undefined && out.const === undefined) {
      if (src.properties !== undefined) out.type = "object";
      else sink.add("error", field, "type", `${fieldLabel(field)} accepts any value; strict mode needs a type for every schema`);
    }
    const isObject = types.includes("object") || out.type === "object";
    if (isObject) convertObject(src, out, field, depth);
    if (types.includes("array")) {
      if (isSchema(src.items)) out.items = convert(src.items, itemsOf(field), depth + 1);
      else if (src.items === undefined)
        sink.add("error", itemsOf(field), "items", `${fieldLabel(field)} is an array with no items schema; strict mode needs one`);
      else sink.add("error", itemsOf(field), "items", `${fieldLabel(field)} uses tuple items, which strict mode cannot express`);
    }
    return out;
  }

  /**
   * Strict objects list every property as required and allow no others. An optional property
   * becomes required but nullable, and a null answer is mapped back to "omitted" (schema-variants.ts), so the
   * server sees what a non-strict model would have sent. A property that already allowed null
   * keeps its null: then null is the model's real answer and is passed on.
   */
  function convertObject(src: JsonSchema, out: { [key: string]: unknown }, field: string, depth: number): void {
    const required = requiredSet(src);
    // Property names come from a live server's schema: "__proto__" must stay a property.
    const properties: { [key: string]: unknown } = Object.create(null);
    const props = schemaEntries(src.properties);
    for (const [key, prop] of props) {
      const path = child(field, key);
      const converted = convert(prop, path, depth + 1);
      if (required.has(key)) properties[key] = converted;
      else if (allowsNull(prop, input, defs)) {
        sink.add("info", path, "required", `${path}: optional and nullable; required now, and null is passed on as null`);
        properties[key] = converted;
      } else {
        sink.add("info", path, "required", `${path}: optional, now required and nullable (null is mapped back to omitted)`);
        properties[key] = nullable(converted);
      }
    }
    out.type = out.type ?? "object";
    out.properties = properties;
    out.required = props.map(([k]) => k);
    const extra = src.additionalProperties;
    if (isSchema(extra) && Object.keys(extra).length > 0)
      sink.add(
        "error",
        field,
        "additionalProperties",
        `${fieldLabel(field)} is an open map (additionalProperties is a schema), which strict mode cannot express`,
      );
    else if (extra !== false && src.unevaluatedProperties !== false)
      sink.add("info", field, "additionalProperties", `${fieldLabel(field)}: additionalProperties set to false`);
    out.additionalProperties = false;
  }

  const schema = convert(input, "", 0);
  if (!(typesOf(input).includes("object") || (input.type === undefined && input.properties !== undefined)))
    sink.add("error", "", "type", "the arguments schema is not an object; strict mode needs type object at the top level");
  // Each definition is converted once, under $defs: a recursive type stays a $ref instead of being unrolled.
  const $defs: { [key: string]: unknown } = {};
  for (const [ref, def] of defs) $defs[ref.replace(/^#\/(\$defs|definitions)\//, "")] = convert(def, `$defs.${ref.split("/").pop()}`, 1);
  if (defs.size > 0) (schema as { [key: string]: unknown }).$defs = $defs;
  if (input.definitions !== undefined) sink.add("info", "", "definitions", "definitions moved to $defs");
  return { provider: "openai", schema, notes: sink.notes };
}
