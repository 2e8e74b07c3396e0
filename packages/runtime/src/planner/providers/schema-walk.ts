/**
 * Shared pieces of the provider schema rewrites: the note a rewrite leaves, field paths in the
 * style of `FieldIssue.field`, local `$ref` resolution and null-type helpers.
 */

/** JSON Schema as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/** The providers whose tool schemas Toolwright certifies. */
export type SchemaProvider = "openai" | "anthropic" | "gemini";

/** The providers, in report order. */
export const SCHEMA_PROVIDERS: readonly SchemaProvider[] = ["openai", "anthropic", "gemini"];

/**
 * One change a provider variant needed. `error`: the schema cannot be represented faithfully (the
 * tool must not be offered in that form); `warning`: the provider no longer sees a constraint the
 * local validator still enforces; `info`: a rewrite with no loss (arguments are mapped back).
 */
export interface SchemaNote {
  readonly severity: "error" | "warning" | "info";
  /** Field path (`entities[].name`), `""` for the arguments object itself. */
  readonly field: string;
  /** The keyword the note is about (`additionalProperties`, `format`, `$ref`, ...). */
  readonly keyword: string;
  readonly message: string;
}

/** A provider's variant of one input schema. */
export interface SchemaVariant {
  readonly provider: SchemaProvider;
  readonly schema: JsonSchema;
  readonly notes: readonly SchemaNote[];
}

/** Collects notes while a rewrite walks a schema. */
export class NoteSink {
  readonly notes: SchemaNote[] = [];
  add(severity: SchemaNote["severity"], field: string, keyword: string, message: string): void {
    if (this.notes.some((n) => n.field === field && n.keyword === keyword && n.message === message)) return;
    this.notes.push({ severity, field, keyword, message });
  }
}

/** `base.key` in field-path style. */
export function child(base: string, key: string): string {
  return base === "" ? key : `${base}.${key}`;
}

/** `base[]` for array items. */
export function itemsOf(base: string): string {
  return `${base}[]`;
}

/** Shows a field path in messages. */
export function fieldLabel(field: string): string {
  return field === "" ? "(arguments)" : field;
}

/** True for a schema object (not a boolean schema, an array or null). */
export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own enumerable entries of a schema map (`properties`, `$defs`), skipping non-schema values. */
export function schemaEntries(value: unknown): [string, JsonSchema][] {
  if (!isSchema(value)) return [];
  return Object.keys(value)
    .filter((k) => isSchema(value[k]))
    .map((k) => [k, value[k] as JsonSchema]);
}

/** The definitions a local `$ref` can point at: `$defs` and draft-07 `definitions`. */
export function definitionsOf(root: JsonSchema): Map<string, JsonSchema> {
  const defs = new Map<string, JsonSchema>();
  for (const [k, v] of schemaEntries(root.definitions)) defs.set(`#/definitions/${k}`, v);
  for (const [k, v] of schemaEntries(root.$defs)) defs.set(`#/$defs/${k}`, v);
  return defs;
}

/** Decodes a JSON pointer ref into its last segment (`#/$defs/a~1b` → `a/b`). */
export function refName(ref: string): string {
  const last = ref.split("/").pop() ?? ref;
  return decodeURIComponent(last).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Resolves `#`, `#/$defs/x` and `#/definitions/x`; anything else is unresolvable (undefined). */
export function resolveRef(ref: string, root: JsonSchema, defs: Map<string, JsonSchema>): JsonSchema | undefined {
  if (ref === "#") return root;
  const direct = defs.get(ref);
  if (direct) return direct;
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  return m ? defs.get(`#/${m[1]}/${refName(ref)}`) : undefined;
}

/** The `type` keyword as a list (empty when absent). */
export function typesOf(schema: JsonSchema): string[] {
  const t = schema.type;
  if (typeof t === "string") return [t];
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
}

/** True when the schema accepts `null` on its own terms (type, enum, const or a union branch). */
export function allowsNull(schema: JsonSchema, root: JsonSchema, defs: Map<string, JsonSchema>, depth = 0): boolean {
  if (depth > 32) return false;
  if (Object.keys(schema).length === 0) return true;
  if (typesOf(schema).includes("null")) return true;
  if (schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.some((b) => isSchema(b) && allowsNull(b, root, defs, depth + 1))) return true;
  }
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, root, defs);
    return target ? allowsNull(target, root, defs, depth + 1) : false;
  }
  return false;
}

/** The property names `required` lists. */
export function requiredSet(schema: JsonSchema): Set<string> {
  return new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
}

/** A compact JSON rendering for messages. */
export function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
