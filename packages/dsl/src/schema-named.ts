/**
 * Named types shared through `$ref`/`$defs`, including recursive ones.
 *
 * `named("Address", object({...}))` returns a builder whose JSON is only
 * `{ "$ref": "#/$defs/Address" }`. The definition travels beside the JSON, not inside it, so
 * whoever builds the final document (the code generator) calls `collectDefs(schema)` to get every
 * definition a schema uses, or `toJsonSchema(schema)` for a self-contained document with `$defs`.
 */
import { DslError, fail, isPlainObject, type Problem, problemOf, show } from "./errors.js";
import {
  type AnySchema,
  assertSchema,
  createSchema,
  deferred,
  definitionOf,
  definitionsNamed,
  isSchema,
  type JsonSchema,
  type NamedDefinition,
  registerRef,
  type Schema,
} from "./schema.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;

/**
 * A named type, emitted as `{ "$ref": "#/$defs/<name>" }`.
 * Recursive form: `named<TreeNode>("TreeNode", (self) => object({ children: array(self) }))`;
 * TypeScript cannot infer a recursive type, so give it as the type argument.
 */
export function named<T>(name: string, build: (self: Schema<T>) => Schema<T, boolean>): Schema<T>;
/** A named type around an existing schema: `named("Address", object({...}))`. */
export function named<T>(name: string, schema: Schema<T, boolean>): Schema<T>;
export function named<T>(name: string, body: ((self: Schema<T>) => Schema<T, boolean>) | Schema<T, boolean>): Schema<T> {
  return deferred({}, () => buildNamed(name, body));
}

function buildNamed<T>(name: string, body: ((self: Schema<T>) => Schema<T, boolean>) | Schema<T, boolean>): Schema<T> {
  const where = `named(${show(name)})`;
  if (typeof name !== "string" || !NAME.test(name)) {
    fail(where, "the name must start with a letter or underscore and use only letters, digits, _ . - (at most 128 characters)");
  }
  const definition: NamedDefinition = { name, body: undefined };
  const json: JsonSchema = Object.freeze({ $ref: `#/$defs/${name}` });
  registerRef(json, definition);
  const self = createSchema<T>(json);
  const built: unknown = typeof body === "function" ? body(self) : body;
  assertSchema(where, typeof body === "function" ? "the value returned by the build function" : "the schema", built);
  if (built.isOptional) fail(where, "a named type cannot be optional; call .optional() on the named type where it is used");
  if (built.json === json) fail(where, "the build function returned `self`; a type cannot be defined as itself");
  definition.body = built.json;
  return self;
}

/**
 * Every named definition a schema uses, keyed by name, in first-use order, following definitions
 * that use other definitions (and themselves). Accepts a builder or its `.json`.
 * Place the result under `$defs` of the document root (e.g. a tool's `inputSchema`).
 * The lookup follows object identity; on a JSON copy it falls back to the name, which works while
 * one schema has that name. Throws a `DslError` when two different schemas share one name.
 */
export function collectDefs(schema: AnySchema | JsonSchema): { readonly [name: string]: JsonSchema } {
  const root: unknown = isSchema(schema) ? schema.json : schema;
  const own = isPlainObject(root) && isPlainObject(root.$defs) ? root.$defs : {};
  const defs: Record<string, JsonSchema> = {};
  const add = (name: string, body: JsonSchema | undefined, seen: Set<object>) => {
    if (body === undefined) throw new DslError(`named(${show(name)})`, "the definition is used before it is complete");
    const known = defs[name];
    if (known === undefined) {
      defs[name] = body;
      visit(body, seen);
    } else if (known !== body && JSON.stringify(known) !== JSON.stringify(body)) {
      throw new DslError(`named(${show(name)})`, `two different schemas use the same name "${name}"`);
    }
  };
  // Depth-first in document order, so the order of the result is stable and readable.
  const visit = (node: unknown, seen: Set<object>): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    const definition = definitionOf(node);
    if (definition) add(definition.name, definition.body, seen);
    else {
      // A copied `$ref` node: resolve by name when exactly one definition has it (and the
      // document does not define the name itself).
      const ref = (node as { $ref?: unknown }).$ref;
      const name = typeof ref === "string" && ref.startsWith("#/$defs/") ? ref.slice(8) : undefined;
      if (name !== undefined && !Object.hasOwn(own, name) && defs[name] === undefined) {
        const candidates = definitionsNamed(name);
        if (candidates.length > 1) throw new DslError(`named(${show(name)})`, `two different schemas use the same name "${name}"`);
        if (candidates.length === 1) add(name, candidates[0]?.body, seen);
      }
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) visit(child, seen);
  };
  visit(root, new Set());
  return defs;
}

/** A JSON pointer segment (RFC 6901). */
const segment = (key: string) => `/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;

/**
 * The first builder mistake recorded in a schema (see `PROBLEM`), with the JSON pointer of the
 * node in the final document (named definitions are under `/$defs/<name>`), in document order.
 */
export function findProblem(schema: AnySchema | JsonSchema): { readonly at: string; readonly problem: Problem } | undefined {
  const seen = new Set<object>();
  const visit = (node: unknown, at: string): { at: string; problem: Problem } | undefined => {
    if (typeof node !== "object" || node === null || seen.has(node)) return undefined;
    seen.add(node);
    const problem = problemOf(node);
    if (problem) return { at: at === "" ? "/" : at, problem };
    const definition = definitionOf(node);
    if (definition?.body !== undefined) {
      const found = visit(definition.body, `/$defs${segment(definition.name)}`);
      if (found) return found;
    }
    const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
    for (const [key, child] of entries) {
      // Values under these keywords are data, not schemas.
      if (!Array.isArray(node) && (key === "enum" || key === "const" || key === "examples" || key === "default")) continue;
      const found = visit(child, `${at}${segment(key)}`);
      if (found) return found;
    }
    return undefined;
  };
  return visit(isSchema(schema) ? schema.json : schema, "");
}

/**
 * A self-contained JSON Schema 2020-12 document: the schema with every named definition under
 * `$defs` (merged with any `$defs` it already has). When the root itself is a named type, its
 * definition is inlined at the root so the document still has `type: "object"`, as MCP requires
 * for `inputSchema`. Throws a `DslError` naming the builder and the JSON pointer of the first
 * mistake a builder recorded in the schema.
 */
export function toJsonSchema(schema: AnySchema | JsonSchema): JsonSchema {
  const json: unknown = isSchema(schema) ? schema.json : schema;
  if (!isPlainObject(json)) fail("toJsonSchema()", `expects a schema builder or a JSON Schema object; got ${show(json)}`);
  const found = findProblem(json);
  if (found) throw new DslError(`${found.problem.where} at ${found.at}`, found.problem.detail, { location: { pointer: found.at } });
  const defs = collectDefs(json);
  const definition = definitionOf(json);
  const { $ref: _ref, ...rest } = json;
  const root: JsonSchema = definition?.body ? { ...definition.body, ...rest } : json;
  const own = isPlainObject(root.$defs) ? root.$defs : {};
  const merged = { ...own, ...defs };
  if (Object.keys(merged).length === 0) return root;
  return { ...root, $defs: merged };
}
