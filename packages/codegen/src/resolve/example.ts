/**
 * A synthetic example payload for tools that declare none, so every spec can show models a valid
 * call. Conservative: when a schema uses keywords we cannot satisfy by construction (pattern, not,
 * if/then, propertyNames…), no example is made rather than a wrong one.
 */
import type { JsonSchema } from "@toolwright/dsl";
import { resolvePointer } from "./schema.js";

type Node = { readonly [key: string]: unknown };

/** Keywords whose constraint a value built by construction would not reliably meet: any of them means no example. */
const UNSUPPORTED = [
  "pattern",
  "patternProperties",
  "not",
  "if",
  "allOf",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "contains",
  "minProperties",
  "multipleOf",
  "uniqueItems",
  "unevaluatedProperties",
  "prefixItems",
  "$dynamicRef",
];

/** A valid value per string format, from the reserved example ranges (RFC 2606 names, RFC 5737/3849 addresses). */
const FORMAT_EXAMPLES: { readonly [format: string]: string } = {
  email: "user@example.com",
  uri: "https://example.com",
  url: "https://example.com",
  "uri-reference": "https://example.com",
  date: "2024-01-31",
  time: "12:00:00Z",
  "date-time": "2024-01-31T12:00:00Z",
  uuid: "00000000-0000-4000-8000-000000000000",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
};

/** Thrown anywhere in the walk to give up on the whole example (a part can make the whole invalid). */
class NoExample extends Error {}

/**
 * A value for `node`: the schema's own example, default, const or first enum value when it has
 * one (the author's choice beats ours), else the smallest value of its type that meets its bounds.
 */
function pick(node: unknown, root: JsonSchema, depth: number): unknown {
  // Bounded: a recursive $ref (a tree type) would otherwise never end.
  if (depth > 12) throw new NoExample();
  if (node === true || (typeof node === "object" && node !== null && Object.keys(node).length === 0)) return "example";
  if (typeof node !== "object" || node === null) throw new NoExample();
  const n = node as Node;
  if (typeof n.$ref === "string") return pick(resolvePointer(root, n.$ref), root, depth + 1);
  if (Array.isArray(n.examples) && n.examples.length > 0) return n.examples[0];
  if (n.default !== undefined) return n.default;
  if (n.const !== undefined) return n.const;
  if (Array.isArray(n.enum) && n.enum.length > 0) return n.enum[0];
  if (UNSUPPORTED.some((k) => n[k] !== undefined)) throw new NoExample();
  for (const k of ["anyOf", "oneOf"]) {
    const members = n[k];
    // oneOf needs exactly one match; a first member that is an object with a const tag usually is.
    if (Array.isArray(members) && members.length > 0) return pick(members[0], root, depth + 1);
  }
  const type = Array.isArray(n.type) ? n.type.find((t) => t !== "null") : n.type;
  switch (type) {
    case "object": {
      // Only required properties: the smallest valid object, and optional fields carry no example risk.
      const out: { [key: string]: unknown } = {};
      const props = (typeof n.properties === "object" && n.properties !== null ? n.properties : {}) as Node;
      for (const key of Array.isArray(n.required) ? (n.required as unknown[]) : []) {
        // "__proto__" as a key of a plain object would set its prototype, not a property.
        if (typeof key !== "string" || key === "__proto__") throw new NoExample();
        out[key] = pick(Object.hasOwn(props, key) ? props[key] : (n.additionalProperties ?? true), root, depth + 1);
      }
      return out;
    }
    case "array": {
      // An empty array where allowed; a long required minimum makes an example too noisy to help.
      const min = typeof n.minItems === "number" ? n.minItems : 0;
      if (min > 3) throw new NoExample();
      return Array.from({ length: min }, () => pick(n.items ?? true, root, depth + 1));
    }
    case "string": {
      if (typeof n.format === "string") {
        const f = FORMAT_EXAMPLES[n.format];
        if (f === undefined) throw new NoExample();
        return f;
      }
      const min = typeof n.minLength === "number" ? n.minLength : 0;
      const max = typeof n.maxLength === "number" ? n.maxLength : Number.POSITIVE_INFINITY;
      const text = "example".padEnd(min, "x");
      if (text.length > max) return "x".repeat(Math.max(min, Math.min(max, 1)));
      return text;
    }
    case "integer":
    case "number": {
      // Exclusive bounds are stepped by one to the nearest integer inside, which suits both types.
      const lo =
        typeof n.minimum === "number" ? n.minimum : typeof n.exclusiveMinimum === "number" ? Math.floor(n.exclusiveMinimum) + 1 : undefined;
      const hi =
        typeof n.maximum === "number" ? n.maximum : typeof n.exclusiveMaximum === "number" ? Math.ceil(n.exclusiveMaximum) - 1 : undefined;
      const value = lo ?? (hi !== undefined ? Math.min(hi, 1) : 1);
      if (hi !== undefined && value > hi) throw new NoExample();
      return type === "integer" ? Math.ceil(value) : value;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      throw new NoExample();
  }
}

/** A JSON example payload built from `schema`, or `undefined` when none can be built safely. */
export function exampleFromSchema(schema: JsonSchema): unknown {
  try {
    return pick(schema, schema, 0);
  } catch (error) {
    if (error instanceof NoExample) return undefined;
    throw error;
  }
}
