/**
 * The Gemini variant of an input schema: `$ref` inlined (recursion cannot be), the keyword subset
 * function declarations accept, `oneOf` as `anyOf`, and property names made to start with a letter
 * or `_` and use only `[A-Za-z0-9_]` (renamed back before validation).
 */
import {
  child,
  definitionsOf,
  fieldLabel,
  isSchema,
  itemsOf,
  type JsonSchema,
  NoteSink,
  requiredSet,
  resolveRef,
  type SchemaVariant,
  schemaEntries,
  typesOf,
} from "./schema-walk.js";

/** Keywords Gemini's function-declaration schema (an OpenAPI 3.0 subset) accepts, copied as they are. */
const KEPT = new Set([
  "type",
  "description",
  "enum",
  "nullable",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "default",
  "propertyOrdering",
]);
/** String and number formats Gemini accepts; others are dropped with a warning. */
const FORMATS = new Set(["date-time", "date", "time", "enum", "int32", "int64", "float", "double"]);
/** Annotations that carry no constraint: dropping them loses nothing the model needs (an info note only). */
const HARMLESS = new Set([
  "$schema",
  "$id",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
]);
/** Keywords the converter rewrites itself, so the keyword loop skips them. */
const HANDLED = new Set(["properties", "required", "additionalProperties", "items", "anyOf", "oneOf", "allOf", "$ref", "const", "format"]);
const MAX_NAME = 64;
/** Schema nodes one variant may hold: inlining `$ref` can grow a hostile schema exponentially. */
const MAX_NODES = 5000;
/** Nesting kept (a hostile 100,000-level schema must not overflow the stack). */
const MAX_DEPTH = 64;

/** Gemini-safe names for `keys`, in order: `[A-Za-z_][A-Za-z0-9_]{0,63}`, unique among siblings. */
export function geminiPropertyNames(keys: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  // Names that are already safe are reserved first and keep their spelling, so a renamed sibling
  // ("a-b" to "a_b") can never take the name of a real "a_b" whatever their order.
  const used = new Set(keys.filter((k) => /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)));
  for (const key of keys) {
    if (used.has(key) && !out.has(key) && /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(key)) {
      out.set(key, key);
      continue;
    }
    let base = key.replace(/[^A-Za-z0-9_]/g, "_");
    if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
    base = base.slice(0, MAX_NAME);
    // Collisions get _2, _3...; deterministic, so the mapping back is the same on every call.
    let name = base;
    for (let i = 2; used.has(name); i++) name = `${base.slice(0, MAX_NAME - String(i).length - 1)}_${i}`;
    used.add(name);
    out.set(key, name);
  }
  return out;
}

/** One conversion's shared state; `convert` recurses with the size and depth guards. */
interface Walk {
  readonly sink: NoteSink;
  readonly input: JsonSchema;
  readonly defs: ReturnType<typeof definitionsOf>;
  convert(node: unknown, field: string, stack: readonly string[]): JsonSchema;
}

/** Converts an input schema to Gemini's function-declaration subset, with a note for every rewrite. */
export function toGeminiSchema(input: JsonSchema): SchemaVariant {
  const sink = new NoteSink();
  let visits = 0;
  let depth = 0;
  const walk: Walk = {
    sink,
    input,
    defs: definitionsOf(input),
    convert(node, field, stack) {
      if (++visits > MAX_NODES) {
        // One note, not one per node: the walk goes on returning {} for every node past the limit.
        if (visits === MAX_NODES + 1) {
          const message = `the schema is too large for Gemini: over ${MAX_NODES} schema nodes once $ref is inlined (at ${fieldLabel(field)})`;
          sink.add("error", field, "size", message);
        }
        return {};
      }
      if (depth >= MAX_DEPTH) {
        // The field path of a deep schema is as deep as the schema: cut, so the note stays readable.
        const at = field.slice(0, 200);
        if (!sink.notes.some((n) => n.keyword === "depth")) {
          sink.add("error", at, "depth", `${fieldLabel(at)}: the schema nests deeper than the ${MAX_DEPTH} levels kept`);
        }
        return {};
      }
      depth++;
      try {
        return convertNode(walk, node, field, stack);
      } finally {
        depth--;
      }
    },
  };
  if (!(typesOf(input).includes("object") || (input.type === undefined && input.properties !== undefined)))
    sink.add("error", "", "type", "the arguments schema is not an object; Gemini needs type object at the top level");
  return { provider: "gemini", schema: walk.convert(input, "", []), notes: sink.notes };
}

/** One schema node: `$ref` and `allOf` resolved first, then keywords, types, unions, properties and items in turn. */
function convertNode(walk: Walk, node: unknown, field: string, stack: readonly string[]): JsonSchema {
  if (node === true || (isSchema(node) && Object.keys(node).length === 0)) return {};
  if (!isSchema(node)) {
    walk.sink.add("error", field, "type", `${fieldLabel(field)} is ${JSON.stringify(node)}, not a schema object`);
    return {};
  }
  if (typeof node.$ref === "string") return inlineRef(walk, node, node.$ref, field, stack);
  const src = Array.isArray(node.allOf) ? mergeAllOf(walk, node, node.allOf, field) : node;
  if (!src) return {};
  const out = keptKeywords(walk.sink, src, field);
  const types = typesOf(src);
  if (types.length > 1) {
    const nonNull = types.filter((t) => t !== "null");
    if (nonNull.length === 1) {
      out.type = nonNull[0];
      out.nullable = true;
      walk.sink.add("info", field, "type", `${fieldLabel(field)}: type ${JSON.stringify(types)} sent as ${nonNull[0]} with nullable`);
    } else {
      // Gemini takes one type per schema: a list becomes one branch per type, and that is the whole node.
      walk.sink.add("info", field, "type", `${fieldLabel(field)}: type list sent as anyOf`);
      delete out.type;
      out.anyOf = nonNull.map((t) => walk.convert({ ...src, type: t }, field, stack));
      if (types.includes("null")) out.nullable = true;
      return out;
    }
  }
  const union = (src.anyOf ?? src.oneOf) as unknown;
  if (Array.isArray(union)) {
    if (src.oneOf !== undefined)
      walk.sink.add("info", field, "oneOf", `${fieldLabel(field)}: oneOf sent as anyOf (Toolwright still checks exactly one matches)`);
    // A null branch is Gemini's `nullable`; a single branch left needs no anyOf at all.
    const branches = union.filter((b) => !(isSchema(b) && b.type === "null"));
    if (branches.length < union.length) out.nullable = true;
    if (branches.length === 1) Object.assign(out, walk.convert(branches[0], field, stack));
    else out.anyOf = branches.map((b) => walk.convert(b, field, stack));
  }
  if (types.includes("object") || (types.length === 0 && src.properties !== undefined)) convertObject(walk, src, field, stack, out);
  if (types.includes("array")) {
    if (isSchema(src.items)) out.items = walk.convert(src.items, itemsOf(field), stack);
    else if (src.items !== undefined)
      walk.sink.add("error", itemsOf(field), "items", `${fieldLabel(field)} uses tuple items, which Gemini cannot express`);
  }
  return out;
}

/** Gemini has no `$ref`: the target is inlined, its siblings kept. `stack` holds the refs being inlined, so a cycle is caught. */
function inlineRef(walk: Walk, src: JsonSchema, ref: string, field: string, stack: readonly string[]): JsonSchema {
  if (stack.includes(ref)) {
    const message = `${fieldLabel(field)} refers to itself (${ref}); Gemini needs $ref inlined and a recursive schema cannot be`;
    walk.sink.add("error", field, "$ref", message);
    return { type: "object" };
  }
  const target = resolveRef(ref, walk.input, walk.defs);
  if (!target) {
    walk.sink.add("error", field, "$ref", `${fieldLabel(field)}: $ref ${ref} does not resolve to a local definition`);
    return {};
  }
  walk.sink.add("info", field, "$ref", `${fieldLabel(field)}: $ref ${ref} inlined`);
  const { $ref: _ref, ...siblings } = src;
  return walk.convert({ ...target, ...siblings }, field, [...stack, ref]);
}

/** `allOf` over object schemas merges into one object (union of properties and required); anything else cannot be said. */
function mergeAllOf(walk: Walk, src: JsonSchema, allOf: readonly unknown[], field: string): JsonSchema | undefined {
  const branches = allOf.map((b) => (isSchema(b) && typeof b.$ref === "string" ? resolveRef(b.$ref, walk.input, walk.defs) : b));
  if (!branches.every((b) => isSchema(b) && (b.type === undefined || b.type === "object") && b.properties !== undefined)) {
    walk.sink.add("error", field, "allOf", `${fieldLabel(field)} uses allOf over non-object schemas, which Gemini cannot express`);
    return undefined;
  }
  const properties: { [key: string]: unknown } = {};
  const required = new Set<string>();
  for (const b of branches as JsonSchema[]) {
    for (const [k, v] of schemaEntries(b.properties)) properties[k] = v;
    for (const r of requiredSet(b)) required.add(r);
  }
  walk.sink.add("info", field, "allOf", `${fieldLabel(field)}: allOf of objects merged into one object`);
  const { allOf: _a, ...rest } = src;
  return { ...rest, type: "object", properties, required: [...required] };
}

/**
 * The keywords Gemini accepts, copied; every other one dropped with a note (a warning when it
 * constrained values: the model no longer sees it, though Toolwright still validates it).
 * `const` becomes a one-value enum, non-string enums and unknown formats are dropped.
 */
function keptKeywords(sink: NoteSink, src: JsonSchema, field: string): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  for (const key of Object.keys(src)) {
    if (KEPT.has(key) || HANDLED.has(key)) continue;
    if (HARMLESS.has(key)) sink.add("info", field, key, `${fieldLabel(field)}: ${key} removed`);
    else
      sink.add(
        "warning",
        field,
        key,
        `${fieldLabel(field)}: ${key} removed (not in Gemini's schema subset; Toolwright still validates it)`,
      );
  }
  for (const key of KEPT) if (src[key] !== undefined) out[key] = src[key];
  if (src.const !== undefined) {
    sink.add("info", field, "const", `${fieldLabel(field)}: const sent as a one-value enum`);
    out.enum = [src.const];
  }
  if (Array.isArray(out.enum) && out.enum.some((v) => typeof v !== "string")) {
    sink.add(
      "warning",
      field,
      "enum",
      `${fieldLabel(field)}: non-string enum removed (Gemini enums are strings; Toolwright still validates it)`,
    );
    delete out.enum;
  }
  if (typeof src.format === "string") {
    if (FORMATS.has(src.format)) out.format = src.format;
    else sink.add("warning", field, "format", `${fieldLabel(field)}: format "${src.format}" removed (Toolwright still validates it)`);
  }
  return out;
}

/** An object's properties, renamed to Gemini-safe names (mapped back before validation), and its required list to match. */
function convertObject(walk: Walk, src: JsonSchema, field: string, stack: readonly string[], out: { [key: string]: unknown }): void {
  out.type = "object";
  const props = schemaEntries(src.properties);
  const names = geminiPropertyNames(props.map(([k]) => k));
  // Property names come from a live server's schema: "__proto__" must stay a property.
  const properties: { [key: string]: unknown } = Object.create(null);
  for (const [key, prop] of props) {
    const name = names.get(key) ?? key;
    if (name !== key)
      walk.sink.add("info", child(field, key), "properties", `${child(field, key)}: property renamed to ${name} for Gemini (mapped back)`);
    properties[name] = walk.convert(prop, child(field, key), stack);
  }
  if (props.length > 0) out.properties = properties;
  const required = [...requiredSet(src)].filter((r) => names.has(r)).map((r) => names.get(r) as string);
  if (required.length > 0) out.required = required;
  const extra = src.additionalProperties;
  if (isSchema(extra) && Object.keys(extra).length > 0) {
    const message = `${fieldLabel(field)}: map values' schema removed (Gemini cannot describe open maps; Toolwright still validates them)`;
    walk.sink.add("warning", field, "additionalProperties", message);
  } else if (extra !== undefined)
    walk.sink.add("info", field, "additionalProperties", `${fieldLabel(field)}: additionalProperties removed`);
}
