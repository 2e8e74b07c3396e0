/**
 * Legacy-era (2024-11-05 … 2025-11-25) Streamable HTTP sessions: the table keyed by
 * `Mcp-Session-Id`, and what each method does with a session. POST answers JSON or an SSE stream
 * per request batch, GET opens the standalone stream or resumes one with `Last-Event-ID`, DELETE
 * ends the session. Every message a session sends is routed to the stream of the request it
 * belongs to, else to the standalone stream.
 */

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RpcId, RpcMessage } from "../protocol/json-rpc.js";
import { classify } from "../protocol/json-rpc.js";
import { versionPrimesStreams } from "../revisions/legacy/versions.js";
import { isResponse } from "./http-stateless.js";
import { invalidAnswer, invalidAnswers, sendError } from "./http-support.js";
import { parseEventId, SseStream } from "./sse-stream.js";
import type { ServerSession, ToolServer } from "./tool-server.js";

/** Where one POST's answers go. */
interface Route {
  readonly pending: Set<RpcId>;
  readonly stream: SseStream | undefined;
  readonly collected: RpcMessage[];
  readonly done: () => void;
}

// One session: its protocol state, the open POST routes by request id, the POST streams kept for
// a Last-Event-ID resume, and the single standalone GET stream (spec: each message goes on one stream only).
interface HttpSession {
  readonly session: ServerSession;
  readonly routes: Map<RpcId, Route>;
  readonly streams: Map<string, SseStream>;
  standalone: SseStream | undefined;
  lastSeen: number;
}

/** Settings the session table needs from `serveHttp`'s options. */
export interface SessionTableOptions {
  readonly mode: "auto" | "json" | "sse";
  readonly retryMs: number;
  readonly maxSessions: number;
  /** False answers GET with 405. */
  readonly getStream: boolean;
}

/** The legacy sessions of one HTTP server. */
export interface SessionTable {
  readonly size: number;
  /** A POST whose body was read and parsed (`value`); `canSse`/`canJson` come from Accept. */
  post(req: IncomingMessage, res: ServerResponse, value: unknown, canSse: boolean, canJson: boolean): void;
  get(req: IncomingMessage, res: ServerResponse): void;
  delete(req: IncomingMessage, res: ServerResponse): void;
  /** Ends sessions unused for longer than `idleMs`. */
  sweep(idleMs: number): void;
  /** Ends every session. */
  closeAll(): void;
}

// Bounds the memory one session can pin with streams a client never resumes.
const MAX_KEPT_STREAMS = 32;
/** Methods answered on an SSE stream in "auto" mode: long calls, and task results whose questions ride on them. */
const STREAMED = new Set(["tools/call", "tasks/result"]);

const sessionHeaders = (id: string) => ({ "Mcp-Session-Id": id });

// Streams get priming events (an id and retry before any data) from 2025-11-25 on (SEP-1699).
function priming(entry: HttpSession): boolean {
  const version = entry.session.protocolVersion;
  return version !== undefined && versionPrimesStreams(version);
}

/** Opens a session on `server` and adds it to `sessions`, its messages routed to their requests' streams. */
function openSession(server: ToolServer, sessions: Map<string, HttpSession>): HttpSession {
  const id = randomUUID();
  const entry: HttpSession = {
    // Filled in below: openSession needs `route`, and `route` needs this entry.
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
    // The response to a request closes its route; when the last request of the POST is answered the
    // POST ends (SSE stream finished, or the collected JSON written), as the spec asks after the response.
    if (r && isResponse(message) && message.id === related) {
      entry.routes.delete(related);
      r.pending.delete(related);
      if (r.pending.size === 0) r.done();
    }
    // false: the session fails a server-to-client request at once instead of waiting for a reply
    // that cannot come (no POST stream for it and no GET stream opened yet).
    return delivered;
  };
  const closeStream = (related: RpcId) => entry.routes.get(related)?.stream?.detach();
  // A cancelled request gets no response: its route closes without one, so its POST ends now.
  const unanswered = (related: RpcId) => {
    const r = entry.routes.get(related);
    if (!r) return;
    entry.routes.delete(related);
    r.pending.delete(related);
    if (r.pending.size === 0) r.done();
  };
  (entry as { session: ServerSession }).session = server.openSession({ id, send: route, closeStream, unanswered });
  sessions.set(id, entry);
  return entry;
}

// Finishing every route answers any POST still waiting, so no HTTP response is left hanging.
function end(sessions: Map<string, HttpSession>, id: string, entry: HttpSession): void {
  sessions.delete(id);
  entry.session.close();
  entry.standalone?.finish();
  for (const stream of entry.streams.values()) stream.finish();
  for (const route of entry.routes.values()) route.done();
  entry.routes.clear();
}

/** The session a request names (touched), or undefined once the error answer was sent. */
function findSession(
  server: ToolServer,
  sessions: ReadonlyMap<string, HttpSession>,
  req: IncomingMessage,
  res: ServerResponse,
): [string, HttpSession] | undefined {
  const id = req.headers["mcp-session-id"];
  if (typeof id !== "string" || id === "") {
    // Spec: requests after initialize without the session id SHOULD get 400.
    sendError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
    return undefined;
  }
  const entry = sessions.get(id);
  if (!entry) {
    // 404 is what tells a spec client its session is gone and it must initialize again.
    sendError(res, 404, -32001, "Session not found");
    return undefined;
  }
  // An absent header is allowed (clients before 2025-06-18 send none); an unsupported one MUST get 400.
  const version = req.headers["mcp-protocol-version"];
  if (typeof version === "string" && !server.protocolVersions.includes(version)) {
    const supported = server.protocolVersions.join(", ");
    sendError(res, 400, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${supported})`);
    return undefined;
  }
  entry.lastSeen = Date.now();
  return [id, entry];
}

/** Keeps the stream for a resume; streams kept for a resume that never comes are bounded, oldest finished first. */
function keep(entry: HttpSession, stream: SseStream): void {
  entry.streams.set(stream.id, stream);
  if (entry.streams.size <= MAX_KEPT_STREAMS) return;
  for (const [key, kept] of entry.streams) {
    if (kept.finished) {
      entry.streams.delete(key);
      return;
    }
  }
}

/** GET: opens the session's standalone stream, or resumes the stream a Last-Event-ID names. */
function getStream(
  o: SessionTableOptions,
  find: (req: IncomingMessage, res: ServerResponse) => [string, HttpSession] | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  // Spec: a server that offers no GET stream MUST answer 405.
  if (!o.getStream) {
    res.writeHead(405, { Allow: "POST, DELETE" }).end();
    return;
  }
  const accept = (req.headers.accept ?? "").toLowerCase();
  if (!accept.includes("text/event-stream")) {
    sendError(res, 406, -32000, "Not Acceptable: GET needs Accept: text/event-stream");
    return;
  }
  const found = find(req, res);
  if (!found) return;
  const [id, entry] = found;
  const last = req.headers["last-event-id"];
  // A resume replays only the stream the event id names, never messages of another stream (spec).
  if (typeof last === "string") {
    const parsed = parseEventId(last);
    const stream = parsed ? entry.streams.get(parsed.stream) : undefined;
    if (!parsed || !stream) {
      sendError(res, 400, -32000, "Bad Request: unknown Last-Event-ID");
      return;
    }
    stream.attach(res, parsed.seq);
    // A finished stream has now been replayed to its end: nothing is left to resume.
    if (stream.finished) entry.streams.delete(stream.id);
    return;
  }
  // One standalone stream per session, so a server request has one place to go.
  if (entry.standalone?.attached) {
    sendError(res, 409, -32000, "Conflict: a GET stream is already open for this session");
    return;
  }
  // After a GET closes, the next GET reuses the same stream object, so its event ids keep counting up.
  const stream = entry.standalone ?? new SseStream(sessionHeaders(id), o.retryMs, priming(entry));
  entry.standalone = stream;
  stream.attach(res);
}

/** Creates the session table of `server`. */
export function createSessionTable(server: ToolServer, o: SessionTableOptions): SessionTable {
  const sessions = new Map<string, HttpSession>();
  const find = (req: IncomingMessage, res: ServerResponse) => findSession(server, sessions, req, res);

  function post(req: IncomingMessage, res: ServerResponse, value: unknown, canSse: boolean, canJson: boolean): void {
    const messages: unknown[] = Array.isArray(value) ? value : [value];
    const kinds = messages.map(classify);
    const requests = kinds.flatMap((k) => (k.type === "request" ? [k.message] : []));
    const invalid = invalidAnswers(messages, kinds);
    // Nothing the server can accept (an empty batch, or no request and something invalid): an HTTP
    // error with the JSON-RPC errors as its body, and nothing processed (spec: 400 rather than 202).
    if (requests.length === 0 && (invalid.length > 0 || messages.length === 0)) {
      const errors = messages.length === 0 ? [invalidAnswer(undefined, "empty batch")] : invalid;
      const body = Array.isArray(value) && messages.length > 0 ? errors : errors[0];
      res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    const isInit = requests.some((r) => r.method === "initialize");
    // 2025-03-26: initialize MUST NOT be part of a batch; nothing else is valid before it completes.
    if (isInit && messages.length > 1) {
      sendError(res, 400, -32600, "Invalid Request: initialize must be sent alone");
      return;
    }
    let found: [string, HttpSession] | undefined;
    if (isInit) {
      if (sessions.size >= o.maxSessions) {
        sendError(res, 503, -32000, "Service Unavailable: too many open sessions");
        return;
      }
      const entry = openSession(server, sessions);
      found = [entry.session.id as string, entry];
    } else {
      found = find(req, res);
      if (!found) return;
    }
    const [id, entry] = found;
    const valid = messages.filter((_, i) => kinds[i]?.type !== "invalid");
    // Only notifications and responses: the spec answers 202 with no body.
    if (requests.length === 0) {
      res.writeHead(202, sessionHeaders(id)).end();
      for (const m of valid) entry.session.receive(m);
      return;
    }
    const streamed = requests.some((r) => STREAMED.has(r.method));
    // A client that accepts only text/event-stream gets SSE even in "json" mode rather than a 406.
    const useSse = canSse && (o.mode === "sse" || (o.mode === "auto" && streamed) || !canJson);
    const stream = useSse ? new SseStream(sessionHeaders(id), o.retryMs, priming(entry)) : undefined;
    // A batch's invalid items are answered in the batch's own answer (JSON-RPC 2.0), first.
    const collected: RpcMessage[] = stream ? [] : [...invalid];
    const route: Route = {
      pending: new Set<RpcId>(requests.map((r) => r.id)),
      stream,
      collected,
      done: () => {
        if (stream) {
          // Kept for a resume only while some of it may not have reached the client.
          if (stream.finish()) entry.streams.delete(stream.id);
        } else if (!res.writableEnded) {
          // Every request cancelled: no response exists to send (MCP), so the POST is accepted with no body.
          if (collected.length === 0) res.writeHead(202, sessionHeaders(id)).end();
          // A batch is answered with an array, a single request with one object (JSON-RPC 2.0).
          else
            res
              .writeHead(200, { "Content-Type": "application/json", ...sessionHeaders(id) })
              .end(JSON.stringify(Array.isArray(value) ? collected : collected[0]));
        }
      },
    };
    for (const r of requests) entry.routes.set(r.id, route);
    if (stream) {
      keep(entry, stream);
      stream.attach(res);
      for (const answer of invalid) stream.write(answer);
    }
    for (const m of valid) entry.session.receive(m);
  }

  return {
    get size() {
      return sessions.size;
    },
    post,
    get: (req, res) => getStream(o, find, req, res),
    delete(req, res) {
      const found = find(req, res);
      if (!found) return;
      end(sessions, found[0], found[1]);
      res.writeHead(200).end();
    },
    sweep(idleMs) {
      const now = Date.now();
      for (const [id, entry] of sessions) if (now - entry.lastSeen > idleMs) end(sessions, id, entry);
    },
    closeAll() {
      for (const [id, entry] of [...sessions]) end(sessions, id, entry);
    },
  };
}
