/**
 * `serveHttp`: Streamable HTTP for a tool server. Legacy era (2024-11-05 … 2025-11-25): one
 * endpoint takes POST (JSON or SSE answers), GET (a standalone SSE stream, or a resume with
 * Last-Event-ID) and DELETE (ends the session); sessions are keyed by `Mcp-Session-Id` and an
 * unknown id gets 404. Stateless 2026-07-28 requests (protocol in `_meta`, no session) are served
 * too. Bound to loopback, it rejects foreign Host and Origin headers (DNS rebinding protection).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RpcId, RpcMessage } from "../protocol/json-rpc.js";
import { MODERN_PROTOCOL_VERSIONS } from "../protocol/modern.js";
import { checkHostAndOrigin, type HostPolicy, hostPolicy, readBody, sendError } from "./http-support.js";
import { checkModernHeaders, isModernRequest } from "./modern.js";
import { parseEventId, SseStream } from "./sse-stream.js";
import type { ServerSession, ToolServer } from "./tool-server.js";

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

interface Route {
  readonly pending: Set<RpcId>;
  readonly stream: SseStream | undefined;
  readonly collected: RpcMessage[];
  readonly done: () => void;
}

interface HttpSession {
  readonly session: ServerSession;
  readonly routes: Map<RpcId, Route>;
  readonly streams: Map<string, SseStream>;
  standalone: SseStream | undefined;
  lastSeen: number;
}

const MAX_KEPT_STREAMS = 32;
/** Modern errors answered with HTTP 400 (header mismatch, missing capability, unsupported version). */
const MODERN_HTTP_400: ReadonlySet<number> = new Set([-32020, -32021, -32022]);

function isResponse(message: RpcMessage): message is RpcMessage & { id: RpcId } {
  return !("method" in message) && "id" in message;
}

/** Serves `server` over Streamable HTTP. Resolves once listening. */
export async function serveHttp(server: ToolServer, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const mode = options.responseMode ?? "auto";
  const retryMs = options.retryMs ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const policy: HostPolicy = hostPolicy(host, options.allowedHosts, options.allowedOrigins);
  const sessions = new Map<string, HttpSession>();

  function openSession(): HttpSession {
    const id = randomUUID();
    const entry: HttpSession = {
      session: undefined as unknown as ServerSession,
      routes: new Map(),
      streams: new Map(),
      standalone: undefined,
      lastSeen: Date.now(),
    };
    const route = (message: RpcMessage, related: RpcId | undefined): boolean => {
      const r = related === undefined ? undefined : entry.routes.get(related);
      let delivered = true;
      if (r?.stream) r.stream.write(message);
      else if (r && isResponse(message)) r.collected.push(message);
      else if (entry.standalone)
        entry.standalone.write(message); // unrelated, or a JSON-mode notification
      else delivered = false;
      if (r && isResponse(message) && message.id === related) {
        entry.routes.delete(related);
        r.pending.delete(related);
        if (r.pending.size === 0) r.done();
      }
      return delivered;
    };
    const closeStream = (related: RpcId) => entry.routes.get(related)?.stream?.detach();
    (entry as { session: ServerSession }).session = server.openSession({ id, send: route, closeStream });
    sessions.set(id, entry);
    return entry;
  }

  function endSession(id: string, entry: HttpSession): void {
    sessions.delete(id);
    entry.session.close();
    entry.standalone?.finish();
    for (const stream of entry.streams.values()) stream.finish();
    for (const route of entry.routes.values()) route.done();
    entry.routes.clear();
  }

  function sessionHeaders(id: string): { [name: string]: string } {
    return { "Mcp-Session-Id": id };
  }

  function findSession(req: IncomingMessage, res: ServerResponse): [string, HttpSession] | undefined {
    const id = req.headers["mcp-session-id"];
    if (typeof id !== "string" || id === "") {
      sendError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return undefined;
    }
    const entry = sessions.get(id);
    if (!entry) {
      sendError(res, 404, -32001, "Session not found");
      return undefined;
    }
    const version = req.headers["mcp-protocol-version"];
    if (typeof version === "string" && !server.protocolVersions.includes(version)) {
      sendError(
        res,
        400,
        -32000,
        `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${server.protocolVersions.join(", ")})`,
      );
      return undefined;
    }
    entry.lastSeen = Date.now();
    return [id, entry];
  }

  // A stateless 2026-07-28 request: no session, headers checked against the body, one throwaway
  // session per request. Closing the response cancels the call (the era's HTTP cancellation).
  function handleModern(req: IncomingMessage, res: ServerResponse, value: unknown, canSse: boolean, canJson: boolean): void {
    if (Array.isArray(value)) {
      sendError(res, 400, -32600, "Invalid Request: batches are not allowed in 2026-07-28");
      return;
    }
    const message = value as { id?: unknown; method?: unknown; params?: unknown };
    const id = typeof message?.id === "string" || typeof message?.id === "number" ? message.id : undefined;
    if (typeof message?.method !== "string" || id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const mismatch = checkModernHeaders(req.headers, message.method, message.params);
    if (mismatch) {
      res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, error: mismatch }));
      return;
    }
    const useSse = canSse && (mode === "sse" || (mode === "auto" && message.method === "tools/call") || !canJson);
    // The SSE stream opens lazily, on the first message that is not the answer: an answer that
    // comes first goes out as JSON, with the HTTP status its error calls for.
    let stream: SseStream | undefined;
    let session: ServerSession | undefined;
    const send = (out: RpcMessage, related: RpcId | undefined): boolean => {
      if (related !== id || res.writableEnded) return false;
      const final = isResponse(out) && out.id === id;
      if (!stream && useSse && !final) {
        stream = new SseStream({}, retryMs, false);
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
    session = server.openSession({ send, era: "modern", httpHeaders: req.headers });
    res.once("close", () => session?.close());
    session.receive(value);
  }

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
    const messages: unknown[] = Array.isArray(body.value) ? body.value : [body.value];
    const isInit = messages.some((m) => (m as { method?: unknown } | null)?.method === "initialize");
    const headerVersion = req.headers["mcp-protocol-version"];
    const modernHeader = typeof headerVersion === "string" && MODERN_PROTOCOL_VERSIONS.includes(headerVersion.trim());
    const modernBody = messages.some((m) => isModernRequest((m as { params?: unknown } | null)?.params));
    if (req.headers["mcp-session-id"] === undefined && (modernHeader || modernBody)) {
      handleModern(req, res, body.value, canSse, canJson);
      return;
    }
    if (isInit && messages.length > 1) {
      sendError(res, 400, -32600, "Invalid Request: initialize must be sent alone");
      return;
    }
    let found: [string, HttpSession] | undefined;
    if (isInit) {
      if (sessions.size >= (options.maxSessions ?? 1000)) {
        sendError(res, 503, -32000, "Service Unavailable: too many open sessions");
        return;
      }
      const entry = openSession();
      found = [entry.session.id as string, entry];
    } else {
      found = findSession(req, res);
      if (!found) return;
    }
    const [id, entry] = found;
    const requests = messages.filter((m): m is { id: RpcId; method: string } => {
      const o = m as { id?: unknown; method?: unknown } | null;
      return typeof o?.method === "string" && (typeof o.id === "string" || typeof o.id === "number");
    });
    if (requests.length === 0) {
      res.writeHead(202, sessionHeaders(id)).end();
      for (const m of messages) entry.session.receive(m);
      return;
    }
    const hasCall = requests.some((r) => r.method === "tools/call");
    const useSse = canSse && (mode === "sse" || (mode === "auto" && hasCall) || !canJson);
    const version = entry.session.protocolVersion;
    const stream = useSse ? new SseStream(sessionHeaders(id), retryMs, version !== undefined && version >= "2025-11-25") : undefined;
    const pending = new Set<RpcId>(requests.map((r) => r.id));
    const collected: RpcMessage[] = [];
    const route: Route = {
      pending,
      stream,
      collected,
      done: () => {
        if (stream) {
          const delivered = stream.finish();
          if (delivered) entry.streams.delete(stream.id);
        } else if (!res.writableEnded) {
          const payload = Array.isArray(body.value) ? collected : collected[0];
          res.writeHead(200, { "Content-Type": "application/json", ...sessionHeaders(id) }).end(JSON.stringify(payload));
        }
      },
    };
    for (const r of requests) entry.routes.set(r.id, route);
    if (stream) {
      entry.streams.set(stream.id, stream);
      // Streams kept for a resume that never comes are bounded: the oldest finished one goes first.
      if (entry.streams.size > MAX_KEPT_STREAMS) {
        for (const [key, kept] of entry.streams) {
          if (kept.finished) {
            entry.streams.delete(key);
            break;
          }
        }
      }
      stream.attach(res);
    }
    for (const m of messages) entry.session.receive(m);
  }

  /** 2026-07-28 has no GET stream and no DELETE: a sessionless modern request gets 405. */
  function modernOnly(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers["mcp-protocol-version"];
    if (req.headers["mcp-session-id"] !== undefined || typeof version !== "string" || !MODERN_PROTOCOL_VERSIONS.includes(version.trim()))
      return false;
    res.writeHead(405, { Allow: "POST" }).end();
    return true;
  }

  function handleGet(req: IncomingMessage, res: ServerResponse): void {
    if (modernOnly(req, res)) return;
    if (options.getStream === false) {
      res.writeHead(405, { Allow: "POST, DELETE" }).end();
      return;
    }
    const accept = (req.headers.accept ?? "").toLowerCase();
    if (!accept.includes("text/event-stream")) {
      sendError(res, 406, -32000, "Not Acceptable: GET needs Accept: text/event-stream");
      return;
    }
    const found = findSession(req, res);
    if (!found) return;
    const [id, entry] = found;
    const last = req.headers["last-event-id"];
    if (typeof last === "string") {
      const parsed = parseEventId(last);
      const stream = parsed ? entry.streams.get(parsed.stream) : undefined;
      if (!parsed || !stream) {
        sendError(res, 400, -32000, "Bad Request: unknown Last-Event-ID");
        return;
      }
      stream.attach(res, parsed.seq);
      if (stream.finished) entry.streams.delete(stream.id);
      return;
    }
    if (entry.standalone?.attached) {
      sendError(res, 409, -32000, "Conflict: a GET stream is already open for this session");
      return;
    }
    const version = entry.session.protocolVersion;
    const stream = entry.standalone ?? new SseStream(sessionHeaders(id), retryMs, version !== undefined && version >= "2025-11-25");
    entry.standalone = stream;
    stream.attach(res);
  }

  function handleDelete(req: IncomingMessage, res: ServerResponse): void {
    if (modernOnly(req, res)) return;
    const found = findSession(req, res);
    if (!found) return;
    endSession(found[0], found[1]);
    res.writeHead(200).end();
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
        return handleGet(req, res);
      case "DELETE":
        return handleDelete(req, res);
      default:
        res.writeHead(405, { Allow: "GET, POST, DELETE" }).end();
    }
  });

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, entry] of sessions) if (now - entry.lastSeen > idleMs) endSession(id, entry);
    },
    Math.min(idleMs, 60_000),
  );
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
    close() {
      clearInterval(sweep);
      for (const [id, entry] of [...sessions]) endSession(id, entry);
      return new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
