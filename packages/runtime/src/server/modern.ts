/**
 * Server side of the stateless 2026-07-28 era: each request carries its protocol version, client
 * capabilities and log level in `_meta`; there is no `initialize` and no session. This file checks
 * those fields and the routing headers; `tool-server.ts` and `http-server.ts` apply the results.
 */
import { META, type ParamHeader } from "../protocol/modern.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { discoverVersions } from "../revisions/registry.js";
import type { LogLevel } from "./types.js";

/** `_meta` key of the per-request log level (absent: the server sends no log messages). */
export const LOG_LEVEL_META = "io.modelcontextprotocol/logLevel";

/** Header mismatch: `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` disagree with the body. */
export const HEADER_MISMATCH = -32020;
/** The request's protocol version is not one the server speaks; `data.supported` lists them. */
export const UNSUPPORTED_VERSION = -32022;
/** The call needs a client capability the request's `_meta` did not declare. */
export const MISSING_CAPABILITY = -32021;

/** The protocol fields of one modern request. */
export interface ModernScope {
  readonly version: string;
  readonly capabilities: { readonly [key: string]: unknown };
  readonly clientInfo: { readonly name: string; readonly version: string } | undefined;
  readonly logLevel: LogLevel | undefined;
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when a request's `_meta` names a protocol version (so it is a modern, stateless request). */
export function isModernRequest(params: unknown): boolean {
  const meta = isObject(params) ? params._meta : undefined;
  return isObject(meta) && typeof meta[META.protocolVersion] === "string";
}

/** Reads and checks a modern request's `_meta`; throws an `RpcHandlerError` (-32602 or -32022). */
export function modernScope(params: unknown, levels: readonly LogLevel[]): ModernScope {
  const meta = isObject(params) ? params._meta : undefined;
  if (!isObject(meta)) throw new RpcHandlerError(-32602, "Invalid params: _meta with the protocol fields is required");
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") throw new RpcHandlerError(-32602, `Invalid params: _meta["${META.protocolVersion}"] is required`);
  if (!discoverVersions().includes(version)) {
    throw new RpcHandlerError(UNSUPPORTED_VERSION, `Unsupported protocol version: ${version}`, {
      supported: [...discoverVersions()],
      requested: version,
    });
  }
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) throw new RpcHandlerError(-32602, `Invalid params: _meta["${META.clientCapabilities}"] must be an object`);
  const info = meta[META.clientInfo];
  const level = meta[LOG_LEVEL_META];
  if (level !== undefined && !levels.includes(level as LogLevel))
    throw new RpcHandlerError(-32602, `Invalid params: unknown log level ${String(level)}`);
  return {
    version,
    capabilities,
    clientInfo:
      isObject(info) && typeof info.name === "string" && typeof info.version === "string"
        ? { name: info.name, version: info.version }
        : undefined,
    logLevel: level as LogLevel | undefined,
  };
}

/** The name `Mcp-Name` must carry for a method, if any. */
function routedName(method: string, params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  if (method === "tools/call" || method === "prompts/get") return typeof params.name === "string" ? params.name : undefined;
  if (method === "resources/read") return typeof params.uri === "string" ? params.uri : undefined;
  // Tasks extension (SEP-2663): tasks/* requests are routed by their task id.
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel")
    return typeof params.taskId === "string" ? params.taskId : undefined;
  return undefined;
}

/**
 * Checks the modern routing headers against the body; returns the JSON-RPC error to answer with
 * (HTTP 400), or undefined. Header names are case-insensitive (Node lowercases them); values are
 * compared exactly after trimming surrounding whitespace.
 */
export function checkModernHeaders(
  headers: { readonly [name: string]: string | string[] | undefined },
  method: string,
  params: unknown,
): { readonly code: number; readonly message: string; readonly data?: unknown } | undefined {
  const one = (name: string) => {
    const v = headers[name];
    return typeof v === "string" ? v.trim() : undefined;
  };
  // Order matters: a header that disagrees with `_meta` is a mismatch (-32020) even when the
  // `_meta` version is also unknown; only agreeing but unsupported versions get -32022.
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
  const metaVersion = meta?.[META.protocolVersion];
  const headerVersion = one("mcp-protocol-version");
  if (typeof metaVersion === "string" && headerVersion !== metaVersion.trim()) {
    return {
      code: HEADER_MISMATCH,
      message: `Header mismatch: MCP-Protocol-Version ${JSON.stringify(headerVersion ?? null)} differs from _meta ${JSON.stringify(metaVersion)}`,
    };
  }
  try {
    modernScope(params, ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);
  } catch (error) {
    const e = error as RpcHandlerError;
    return { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) };
  }
  const headerMethod = one("mcp-method");
  if (headerMethod !== method) {
    return {
      code: HEADER_MISMATCH,
      message: `Header mismatch: Mcp-Method ${JSON.stringify(headerMethod ?? null)} differs from the body method ${JSON.stringify(method)}`,
    };
  }
  const name = routedName(method, params);
  if (name !== undefined && one("mcp-name") !== name) {
    return {
      code: HEADER_MISMATCH,
      message: `Header mismatch: Mcp-Name ${JSON.stringify(one("mcp-name") ?? null)} differs from the body ${JSON.stringify(name)}`,
    };
  }
  return undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// Strict decoding: a `=?base64?…?=` value must be canonical Base64 of UTF-8; anything else is a
// literal. Returns undefined for a malformed Base64 payload.
function decodeParam(value: string): string | undefined {
  const m = /^=\?base64\?(.*)\?=$/s.exec(value);
  if (!m) return value;
  const payload = m[1] as string;
  if (!BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(payload, "base64"));
  } catch {
    return undefined;
  }
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments (SEP-2243): a value in
 * the body needs its header, the header must decode (strict Base64 when wrapped) to the same text,
 * and a header without a body value is a mismatch. Returns the -32020 error message, or undefined.
 */
export function checkParamHeaders(
  plan: readonly ParamHeader[],
  args: unknown,
  headers: { readonly [name: string]: string | string[] | undefined },
): string | undefined {
  for (const param of plan) {
    const raw = headers[param.header.toLowerCase()];
    const header = typeof raw === "string" ? raw.trim() : undefined;
    const body = valueAt(args, param.path);
    if (body === undefined || body === null) {
      if (header !== undefined) return `Header mismatch: ${param.header} is set but ${param.path.join(".")} is absent from the arguments`;
      continue;
    }
    if (header === undefined) return `Header mismatch: ${param.header} is required because ${param.path.join(".")} is in the arguments`;
    const decoded = decodeParam(header);
    if (decoded === undefined) return `Header mismatch: ${param.header} holds malformed Base64`;
    if (decoded !== String(body)) return `Header mismatch: ${param.header} does not match ${param.path.join(".")} in the arguments`;
  }
  return undefined;
}
