/**
 * `serveHttp`: Streamable HTTP for a tool server. Legacy era (2024-11-05 … 2025-11-25): one
 * endpoint takes POST (JSON or SSE answers), GET (a standalone SSE stream, or a resume with
 * Last-Event-ID) and DELETE (ends the session); sessions are keyed by `Mcp-Session-Id` and an
 * unknown id gets 404. Stateless 2026-07-28 requests (protocol in `_meta`, no session) are served
 * too. Bound to loopback, it rejects foreign Host and Origin headers (DNS rebinding protection).
 * This file routes requests (path, Host/Origin, method, era); legacy sessions live in
 * http-sessions.ts and stateless requests in http-stateless.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { discoverVersions } from "../revisions/registry.js";
import { createSessionTable } from "./http-sessions.js";
import { handleStateless } from "./http-stateless.js";
import { checkHostAndOrigin, type HostPolicy, hostPolicy, readBody, sendError } from "./http-support.js";
import { isModernRequest } from "./modern.js";
import type { ToolServer } from "./tool-server.js";

/** Options for `serveHttp`. */
export interface HttpServeOptions {
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  /** Default "127.0.0.1". */
  readonly host?: string;
  /** The MCP endpoint path. Default "/mcp". */
  readonly path?: string;
  /** "auto" (default): SSE for `tools/call` when the client accepts it, JSON otherwise. */
  readonly responseMode?: "auto" | "json" | "sse";
  /** Host names accepted in `Host` (default: loopback names when bound to loopback; anything otherwise). */
  readonly allowedHosts?: readonly string[];
  /** Origins accepted in `Origin` (default: loopback origins when bound to loopback). */
  readonly allowedOrigins?: readonly string[];
  /** Largest request body. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** A session unused this long is closed. Default 30 min. */
  readonly sessionIdleMs?: number;
  /** SSE `retry` sent in priming events. Default 1000 ms. */
  readonly retryMs?: number;
  /** Offer the standalone GET stream. Default true; false answers GET with 405. */
  readonly getStream?: boolean;
  /** Open sessions allowed at once; an `initialize` beyond it gets 503. Default 1000. */
  readonly maxSessions?: number;
}

/** A running HTTP server. */
export interface HttpServerHandle {
  /** The endpoint URL, e.g. `http://127.0.0.1:43123/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Number of open sessions. */
  readonly sessions: number;
  /** Closes every session and connection, then the listener. */
  close(): Promise<void>;
}

/** Serves `server` over Streamable HTTP. Resolves once listening. */
export async function serveHttp(server: ToolServer, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const mode = options.responseMode ?? "auto";
  const retryMs = options.retryMs ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const policy: HostPolicy = hostPolicy(host, options.allowedHosts, options.allowedOrigins);
  const sessions = createSessionTable(server, {
    mode,
    retryMs,
    maxSessions: options.maxSessions ?? 1000,
    getStream: options.getStream !== false,
  });

  async function handlePost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const type = req.headers["content-type"] ?? "";
    if (!type.toLowerCase().includes("application/json")) {
      sendError(res, 415, -32000, "Unsupported Media Type: use Content-Type: application/json");
      return;
    }
    const accept = (req.headers.accept ?? "*/*").toLowerCase();
    const any = accept.includes("*/*");
    const canSse = any || accept.includes("text/event-stream");
    const canJson = any || accept.includes("application/json");
    if (!canSse && !canJson) {
      sendError(res, 406, -32000, "Not Acceptable: accept application/json and text/event-stream");
      return;
    }
    const body = await readBody(req, options.maxBodyBytes ?? 4 * 1024 * 1024);
    if (!body.ok) {
      sendError(res, body.status, body.status === 413 ? -32000 : -32700, body.message);
      return;
    }
    // Era by request: a sessionless POST whose header or `_meta` names 2026-07-28 is stateless.
    const messages: unknown[] = Array.isArray(body.value) ? body.value : [body.value];
    const headerVersion = req.headers["mcp-protocol-version"];
    const modernHeader = typeof headerVersion === "string" && discoverVersions().includes(headerVersion.trim());
    const modernBody = messages.some((m) => isModernRequest((m as { params?: unknown } | null)?.params));
    if (req.headers["mcp-session-id"] === undefined && (modernHeader || modernBody)) {
      handleStateless(server, req, res, body.value, { mode, canSse, canJson, retryMs });
      return;
    }
    sessions.post(req, res, body.value, canSse, canJson);
  }

  /** 2026-07-28 has no GET stream and no DELETE: a sessionless modern request gets 405. */
  function modernOnly(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers["mcp-protocol-version"];
    if (req.headers["mcp-session-id"] !== undefined || typeof version !== "string" || !discoverVersions().includes(version.trim()))
      return false;
    res.writeHead(405, { Allow: "POST" }).end();
    return true;
  }

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== path) {
      sendError(res, 404, -32000, `Not Found: the MCP endpoint is ${path}`);
      return;
    }
    const refusal = checkHostAndOrigin(req, policy);
    if (refusal) {
      sendError(res, 403, -32000, refusal);
      return;
    }
    switch (req.method) {
      case "POST":
        handlePost(req, res).catch(() => sendError(res, 500, -32603, "Internal error"));
        return;
      case "GET":
        if (!modernOnly(req, res)) sessions.get(req, res);
        return;
      case "DELETE":
        if (!modernOnly(req, res)) sessions.delete(req, res);
        return;
      default:
        res.writeHead(405, { Allow: "GET, POST, DELETE" }).end();
    }
  });

  const sweep = setInterval(() => sessions.sweep(idleMs), Math.min(idleMs, 60_000));
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    get sessions() {
      return sessions.size;
    },
    async close() {
      clearInterval(sweep);
      // Open listens get their graceful-end result, and a turn to write it, before the connections go.
      server.endSubscriptions();
      await new Promise<void>((resolve) => setImmediate(resolve));
      sessions.closeAll();
      return new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
