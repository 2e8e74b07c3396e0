/**
 * A checker for the part of JSON Schema 2020-12 that `config-schema.ts` uses, reporting every
 * problem with the JSON pointer of the field and the schema's `x-message` sentence.
 *
 * Hand-written, not ajv: the runtime has no npm dependencies (it is what every generated caller
 * imports), and the config schema uses a dozen keywords. `test/manager/config-schema.test.ts` runs
 * ajv and this checker over the same samples, including a fast-check property, so the two agree.
 */

/** One problem in a checked value, located by JSON pointer. */
export interface ConfigIssue {
  readonly pointer: string;
  readonly message: string;
}

/** A (sub)schema: read-only JSON, as written in `config-schema.ts`. */
export type SchemaNode = { readonly [keyword: string]: unknown };

/** Escapes one JSON pointer segment (RFC 6901). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

const isRecord = (v: unknown): v is { readonly [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);
const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

function typeMatches(type: unknown, v: unknown): boolean {
  switch (type) {
    case "object":
      return isRecord(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    default:
      return true;
  }
}

interface Context {
  readonly root: SchemaNode;
  readonly warnings: string[];
}

/** Walks `value` against `schema`; issues go to `out` (undefined: only the verdict is wanted). */
function walk(schema: SchemaNode, value: unknown, pointer: string, cx: Context, out: ConfigIssue[] | undefined): boolean {
  const own = ownProblem(schema, value, cx);
  // A value of the right type for exactly one alternative is judged by that alternative, so
  // `lifecycle: { idleTimeoutMs: 0 }` points at idleTimeoutMs instead of at the whole choice.
  const alternatives = (schema.oneOf ?? schema.anyOf) as readonly SchemaNode[] | undefined;
  const typed = alternatives?.filter((a) => a.type !== undefined && typeMatches(a.type, value)) ?? [];
  const [only] = typed;
  if (
    own !== undefined &&
    typed.length === 1 &&
    only !== undefined &&
    ownProblem({ ...schema, oneOf: undefined, anyOf: undefined }, value, cx) === undefined
  )
    return walk(only, value, pointer, cx, out);
  if (own !== undefined) {
    const message = typeof schema["x-message"] === "string" ? schema["x-message"] : own;
    const at = typeof schema["x-at"] === "string" ? `${pointer}/${schema["x-at"]}` : pointer;
    out?.push({ pointer: at, message: message.replace("{value}", show(value)) });
    if (schema.type !== undefined && !typeMatches(schema.type, value)) return false;
  }
  let ok = own === undefined;
  if (typeof schema.$ref === "string") ok = walk(resolveRef(cx.root, schema.$ref), value, pointer, cx, out) && ok;
  for (const member of (schema.allOf as readonly SchemaNode[] | undefined) ?? []) ok = walk(member, value, pointer, cx, out) && ok;
  if (isRecord(value)) ok = walkObject(schema, value, pointer, cx, out) && ok;
  if (Array.isArray(value) && isRecord(schema.items))
    value.forEach((item, i) => {
      ok = walk(schema.items as SchemaNode, item, `${pointer}/${i}`, cx, out) && ok;
    });
  return ok;
}

/** The first failing keyword of this schema itself (not its children), as a default sentence. */
function ownProblem(s: SchemaNode, v: unknown, cx: Context): string | undefined {
  const valid = (sub: unknown) => walk(sub as SchemaNode, v, "", cx, undefined);
  if (s.type !== undefined && !typeMatches(s.type, v))
    return `must be ${s.type === "integer" || s.type === "array" || s.type === "object" ? "an" : "a"} ${s.type}`;
  if ("const" in s && v !== s.const) return `must be ${show(s.const)}`;
  if (Array.isArray(s.enum) && !s.enum.includes(v)) return `must be one of ${s.enum.join(", ")}`;
  if (typeof v === "string" && typeof s.minLength === "number" && [...v].length < s.minLength)
    return `must have at least ${s.minLength} characters`;
  if (typeof v === "string" && typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(v)) return `must match ${s.pattern}`;
  if (typeof v === "number" && typeof s.exclusiveMinimum === "number" && !(v > s.exclusiveMinimum))
    return `must be greater than ${s.exclusiveMinimum}`;
  if (isRecord(v) && Array.isArray(s.required)) {
    const missing = s.required.find((k: string) => v[k] === undefined);
    if (missing !== undefined) return `needs ${missing}`;
  }
  if (s.not !== undefined && valid(s.not)) return "is not allowed here";
  if (Array.isArray(s.anyOf) && !s.anyOf.some(valid)) return "matches none of the allowed forms";
  if (Array.isArray(s.oneOf) && s.oneOf.filter(valid).length !== 1) return "must match exactly one of the allowed forms";
  if (s.if !== undefined && s.then !== undefined && valid(s.if) && !valid(s.then)) return "breaks a rule for this kind of entry";
  return undefined;
}

function walkObject(
  s: SchemaNode,
  v: { readonly [key: string]: unknown },
  pointer: string,
  cx: Context,
  out: ConfigIssue[] | undefined,
): boolean {
  let ok = true;
  const properties = isRecord(s.properties) ? (s.properties as { readonly [key: string]: SchemaNode }) : undefined;
  // A key holding `undefined` cannot come from JSON; objects built in code use it for "absent".
  for (const key of Object.keys(v).filter((k) => v[k] !== undefined)) {
    const at = `${pointer}/${pointerSegment(key)}`;
    if (isRecord(s.propertyNames) && !walk(s.propertyNames as SchemaNode, key, at, cx, undefined)) {
      ok = false;
      const names = s.propertyNames as SchemaNode;
      const message = typeof names["x-message"] === "string" ? names["x-message"] : "is not an allowed name";
      out?.push({ pointer: at, message: message.replace("{value}", show(key)) });
    }
    if (properties !== undefined && Object.hasOwn(properties, key)) {
      ok = walk(properties[key] as SchemaNode, v[key], at, cx, out) && ok;
    } else if (s.additionalProperties === false) {
      ok = false;
      out?.push({ pointer: at, message: "unknown field" });
    } else if (isRecord(s.additionalProperties)) {
      ok = walk(s.additionalProperties as SchemaNode, v[key], at, cx, out) && ok;
    } else if (s["x-unknown"] === "warn" && out !== undefined) {
      cx.warnings.push(`${at}: unknown field ignored`);
    }
  }
  return ok;
}

function resolveRef(root: SchemaNode, ref: string): SchemaNode {
  const path = ref.replace(/^#\//, "").split("/");
  let node: unknown = root;
  for (const segment of path) node = isRecord(node) ? node[segment.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  if (!isRecord(node)) throw new Error(`schema reference ${ref} does not resolve`);
  return node;
}

/**
 * Checks `value` against `schema` (or the subschema at `at`, a `#/...` reference into it) and
 * returns every problem; keys that an object marked `x-unknown: "warn"` does not list go to
 * `warnings` as "<pointer>: unknown field ignored".
 */
export function checkSchema(
  schema: SchemaNode,
  value: unknown,
  options: { pointer?: string; at?: string; warnings?: string[] } = {},
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const cx: Context = { root: schema, warnings: options.warnings ?? [] };
  walk(options.at === undefined ? schema : resolveRef(schema, options.at), value, options.pointer ?? "", cx, out);
  return out;
}
