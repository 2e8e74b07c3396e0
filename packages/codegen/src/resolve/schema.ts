/**
 * Schema helpers for the resolver: turn a DSL builder or raw JSON Schema into a normalized,
 * self-contained 2020-12 document, check it, and read facts out of it (field descriptions, refs).
 */
import type { JsonSchema } from "@toolwright/dsl";
import type { Options } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** A fresh ajv 2020-12 instance configured the same way for checking and for code generation. */
export function createAjv(code?: Options["code"], extra?: Options): Ajv2020 {
  // ownProperties: inherited names such as "constructor" must not count as present.
  // With `code` (the validators plugin) every schema was already checked against the meta-schema in
  // resolve; not checking it again saves about 30% of the compile time.
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    logger: false,
    ownProperties: true,
    ...(code ? { code, validateSchema: false } : {}),
    ...extra,
  });
  addFormats(ajv);
  return ajv;
}

/** `$schema` values for the drafts `upgrade` understands; any other dialect is kept for ajv to judge. */
const KNOWN_DIALECTS = /^https?:\/\/json-schema\.org\/(draft-0[4-7]\/schema|draft\/2019-09\/schema|draft\/2020-12\/schema)#?$/;

/** The JSON Schema node a DSL value stands for: a builder's `.json`, or the raw object itself. */
export function schemaJson(value: unknown): JsonSchema | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as { kind?: unknown; json?: unknown };
  if (v.kind === "schema" && typeof v.json === "object" && v.json !== null) return v.json as JsonSchema;
  return value as JsonSchema;
}

/**
 * A deep copy that is plain JSON: the schema is printed into generated code and hashed into
 * fingerprints, so a function, a NaN or a cycle would produce code or hashes that do not round
 * trip. `undefined` members are dropped (JSON.stringify would drop them too). `seen` holds the
 * current path only, so a subschema shared in two places is fine and only a real cycle fails.
 */
function clone(value: unknown, seen: Set<unknown>): Json {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`schema holds a non-finite number (${value})`);
    return value;
  }
  if (typeof value !== "object") throw new Error(`schema holds a ${typeof value}, which JSON cannot represent`);
  if (seen.has(value)) throw new Error("schema is a cyclic object; use named types with $ref for recursion");
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => clone(v, seen));
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      // Generated objects, validators and types would all read the prototype instead of the key.
      if (k === "__proto__") throw new Error('the key "__proto__" is not supported in schemas (JavaScript objects cannot carry it safely)');
      out[k] = clone(v, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** Older-draft keywords rewritten to their 2020-12 spelling (servers often send draft-07). */
function upgrade(node: Json, isRoot: boolean): Json {
  if (Array.isArray(node)) return node.map((n) => upgrade(n, false));
  if (node === null || typeof node !== "object") return node;
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === "enum" || k === "const" || k === "examples" || k === "default" ? v : upgrade(v, false);
  // The rewritten document is 2020-12 whatever it declared; a nested $schema (allowed only at
  // resource roots) would make ajv switch dialects mid-schema.
  if (typeof out.$schema === "string" && KNOWN_DIALECTS.test(out.$schema)) delete out.$schema;
  else if (!isRoot && out.$schema !== undefined) delete out.$schema;
  // A root $id would clash between tools compiled into one validator module.
  if (isRoot) delete out.$id;
  // Draft-07 tuple form: items: [...] with additionalItems is 2020-12's prefixItems with items.
  if (Array.isArray(out.items)) {
    out.prefixItems = out.items;
    delete out.items;
    if (out.additionalItems !== undefined) {
      out.items = out.additionalItems;
      delete out.additionalItems;
    }
  }
  return out;
}

/** Far above any real schema, far below what recursion in ajv and the emitters can take. */
const MAX_SCHEMA_DEPTH = 256;

/** True when `value` nests objects or arrays deeper than `limit` (walked without recursion). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  const seen = new Set<object>(); // cycles are left for clone() to report
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    if (depth > limit) return true;
    seen.add(node);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Deep-copies, checks JSON-ness and upgrades older-draft keywords. Throws with a plain message. */
export function normalizeSchema(value: unknown): JsonSchema {
  const json = schemaJson(value);
  if (json === undefined) throw new Error("schema must be a JSON Schema object or a schema builder");
  // Every later step recurses; a hostile schema must fail here with a reason, not a stack overflow.
  if (nestedDeeperThan(json, MAX_SCHEMA_DEPTH)) throw new Error(`schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  const copied = upgrade(clone(json, new Set()), true);
  // Frozen: the IR shares this object with every plugin, none of which may change it.
  return deepFreeze(copied) as JsonSchema;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Every `$ref` value in a schema, with its JSON pointer location. */
export function collectRefs(schema: JsonSchema): { readonly at: string; readonly ref: string }[] {
  const out: { at: string; ref: string }[] = [];
  const walk = (node: unknown, at: string, inData: boolean) => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) walk(n, `${at}/${i}`, inData);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (inData) continue;
      if (k === "$ref" && typeof v === "string") out.push({ at: at === "" ? "/" : at, ref: v });
      // Values under these keywords are data, not schemas.
      const data = k === "enum" || k === "const" || k === "examples" || k === "default";
      walk(v, `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, data);
    }
  };
  walk(schema, "", false);
  return out;
}

/** Resolves a local JSON pointer (`#/$defs/Node`) inside `root`, or `undefined`. */
export function resolvePointer(root: JsonSchema, ref: string): unknown {
  // RFC 6901 in a URI fragment: percent-decoded first, then ~1 is "/" and ~0 is "~" (in that order).
  if (!ref.startsWith("#")) return undefined;
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    // Own keys only: "#/constructor" must not resolve to Object.prototype.constructor.
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as { [key: string]: unknown })[key];
  }
  return node;
}

/** What is wrong with a schema, and where (a JSON pointer into it) when that is known. */
export interface SchemaProblem {
  readonly message: string;
  readonly pointer?: string;
}

/**
 * Checks a normalized schema: local refs only, every ref resolves, and ajv accepts it.
 * Returns the problem, or `undefined` when the schema is fine.
 */
export function checkSchema(ajv: Ajv2020, schema: JsonSchema): SchemaProblem | undefined {
  // Remote refs are refused rather than fetched: generation reads no network, and the generated
  // validator must be self-contained.
  for (const { at, ref } of collectRefs(schema)) {
    if (!ref.startsWith("#"))
      return {
        message: `$ref ${JSON.stringify(ref)} at ${at} points outside the schema; only local refs (#/$defs/...) are supported`,
        pointer: at,
      };
    if (resolvePointer(schema, ref) === undefined) return { message: `unresolved $ref ${JSON.stringify(ref)} at ${at}`, pointer: at };
  }
  const badPattern = findBadPattern(schema, "");
  if (badPattern !== undefined) return { message: `invalid schema: ${badPattern.message}`, pointer: badPattern.at };
  // Meta-schema validation is cheap and catches bad keywords, types and regexes (format "regex");
  // the full compile happens once, in `compileValidators` (validators.ts), which reports leftovers per tool.
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) === true;
  } catch (error) {
    return { message: `invalid schema: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!valid) {
    const first = ajv.errors?.[0]?.instancePath;
    return { message: `invalid schema: ${ajv.errorsText(ajv.errors, { dataVar: "schema" })}`, ...(first ? { pointer: first } : {}) };
  }
  return undefined;
}

/**
 * The first `pattern` (or `patternProperties` key) that is not a valid unicode regular expression.
 * Checked here with the `u` flag the generated validators use, so a pattern that only fails there
 * is reported at generation with its pointer instead of failing the generated module at load.
 */
function findBadPattern(node: unknown, at: string): { readonly message: string; readonly at: string } | undefined {
  if (Array.isArray(node)) {
    for (const [i, n] of node.entries()) {
      const found = findBadPattern(n, `${at}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof node !== "object" || node === null) return undefined;
  const n = node as { [key: string]: unknown };
  const patterns = [
    ...(typeof n.pattern === "string" ? [n.pattern] : []),
    ...(typeof n.patternProperties === "object" && n.patternProperties !== null ? Object.keys(n.patternProperties) : []),
  ];
  for (const p of patterns) {
    try {
      new RegExp(p, "u");
    } catch (error) {
      return {
        message: `pattern ${JSON.stringify(p)} at ${at || "/"} is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`,
        at: at || "/",
      };
    }
  }
  for (const [k, v] of Object.entries(n)) {
    if (k === "enum" || k === "const" || k === "examples" || k === "default") continue;
    const found = findBadPattern(v, `${at}/${k}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Field path → description for the properties of an object schema, following local refs once. */
export function fieldDescriptions(schema: JsonSchema): { [field: string]: string } {
  // `visiting` holds the current path: a recursive type is described once, not walked forever.
  const out: { [field: string]: string } = {};
  const visiting = new Set<unknown>();
  const walk = (node: unknown, path: string) => {
    if (typeof node !== "object" || node === null || visiting.has(node)) return;
    let n = node as { [key: string]: unknown };
    if (typeof n.$ref === "string") {
      const target = resolvePointer(schema, n.$ref);
      if (typeof target === "object" && target !== null) n = { ...(target as object), ...n, $ref: undefined };
    }
    visiting.add(node);
    if (path !== "" && typeof n.description === "string" && out[path] === undefined) out[path] = n.description;
    const props = n.properties;
    if (typeof props === "object" && props !== null) {
      for (const [key, child] of Object.entries(props)) walk(child, path === "" ? key : `${path}.${key}`);
    }
    if (typeof n.items === "object" && n.items !== null) walk(n.items, `${path}[]`);
    visiting.delete(node);
  };
  walk(schema, "");
  return out;
}
