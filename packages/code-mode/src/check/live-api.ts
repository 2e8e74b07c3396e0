/**
 * Declarations for tools discovered at run time (the manager's live registry; issue 27, item 6):
 * no `toolwright gen` ran, so the sandbox API is derived here from the live specs' input schemas,
 * and programs are type-checked as they are against generated APIs. Payloads are typed from the
 * JSON Schema (objects, required fields, enums, consts, arrays, unions, nullable types); results are
 * `any`, since what a live tool returns (its structured content or its text) is not declared
 * reliably enough to type against. Only what cannot be typed (a `$ref`, a pattern of keys) becomes
 * `unknown` / an index signature.
 *
 * Hand-written, not the codegen's printer: that lives in the CLI package (with its own schema
 * library), which an app running code mode does not install. Text from a server reaches the
 * declarations only as JSON string literals (property names, enum values) and as JSDoc with `*\/`
 * broken, so a hostile schema cannot end a comment or a declaration early.
 */
import type { ToolSpec } from "@toolwright/runtime";
import type { CodeModeApi } from "./api.js";

/** The `ToolError` live programs catch: the fields a host failure carries (see ../prelude.ts). */
export const LIVE_PRELUDE = `/** A failed tool call, thrown by every tool function: catch it to recover. */
declare class ToolError extends Error {
  readonly kind: string;
  readonly reason?: string;
  readonly recovery: { readonly action: string; readonly [key: string]: unknown };
  readonly issues: readonly { readonly field: string; readonly constraint: string; readonly [key: string]: unknown }[];
  readonly tool: string;
  readonly server: string;
  readonly retryable: boolean;
}
`;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 8;

type Schema = { readonly [key: string]: unknown };
const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/** JSDoc text: one line, no comment terminator, bounded. */
function doc(text: unknown): string | undefined {
  if (typeof text !== "string" || text.trim() === "") return undefined;
  const line = text.replace(/\s+/g, " ").trim().replaceAll("*/", "*\\/");
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

const literal = (value: unknown): string =>
  value === null || ["string", "number", "boolean"].includes(typeof value) ? JSON.stringify(value) : "unknown";

/** The TypeScript type of a JSON Schema (structural; depth-bounded). */
export function schemaType(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isSchema(schema) || depth > MAX_DEPTH) return "unknown";
  if (Object.hasOwn(schema, "const")) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.length === 0 ? "never" : schema.enum.map(literal).join(" | ");
  const union = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined) as
    | unknown[]
    | undefined;
  if (union && union.length > 0) return union.map((s) => `(${schemaType(s, depth + 1)})`).join(" | ");
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  const out = types.map((type) => singleType(schema, type, depth));
  return out.includes("unknown") ? "unknown" : [...new Set(out)].join(" | ");
}

function singleType(schema: Schema, type: unknown, depth: number): string {
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const items = schema.items;
      return `${Array.isArray(items) ? "unknown" : `(${schemaType(items, depth + 1)})`}[]`;
    }
    case "object":
      return objectType(schema, depth);
    default:
      return isSchema(schema.properties) ? objectType(schema, depth) : "unknown";
  }
}

function objectType(schema: Schema, depth: number): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const pad = "  ".repeat(depth + 1);
  const lines: string[] = [];
  for (const name of Object.keys(properties)) {
    const property = properties[name];
    const note = isSchema(property) ? doc(property.description) : undefined;
    if (note) lines.push(`${pad}/** ${note} */`);
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    lines.push(`${pad}${key}${required.has(name) ? "" : "?"}: ${schemaType(property, depth + 1)};`);
  }
  // Open unless closed: a server's schema without `additionalProperties: false` accepts more keys.
  const extra = schema.additionalProperties;
  if (extra !== false && (isSchema(extra) || lines.length === 0))
    lines.push(`${pad}[key: string]: ${isSchema(extra) ? "unknown" : "unknown"};`);
  return lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${"  ".repeat(depth)}}`;
}

/**
 * Code-mode APIs for bound live tools (namespace → function → spec, as the sandbox binds them): one
 * `declare namespace` per namespace, one function per tool, typed payload, `any` result.
 */
export function liveApis(bound: ReadonlyMap<string, ReadonlyMap<string, ToolSpec>>): CodeModeApi[] {
  const apis: CodeModeApi[] = [];
  for (const [namespace, fns] of [...bound].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parts: string[] = [];
    const bindings: { [fn: string]: string } = {};
    for (const [fn, spec] of [...fns].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const note = doc(spec.description ?? spec.title);
      if (note) parts.push(`  /** ${note} */`);
      parts.push(`  function ${fn}(input: ${schemaType(spec.inputSchema, 1)}): Promise<any>;`);
      bindings[fn] = spec.name;
    }
    const declarations = `declare namespace ${namespace} {\n${parts.join("\n")}\n}\n`;
    const toolset = fns.values().next().value?.toolset ?? namespace;
    apis.push({ toolset, namespace, prelude: LIVE_PRELUDE, preludeTokens: 0, declarations, tokens: 0, index: [], details: {}, bindings });
  }
  return apis;
}
