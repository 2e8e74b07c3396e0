/**
 * One stateless 2026-07-28 request over HTTP: no session, the routing headers checked against the
 * body, one throwaway server session per request. The answer goes out as JSON (with the HTTP
 * status its error calls for) unless something else comes first, in which case the response
 * becomes an SSE stream; a `subscriptions/listen` stays on that stream until either side ends it.
 * Closing the response cancels the call (the era's HTTP cancellation).
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { classify, type RpcId, type RpcMessage } from "../protocol/json-rpc.js";
import { STATELESS_REVISION_NAME } from "../revisions/2026-07-28/versions.js";
import { invalidAnswer, sendError } from "./http-support.js";
import { checkModernHeaders } from "./modern.js";
import { SseStream } from "./sse-stream.js";
import type { ServerSession, ToolServer } from "./tool-server.js";

/** Modern errors answered with HTTP 400 (header mismatch, missing capability, unsupported version). */
const MODERN_HTTP_400: ReadonlySet<number> = new Set([-32020, -32021, -32022]);

/** How a stateless request may be answered. */
export interface StatelessAnswer {
  readonly mode: "auto" | "json" | "sse";
  readonly canSse: boolean;
  readonly canJson: boolean;
  readonly retryMs: number;
}

/** True for a response (not a request or notification). */
export function isResponse(message: RpcMessage): message is RpcMessage & { id: RpcId } {
  return !("method" in message) && "id" in message;
}

/** Serves one parsed stateless request body on `res`. */
export function handleStateless(server: ToolServer, req: IncomingMessage, res: ServerResponse, value: unknown, how: StatelessAnswer): void {
  if (Array.isArray(value)) {
    sendError(res, 400, -32600, "Invalid Request: batches are not allowed in 2026-07-28");
    return;
  }
  const kind = classify(value);
  // Not JSON-RPC at all: an HTTP error with the JSON-RPC error as its body, not a 202 that drops it.
  if (kind.type === "invalid") {
    res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify(invalidAnswer(value, kind.reason)));
    return;
  }
  // A notification or response: accepted, nothing to answer (2026-07-28 has no session for it to act on).
  if (kind.type !== "request") {
    res.writeHead(202).end();
    return;
  }
  const message = kind.message;
  const id = message.id;
  const mismatch = checkModernHeaders(req.headers, message.method, message.params);
  if (mismatch) {
    res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, error: mismatch }));
    return;
  }
  // A listen is a stream by nature; tools/call streams in "auto" so progress and logs can flow.
  const streaming = message.method === "tools/call" || message.method === "subscriptions/listen";
  const useSse = how.canSse && (how.mode === "sse" || (how.mode === "auto" && streaming) || !how.canJson);
  // The SSE stream opens lazily, on the first message that is not the answer: an answer that
  // comes first goes out as JSON, with the HTTP status its error calls for.
  let stream: SseStream | undefined;
  let session: ServerSession | undefined;
  const send = (out: RpcMessage, related: RpcId | undefined): boolean => {
    if (related !== id || res.writableEnded) return false;
    const final = isResponse(out) && out.id === id;
    if (!stream && useSse && !final) {
      // Proxies must not buffer a long-lived stream (2026-07-28 SHOULD).
      stream = new SseStream({ "X-Accel-Buffering": "no" }, how.retryMs, false);
      stream.attach(res);
    }
    if (stream) {
      stream.write(out);
      if (final) {
        stream.finish();
        session?.close();
      }
      return true;
    }
    if (!final) return false;
    const code = (out as { error?: { code?: number } }).error?.code;
    const status = code === -32601 ? 404 : code !== undefined && MODERN_HTTP_400.has(code) ? 400 : 200;
    res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(out));
    session?.close();
    return true;
  };
  session = server.openSession({ send, era: STATELESS_REVISION_NAME, httpHeaders: req.headers });
  res.once("close", () => session?.close());
  session.receive(value);
}
