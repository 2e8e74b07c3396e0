/**
 * JSON-RPC 2.0 message shapes and a tolerant classifier. Hand-written rather than schema-parsed:
 * every inbound message passes through here, so it stays allocation-light (see README design notes).
 */

/** A JSON-RPC id: string or number. */
export type RpcId = string | number;

/** A request from either side. */
export interface RpcRequest {
  readonly jsonrpc: "2.0";
  readonly id: RpcId;
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/** A notification from either side. */
export interface RpcNotification {
  readonly jsonrpc: "2.0";
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown };
}

/** A JSON-RPC error object. */
export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A response: result or error. */
export interface RpcResponse {
  readonly jsonrpc: "2.0";
  readonly id: RpcId | null;
  readonly result?: unknown;
  readonly error?: RpcErrorObject;
}

/** Any JSON-RPC message. */
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** What an inbound value turned out to be. */
export type Classified =
  | { readonly type: "request"; readonly message: RpcRequest }
  | { readonly type: "notification"; readonly message: RpcNotification }
  | { readonly type: "response"; readonly message: RpcResponse }
  | { readonly type: "invalid"; readonly reason: string };

function isId(value: unknown): value is RpcId {
  // NaN or Infinity cannot come from JSON text, and as map keys they would never match an answer.
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Classifies a parsed JSON value as a request, notification, response, or invalid. */
export function classify(value: unknown): Classified {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { type: "invalid", reason: "not a JSON-RPC object" };
  }
  const m = value as { [key: string]: unknown };
  if (typeof m.method === "string") {
    // Tolerant: an id of null is read as a notification (MCP forbids null request ids) rather than dropped.
    if ("id" in m && m.id !== undefined && m.id !== null) {
      if (!isId(m.id)) return { type: "invalid", reason: "request id is not a string or number" };
      return { type: "request", message: m as unknown as RpcRequest };
    }
    return { type: "notification", message: m as unknown as RpcNotification };
  }
  if ("result" in m || "error" in m) {
    // id null is allowed here: JSON-RPC answers an unreadable request with an error whose id is null.
    if (m.id !== null && !isId(m.id)) return { type: "invalid", reason: "response id is not a string or number" };
    // The error code decides the mapping to a failure; without one there is nothing to map.
    if ("error" in m) {
      const e = m.error as { code?: unknown; message?: unknown } | null;
      if (typeof e !== "object" || e === null || typeof e.code !== "number") {
        return { type: "invalid", reason: "error response without a numeric code" };
      }
    }
    return { type: "response", message: m as unknown as RpcResponse };
  }
  return { type: "invalid", reason: "neither a request, a notification nor a response" };
}
