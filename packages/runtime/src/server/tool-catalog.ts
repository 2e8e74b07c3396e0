/**
 * The static side of a tool server: checking the tool list, the `tools/list` descriptors, opaque
 * pagination cursors, and the protocol constants the session uses.
 */
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import type { LogLevel, ServerTool } from "./types.js";

/** MCP log levels, least to most severe. */
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
/** The client capability each server-to-client request needs. */
export const CAPABILITY_FOR: { readonly [method: string]: string } = Object.assign(Object.create(null), {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
}); // prototype-free: a method named "constructor" needs no capability
/** Default time a server-to-client request may take. */
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000;
/** Legacy methods a 2026-07-28 request may not use (answered -32601). */
export const REMOVED_IN_MODERN: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe", // subscriptions/listen carries resource subscriptions in 2026-07-28
  "resources/unsubscribe",
]);

/** Indexes tools by name; throws a `TypeError` for duplicates, missing handlers or a non-object input schema. */
export function checkTools(tools: readonly ServerTool<unknown>[]): Map<string, ServerTool<unknown>> {
  const byName = new Map<string, ServerTool<unknown>>();
  for (const tool of tools) {
    if (typeof tool?.name !== "string" || tool.name === "") throw new TypeError("createToolServer: every tool needs a non-empty name");
    if (byName.has(tool.name)) throw new TypeError(`createToolServer: tool "${tool.name}" is declared twice`);
    if (tool.inputSchema?.type !== "object")
      throw new TypeError(`createToolServer: tool "${tool.name}": inputSchema must have type "object"`);
    if (typeof tool.handler !== "function") throw new TypeError(`createToolServer: tool "${tool.name}" has no handler function`);
    byName.set(tool.name, tool);
  }
  return byName;
}

/** The `tools/list` entry of a tool. */
export function descriptor(tool: ServerTool<unknown>): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = { name: tool.name };
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.description !== undefined) out.description = tool.description;
  out.inputSchema = tool.inputSchema;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  if (tool._meta !== undefined) out._meta = tool._meta;
  if (tool.execution !== undefined) out.execution = tool.execution;
  if (tool.icons !== undefined) out.icons = tool.icons;
  return out;
}

/** An opaque cursor for the page starting at `offset`. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

/** The offset a cursor stands for; -32602 when it is not one of ours or out of range. */
export function decodeCursor(cursor: unknown, size: number): number {
  if (typeof cursor !== "string") throw new RpcHandlerError(-32602, "Invalid cursor: expected a string");
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const offset = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(offset) || offset <= 0 || offset >= size) throw new RpcHandlerError(-32602, "Invalid cursor");
  return offset;
}
