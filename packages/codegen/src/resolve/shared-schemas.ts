/**
 * Sub-schema sharing for the validators plugin: a sub-schema that occurs more than once in a
 * toolset (an entity shape in five tools, say) is hoisted into one schema of its own and every
 * occurrence becomes a `$ref` to it, so ajv compiles, and the generated file prints, it once.
 * Validation results are unchanged: only annotation keywords are ignored when comparing, and only
 * self-contained sub-schemas at value positions (properties, items, ...) are hoisted.
 */
import type { JsonSchema } from "@toolwright/dsl";

/** The URI prefix of hoisted schemas; absolute so a root's own `$id` cannot re-base it. */
export const SHARED_PREFIX = "urn:toolwright:shared:";

/** Keywords that never change what a validator accepts or the errors it reports. */
const ANNOTATIONS = new Set(["description", "title", "examples", "$comment", "deprecated", "readOnly", "writeOnly"]);
/** Keywords that make a sub-schema depend on where it sits, so it is never hoisted. */
const POSITIONAL = new Set([
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$recursiveAnchor",
  "$schema",
  "$defs",
  "definitions",
]);
/** Keywords whose value is one sub-schema at another instance location. */
const VALUE_ONE = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
/** Keywords whose value maps names to sub-schemas at other instance locations. */
const VALUE_MAP = new Set(["properties", "patternProperties"]);
/** Keywords holding in-place sub-schemas: walked for sharing below them, never hoisted themselves. */
const INPLACE_ONE = new Set(["not", "if", "then", "else"]);
const INPLACE_LIST = new Set(["allOf", "anyOf", "oneOf"]);
/** Below this many keywords a function call costs more than the inlined code. */
const MIN_WEIGHT = 4;

interface Info {
  readonly key: string;
  readonly weight: number;
  /** False when the sub-schema or anything inside it is positional. */
  readonly portable: boolean;
}

type Node = { [key: string]: unknown };

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of `node` with each sub-schema replaced by `f(child, hoistable)`; other values kept. */
function mapChildren(node: Node, f: (child: unknown, hoistable: boolean) => unknown): Node {
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (VALUE_ONE.has(k)) out[k] = f(v, true);
    else if (k === "prefixItems" && Array.isArray(v)) out[k] = v.map((c) => f(c, true));
    else if (VALUE_MAP.has(k) && isNode(v)) out[k] = mapValues(v, (c) => f(c, true));
    else if (k === "dependentSchemas" && isNode(v)) out[k] = mapValues(v, (c) => f(c, false));
    else if (INPLACE_ONE.has(k)) out[k] = f(v, false);
    else if (INPLACE_LIST.has(k) && Array.isArray(v)) out[k] = v.map((c) => f(c, false));
    else out[k] = v;
  }
  return out;
}

function mapValues(value: Node, f: (v: unknown) => unknown): Node {
  const out: Node = Object.create(null);
  for (const [k, v] of Object.entries(value)) out[k] = f(v);
  return out;
}

/**
 * Hoists repeated sub-schemas of `roots`. Returns the rewritten roots (same order; untouched roots
 * are returned as they were) and the hoisted schemas by `$ref` URI. Linear in the schemas' size.
 */
export function shareSubSchemas(roots: readonly JsonSchema[]): { roots: JsonSchema[]; shared: Map<string, JsonSchema> } {
  const info = new Map<Node, Info>();
  const counts = new Map<string, number>();
  // Bottom-up: a canonical key per node (annotations dropped, keys sorted) and its weight.
  const describe = (value: unknown): Info | undefined => {
    if (!isNode(value)) return undefined;
    const known = info.get(value);
    if (known) return known;
    let portable = true;
    let weight = 0;
    const parts: string[] = [];
    for (const k of Object.keys(value).sort()) {
      if (ANNOTATIONS.has(k)) continue;
      if (POSITIONAL.has(k)) portable = false;
      weight++;
      parts.push(`${JSON.stringify(k)}:${canonical(value[k], k)}`);
    }
    function canonical(v: unknown, k: string): string {
      if (VALUE_ONE.has(k) || INPLACE_ONE.has(k)) return sub(v);
      if ((k === "prefixItems" || INPLACE_LIST.has(k)) && Array.isArray(v)) return `[${v.map(sub).join(",")}]`;
      if ((VALUE_MAP.has(k) || k === "dependentSchemas") && isNode(v))
        // Property order is kept: ajv reports errors in it.
        return `{${Object.keys(v)
          .map((name) => `${JSON.stringify(name)}:${sub(v[name])}`)
          .join(",")}}`;
      return JSON.stringify(v);
    }
    function sub(v: unknown): string {
      const child = describe(v);
      if (child === undefined) return JSON.stringify(v);
      if (!child.portable) portable = false;
      weight += child.weight;
      return child.key;
    }
    const result = { key: `{${parts.join(",")}}`, weight, portable };
    info.set(value, result);
    return result;
  };
  // Count the nodes at hoistable positions (a node object reached twice counts twice).
  const walk = (value: unknown, hoistable: boolean): unknown => {
    if (!isNode(value)) return value;
    const node = describe(value);
    if (hoistable && node?.portable && node.weight >= MIN_WEIGHT) counts.set(node.key, (counts.get(node.key) ?? 0) + 1);
    mapChildren(value, walk);
    return value;
  };
  for (const root of roots) walk(root, false);
  // Top-down: replace repeated nodes by references; each hoisted body is rewritten once.
  const ids = new Map<string, string>();
  const shared = new Map<string, JsonSchema>();
  const uses = new Map<string, number>();
  const rewrite = (value: unknown, hoistable: boolean): unknown => {
    if (!isNode(value)) return value;
    const node = info.get(value);
    if (hoistable && node && (counts.get(node.key) ?? 0) > 1) {
      let id = ids.get(node.key);
      if (id === undefined) {
        id = `${SHARED_PREFIX}${ids.size}`;
        ids.set(node.key, id);
        shared.set(id, mapChildren(value, rewrite) as JsonSchema);
      }
      uses.set(id, (uses.get(id) ?? 0) + 1);
      return { $ref: id };
    }
    return mapChildren(value, rewrite);
  };
  const rewritten = roots.map((root) => rewrite(root, false) as JsonSchema);
  // A node repeated only inside one hoisted body is referenced once: put it back inline.
  const inline = (value: unknown): unknown => {
    if (!isNode(value)) return value;
    const ref = value.$ref;
    if (typeof ref === "string" && uses.get(ref) === 1 && Object.keys(value).length === 1) {
      const body = shared.get(ref);
      shared.delete(ref);
      return inline(body);
    }
    return mapChildren(value, inline);
  };
  const singles = [...uses].filter(([, n]) => n === 1).length;
  if (singles === 0) return { roots: rewritten, shared };
  const finalRoots = rewritten.map((root) => inline(root) as JsonSchema);
  for (const [id, body] of [...shared]) if (shared.has(id)) shared.set(id, inline(body) as JsonSchema);
  return { roots: finalRoots, shared };
}
