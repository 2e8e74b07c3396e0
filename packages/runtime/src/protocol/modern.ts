/**
 * The stateless 2026-07-28 era: per-request `_meta` protocol fields, routing headers
 * (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) with the Base64 sentinel encoding, and validation of
 * `x-mcp-header` declarations in tool input schemas (SEP-2243).
 */
import { STATELESS_VERSIONS } from "../revisions/2026-07-28/versions.js";
import type { Implementation } from "./mcp-types.js";

/**
 * The built-in 2026-07-28 versions, newest first. Negotiation asks the registry
 * (`discoverVersions()`), which also holds any revision registered later.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = STATELESS_VERSIONS;

/** `_meta` keys reserved by the 2026-07-28 protocol. */
export const META = Object.freeze({
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
});

/** JSON-RPC codes that only a modern server sends; seeing one means "this server is modern". */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([-32020, -32021, -32022]);

/** The per-request protocol fields of the modern era. */
export function protocolMeta(
  version: string,
  capabilities: { readonly [key: string]: unknown },
  clientInfo: Implementation,
): { [key: string]: unknown } {
  return { [META.protocolVersion]: version, [META.clientCapabilities]: capabilities, [META.clientInfo]: clientInfo };
}

/** Picks the first version of `ours` (newest first) that the server lists. */
export function pickVersion(supported: unknown, ours: readonly string[]): string | undefined {
  if (!Array.isArray(supported)) return undefined;
  return ours.find((v) => supported.includes(v));
}

const SENTINEL = /^=\?base64\?.*\?=$/s;

/** Encodes a header value: plain when it is safe visible ASCII, else `=?base64?…?=` of its UTF-8. */
export function encodeHeaderValue(value: string): string {
  // A plain value that looks like the sentinel is encoded too, or the server would decode it; edge
  // whitespace is encoded because HTTP drops it from field values (RFC 9110).
  let safe = !SENTINEL.test(value) && value === value.trim();
  for (let i = 0; safe && i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) safe = false; // control characters and non-ASCII cannot travel raw in a header
  }
  return safe ? value : `=?base64?${toBase64(value)}?=`;
}

/** Decodes a value written by `encodeHeaderValue` (for servers and tests). */
export function decodeHeaderValue(value: string): string {
  const m = /^=\?base64\?(.*)\?=$/s.exec(value);
  if (!m) return value;
  const binary = atob(m[1] as string);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

// btoa/TextEncoder rather than Buffer: this module is also reachable from the portable root entry.
function toBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** One parameter mirrored into a header: the `properties` path and the header name. */
export interface ParamHeader {
  readonly path: readonly string[];
  /** The header name, e.g. `Mcp-Param-Region`. */
  readonly header: string;
}

/** The header plan of one tool, or why its declarations are invalid. */
export type ToolHeaderPlan =
  | { readonly ok: true; readonly params: readonly ParamHeader[] }
  | { readonly ok: false; readonly reason: string };

// RFC 9110 token characters: all a header field name may contain.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(["string", "integer", "boolean"]);
/** Keywords whose values are data, not subschemas; `x-mcp-header` inside them is not a declaration. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);
/** Keywords whose values map names to subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

function primitiveType(schema: { [key: string]: unknown }): boolean {
  const type = schema.type;
  if (typeof type === "string") return PRIMITIVE.has(type);
  if (Array.isArray(type)) {
    const real = type.filter((t) => t !== "null");
    return real.length > 0 && real.every((t) => typeof t === "string" && PRIMITIVE.has(t));
  }
  return false;
}

/** Deepest keyword path `planToolHeaders` walks before giving up with a reason. */
const MAX_SCHEMA_PATH = 512;

/** Validates every `x-mcp-header` in an input schema and returns the headers to mirror. */
export function planToolHeaders(inputSchema: unknown): ToolHeaderPlan {
  const params: ParamHeader[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;

  function walk(node: unknown, path: readonly string[], isMap = false): void {
    if (problem !== undefined || typeof node !== "object" || node === null) return;
    // A hostile server can nest a schema deeper than the stack; no real schema comes close.
    if (path.length > MAX_SCHEMA_PATH) {
      problem = `input schema is nested deeper than ${MAX_SCHEMA_PATH} levels`;
      return;
    }
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, [...path, String(i)]);
      return;
    }
    const schema = node as { [key: string]: unknown };
    if (isMap) {
      // A map of names to schemas: its keys are property names, never keywords.
      for (const [key, value] of Object.entries(schema)) walk(value, [...path, key]);
      return;
    }
    if (Object.hasOwn(schema, "x-mcp-header")) {
      const where = path.length === 0 ? "(root)" : path.join(".");
      const name = schema["x-mcp-header"];
      // Only properties/<name>/properties/<name>...: a header mirrors a value at one fixed path of the
      // arguments, never one inside an array, a $def or a branch of anyOf.
      const reachable = path.length >= 2 && path.every((key, i) => i % 2 === 1 || key === "properties") && path.length % 2 === 0;
      if (!reachable) problem = `x-mcp-header at ${where} is not reachable through properties only`;
      else if (typeof name !== "string" || name === "") problem = `x-mcp-header at ${where} is empty or not a string`;
      else if (!TOKEN.test(name)) problem = `x-mcp-header ${JSON.stringify(name)} at ${where} is not a valid header token`;
      // Header names are case-insensitive, so names differing only in case are the same header.
      else if (seen.has(name.toLowerCase())) problem = `x-mcp-header ${JSON.stringify(name)} is declared twice`;
      else if (!primitiveType(schema)) problem = `x-mcp-header ${JSON.stringify(name)} at ${where} is not on a string, integer or boolean`;
      else {
        seen.add(name.toLowerCase());
        params.push({ path: path.filter((_, i) => i % 2 === 1), header: `Mcp-Param-${name}` });
      }
      if (problem !== undefined) return;
    }
    for (const [key, value] of Object.entries(schema)) {
      if (key === "x-mcp-header" || DATA_KEYWORDS.has(key)) continue;
      walk(value, [...path, key], SCHEMA_MAPS.has(key));
    }
  }

  walk(inputSchema, []);
  return problem === undefined ? { ok: true, params } : { ok: false, reason: problem };
}

/** The `Mcp-Param-*` headers for one call's arguments. Null and absent values are omitted. */
export function paramHeaders(plan: readonly ParamHeader[], args: unknown): { [name: string]: string } {
  const out: { [name: string]: string } = {};
  for (const p of plan) {
    let value: unknown = args;
    for (const key of p.path) {
      value = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { [k: string]: unknown })[key] : undefined;
    }
    if (value === null || value === undefined) continue;
    let text: string;
    if (typeof value === "string") text = value;
    else if (typeof value === "boolean") text = value ? "true" : "false";
    else if (typeof value === "number" && Number.isFinite(value)) text = String(value);
    else continue; // not a primitive: the server's own validation will reject the call
    // Lower-case, like every header name here, so merging never yields two spellings of one header.
    out[p.header.toLowerCase()] = encodeHeaderValue(text);
  }
  return out;
}

/** `Mcp-Method` and, for named requests, `Mcp-Name`. Header names are lower-case. */
export function standardHeaders(method: string, params: { readonly [key: string]: unknown } | undefined): { [name: string]: string } {
  const out: { [name: string]: string } = { "mcp-method": method };
  let name: unknown;
  if (method === "tools/call" || method === "prompts/get") name = params?.name;
  else if (method === "resources/read") name = params?.uri;
  else if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") name = params?.taskId;
  if (typeof name === "string") out["mcp-name"] = encodeHeaderValue(name);
  return out;
}
