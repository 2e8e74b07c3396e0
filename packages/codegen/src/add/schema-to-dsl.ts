/**
 * Turns a pulled JSON Schema into DSL builder code (`object({ q: string().describe("...") })`) for
 * `toolwright add --inline`. Each node is also built with the real DSL and kept only when the DSL
 * gives back the same schema (compared after codegen's normalization, `required` as a set);
 * anything else is printed as `raw({...})`, so the inlined design generates what the lock did.
 */
import { isDeepStrictEqual } from "node:util";
import type { AnySchema, JsonSchema } from "@toolwright/dsl";
import * as dsl from "@toolwright/dsl";
import { printKey, printLiteral, stringLiteral } from "../emit/literal.js";
import { normalizeSchema } from "../resolve/schema.js";

/** Converted code plus the DSL functions it calls (for the import line). */
export interface DslCode {
  readonly code: string;
  readonly uses: ReadonlySet<string>;
}

type Json = { readonly [key: string]: unknown };
type Node = { readonly code: string; readonly schema: AnySchema };

const ANNOTATIONS = ["title", "description", "default", "examples"] as const;
const STRING_KEYS = ["format", "pattern", "minLength", "maxLength"];
const NUMBER_KEYS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const ARRAY_KEYS = ["minItems", "maxItems", "uniqueItems"];

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Sorted keys and `required` as a set: the parts of a schema whose order carries no meaning. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isObject(value)) return value;
  const out: { [key: string]: unknown } = {};
  for (const key of Object.keys(value).sort()) {
    const v = value[key];
    out[key] = key === "required" && Array.isArray(v) ? [...v].sort() : canonical(v);
  }
  return out;
}

/** True when the DSL node describes exactly `json`. */
export function sameSchema(a: unknown, b: unknown): boolean {
  try {
    return isDeepStrictEqual(canonical(normalizeSchema(a)), canonical(normalizeSchema(b)));
  } catch {
    return false;
  }
}

function onlyKeys(json: Json, allowed: readonly string[]): boolean {
  return Object.keys(json).every((k) => allowed.includes(k));
}

function pick(json: Json, keys: readonly string[]): Json {
  const out: { [key: string]: unknown } = {};
  for (const k of keys) if (json[k] !== undefined) out[k] = json[k];
  return out;
}

function options(json: Json, keys: readonly string[], indent: number): string {
  const o = pick(json, keys);
  return Object.keys(o).length === 0 ? "" : printLiteral(o, indent).replace(/\n\s*/g, " ").replace(/,\s*}/, " }");
}

class Converter {
  readonly uses = new Set<string>();
  constructor(private readonly local: (name: string) => string) {}

  private call(fn: string, args: string): string {
    this.uses.add(fn);
    return `${this.local(fn)}(${args})`;
  }

  raw(json: unknown, indent: number): Node {
    return { code: this.call("raw", printLiteral(json, indent)), schema: dsl.raw(json as JsonSchema) };
  }

  /** Converts one node; falls back to `raw(...)` unless the DSL reproduces it. */
  node(json: unknown, indent: number): Node {
    if (!isObject(json)) return this.raw(json === true ? {} : { not: {} }, indent);
    const core: { [key: string]: unknown } = {};
    // `$schema` names the dialect; normalization drops a known one, and the comparison below checks that.
    for (const [k, v] of Object.entries(json)) if (!(ANNOTATIONS as readonly string[]).includes(k) && k !== "$schema") core[k] = v;
    let built: Node | undefined;
    try {
      built = this.core(core, indent);
    } catch {
      built = undefined;
    }
    if (built) built = this.annotate(built, json);
    // Builders record mistakes on the node instead of throwing (see the DSL's `findProblem`).
    if (built && dsl.findProblem(built.schema) === undefined && sameSchema(built.schema, json)) return built;
    return this.raw(json, indent);
  }

  private annotate(node: Node, json: Json): Node {
    let { code, schema } = node;
    if (typeof json.title === "string") {
      code += `.title(${stringLiteral(json.title)})`;
      schema = schema.title(json.title);
    }
    if (typeof json.description === "string") {
      code += `.describe(${stringLiteral(json.description)})`;
      schema = schema.describe(json.description);
    }
    if (json.default !== undefined) {
      code += `.default(${printLiteral(json.default)})`;
      schema = schema.default(json.default as never);
    }
    if (Array.isArray(json.examples)) {
      code += `.examples(${json.examples.map((e) => printLiteral(e)).join(", ")})`;
      schema = schema.examples(...(json.examples as never[]));
    }
    return { code, schema };
  }

  private core(json: Json, indent: number): Node | undefined {
    const type = json.type;
    if (Array.isArray(type) && type.length === 2 && type.includes("null")) {
      const inner = this.core({ ...json, type: type.find((t) => t !== "null") }, indent);
      return inner && { code: `${inner.code}.nullable()`, schema: inner.schema.nullable() };
    }
    if (Array.isArray(json.enum) && onlyKeys(json, ["enum", "type"])) {
      const values = json.enum as [dsl.Literal, ...dsl.Literal[]];
      return { code: this.call("enumOf", printLiteral(values, indent)), schema: dsl.enumOf(values) };
    }
    if (json.const !== undefined && onlyKeys(json, ["const", "type"])) {
      return { code: this.call("literal", printLiteral(json.const)), schema: dsl.literal(json.const as dsl.Literal) };
    }
    if (Array.isArray(json.anyOf) || Array.isArray(json.oneOf)) {
      const key = Array.isArray(json.anyOf) ? "anyOf" : "oneOf";
      if (!onlyKeys(json, [key])) return undefined;
      const members = (json[key] as unknown[]).map((m) => this.node(m, indent));
      const fn = key === "anyOf" ? "union" : "oneOf";
      const schemas = members.map((m) => m.schema) as [AnySchema, ...AnySchema[]];
      return {
        code: this.call(fn, members.map((m) => m.code).join(", ")),
        schema: key === "anyOf" ? dsl.union(...schemas) : dsl.oneOf(...schemas),
      };
    }
    switch (type) {
      case "string":
        if (!onlyKeys(json, ["type", ...STRING_KEYS])) return undefined;
        return { code: this.call("string", options(json, STRING_KEYS, indent)), schema: dsl.string(pick(json, STRING_KEYS)) };
      case "number":
      case "integer":
        if (!onlyKeys(json, ["type", ...NUMBER_KEYS])) return undefined;
        return {
          code: this.call(type, options(json, NUMBER_KEYS, indent)),
          schema: (type === "number" ? dsl.number : dsl.integer)(pick(json, NUMBER_KEYS)),
        };
      case "boolean":
        return onlyKeys(json, ["type"]) ? { code: this.call("boolean", ""), schema: dsl.boolean() } : undefined;
      case "null":
        return onlyKeys(json, ["type"]) ? { code: this.call("nullValue", ""), schema: dsl.nullValue() } : undefined;
      case "array": {
        if (!onlyKeys(json, ["type", "items", ...ARRAY_KEYS]) || !isObject(json.items)) return undefined;
        const items = this.node(json.items, indent);
        const o = options(json, ARRAY_KEYS, indent);
        return {
          code: this.call("array", o ? `${items.code}, ${o}` : items.code),
          schema: dsl.array(items.schema, pick(json, ARRAY_KEYS)),
        };
      }
      case "object":
        return this.object(json, indent);
      default:
        return undefined;
    }
  }

  private object(json: Json, indent: number): Node | undefined {
    const extra = json.additionalProperties;
    if (json.properties === undefined && isObject(extra) && onlyKeys(json, ["type", "additionalProperties"])) {
      const values = this.node(extra, indent);
      return { code: this.call("record", values.code), schema: dsl.record(values.schema) };
    }
    if (!onlyKeys(json, ["type", "properties", "required", "additionalProperties", "minProperties", "maxProperties"])) return undefined;
    if (extra !== undefined && extra !== false) return undefined;
    const props = isObject(json.properties) ? json.properties : {};
    const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
    const pad = " ".repeat(indent + 2);
    const shape: { [key: string]: AnySchema } = {};
    const lines: string[] = [];
    for (const [key, value] of Object.entries(props)) {
      const field = this.node(value, indent + 2);
      const optional = !required.has(key);
      Object.defineProperty(shape, key, { value: optional ? field.schema.optional() : field.schema, enumerable: true });
      lines.push(`${pad}${printKey(key)}: ${field.code}${optional ? ".optional()" : ""},`);
    }
    const o: { [key: string]: unknown } = pick(json, ["minProperties", "maxProperties"]);
    if (extra === undefined) o.closed = false;
    const opts = Object.keys(o).length === 0 ? "" : `, ${printLiteral(o).replace(/\n\s*/g, " ").replace(/,\s*}/, " }")}`;
    const body = lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${" ".repeat(indent)}}`;
    return { code: this.call("object", `${body}${opts}`), schema: dsl.object(shape, o) };
  }
}

/** DSL code for a tool's input or output schema, indented for a line starting at `indent` spaces; `local` maps DSL names to the file's. */
export function schemaToDsl(json: unknown, indent = 0, local: (name: string) => string = (n) => n): DslCode {
  const c = new Converter(local);
  const { code } = c.node(json, indent);
  return { code, uses: c.uses };
}
