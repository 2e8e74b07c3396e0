/**
 * A scriptable MCP server over node:http for transport tests. It records every request it gets
 * (method, headers, body), speaks the legacy (initialize + sessions) or the 2026-07-28 era, and
 * can be told, per request, what to do wrong: a status with Retry-After, an SSE drop mid-stream
 * (resumable with Last-Event-ID), a slow drip of keep-alive comments, a lost session, a hang.
 */
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON body (POST), if any. */
  readonly body:
    | { readonly id?: string | number; readonly method?: string; readonly params?: any; readonly [k: string]: unknown }
    | undefined;
  /** True when the client closed the connection before the server answered. */
  closedEarly: boolean;
}

/** What to do wrong for one matching request (one-shot, in queue order). */
export interface Directive {
  /** Answer with this status instead (and `headers` / `body`). `headers` alone are added to a normal JSON answer. */
  readonly status?: number;
  readonly headers?: { readonly [name: string]: string };
  readonly body?: unknown;
  /** Answer 404 (session gone) and forget every session. */
  readonly expireSession?: boolean;
  /** Answer this request as an SSE stream. */
  readonly sse?: boolean;
  /** SSE: send a priming event (`id` + `retry`), then close the stream before the answer; the answer waits for GET + Last-Event-ID. */
  readonly dropAfterPriming?: { readonly retryMs: number };
  /** SSE: write `count` keep-alive comments, `intervalMs` apart, before answering. */
  readonly drip?: { readonly intervalMs: number; readonly count: number };
  /** Never answer; the request is recorded and held until the client goes away. */
  readonly hang?: boolean;
  /** Answer the POST with 202 and deliver the response on the standalone GET stream (old 2025-03-26 style). */
  readonly answerOnGet?: boolean;
  /** Wait this long before handling the request normally. */
  readonly delayMs?: number;
  /** Drop the connection: destroy the socket without any answer. */
  readonly destroy?: boolean;
  /** Reset the connection (TCP RST) without any answer, as a server closing a socket with the request unread does. */
  readonly reset?: boolean;
  /** Start an SSE answer (headers and a comment), then destroy the socket: no event id, so nothing to resume. */
  readonly dropMidStream?: boolean;
}

/** Which requests a directive applies to. */
export interface Match {
  /** JSON-RPC method, e.g. `tools/call`; `*` for any. */
  readonly rpc?: string;
  /** HTTP method. */
  readonly http?: "GET" | "POST" | "DELETE";
}

/** What a tool handler can do while it runs. */
export interface ToolContext {
  /** Sends `notifications/progress` (SSE answers only). */
  progress(progress: number, total?: number): void;
  /** Aborted when the client cancels (`notifications/cancelled` or a closed stream). */
  readonly signal: AbortSignal;
  /** The request's params (for `inputResponses`, `requestState`, `_meta`). */
  readonly params: { readonly [key: string]: any };
}

/** A tool of the scripted server: a descriptor plus a handler returning the result object. */
export interface ScriptedTool {
  readonly descriptor?: { readonly [key: string]: unknown };
  readonly run: (args: { readonly [key: string]: any }, ctx: ToolContext) => unknown | Promise<unknown>;
}

/** Options for `startScriptedHttpServer`. */
export interface ScriptedHttpOptions {
  /** `legacy` (default): initialize + Mcp-Session-Id. `modern`: 2026-07-28, server/discover, no sessions. */
  readonly era?: "legacy" | "2026-07-28";
  /** Default answer form for requests. Default `json`. */
  readonly response?: "json" | "sse";
  /** Legacy: mint session ids. Default true. */
  readonly sessions?: boolean;
  /** Legacy: offer the standalone GET stream (else 405). Default true. */
  readonly getStream?: boolean;
  /** Versions the server accepts. */
  readonly versions?: readonly string[];
  readonly tools?: { readonly [name: string]: ScriptedTool };
  /** Server capabilities. */
  readonly capabilities?: { readonly [key: string]: unknown };
  /** Every request must carry `Authorization: Bearer <token>`, else 401 with `WWW-Authenticate`. */
  readonly requireBearer?: string;
  /** Serve the deprecated HTTP+SSE transport instead: GET `/sse` (endpoint event), POST `/messages`. */
  readonly legacySse?: boolean;
  /** Answers for other methods (resources, prompts...): a result object, or undefined for -32601. */
  readonly results?: (method: string, params: { readonly [key: string]: any } | undefined) => unknown;
  /** Consulted for each request that no queued directive matched (random faults for load tests). */
  readonly chaos?: (request: RecordedRequest) => Directive | undefined;
}

/** A running scripted server. */
export interface ScriptedHttpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** The HTTP+SSE stream URL (`legacySse`), `http://127.0.0.1:<port>/sse`. */
  readonly sseUrl: string;
  readonly requests: RecordedRequest[];
  /** POSTed JSON-RPC messages with this method (any method when omitted). */
  rpc(method?: string): RecordedRequest[];
  /** Queues a one-shot directive for the next request that matches. */
  next(match: Match, directive: Directive): void;
  /** Destroys every open HTTP+SSE event stream (`legacySse`): a server restart as the client sees it. */
  dropSseStreams(): void;
  /** Sends a notification on every open GET or listen stream. */
  broadcast(message: { readonly method: string; readonly params?: unknown }): void;
  /** Live sessions (legacy). */
  readonly sessions: ReadonlySet<string>;
  close(): Promise<void>;
}

const DEFAULT_TOOLS: { readonly [name: string]: ScriptedTool } = {
  echo: {
    descriptor: { inputSchema: { type: "object", properties: { message: { type: "string" } } } },
    run: (args) => ({ content: [{ type: "text", text: `Echo: ${args.message}` }] }),
  },
};

interface Stream {
  readonly id: string;
  res: http.ServerResponse | undefined;
  seq: number;
  readonly buffer: string[];
  /** End the HTTP response once the JSON-RPC answer is written. */
  endOnAnswer: boolean;
}

/** Starts a scripted server on 127.0.0.1, port 0. */
export async function startScriptedHttpServer(options: ScriptedHttpOptions = {}): Promise<ScriptedHttpServer> {
  const era = options.era ?? "legacy";
  const versions = options.versions ?? (era === "2026-07-28" ? ["2026-07-28"] : ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
  const tools = options.tools ?? DEFAULT_TOOLS;
  const requests: RecordedRequest[] = [];
  const queue: { match: Match; directive: Directive }[] = [];
  const sessions = new Set<string>();
  const streams = new Map<string, Stream>();
  const listeners = new Set<{ res: http.ServerResponse; id: string | number | undefined }>();
  const running = new Map<string | number, AbortController>();
  const sockets = new Set<import("node:net").Socket>();
  let streamCounter = 0;
  let sessionCounter = 0;

  function take(httpMethod: string, rpc: string | undefined): Directive | undefined {
    const i = queue.findIndex(
      ({ match }) =>
        (match.http === undefined || match.http === httpMethod) && (match.rpc === undefined || match.rpc === "*" || match.rpc === rpc),
    );
    if (i === -1) return undefined;
    return queue.splice(i, 1)[0]?.directive;
  }

  function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: { [k: string]: string } = {}) {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  }

  function write(stream: Stream, message: unknown, isAnswer: boolean): void {
    const frame = `id: ${stream.id}-${++stream.seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
    if (stream.res && !stream.res.writableEnded) {
      stream.res.write(frame);
      if (isAnswer && stream.endOnAnswer) stream.res.end();
    } else stream.buffer.push(frame);
  }

  function openSse(res: http.ServerResponse, headers: { [k: string]: string }): void {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
    res.flushHeaders();
  }

  async function runTool(id: string | number, params: any, emit: (message: unknown, isAnswer: boolean) => void, signal: AbortSignal) {
    const tool = tools[params?.name];
    if (!tool) return emit({ jsonrpc: "2.0", id, error: { code: -32602, message: `Unknown tool: ${params?.name}` } }, true);
    const token = params?._meta?.progressToken;
    const ctx: ToolContext = {
      signal,
      params: params ?? {},
      progress: (progress, total) => {
        if (token !== undefined)
          emit({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress, total } }, false);
      },
    };
    try {
      const result = await tool.run(params?.arguments ?? {}, ctx);
      if (!signal.aborted) emit({ jsonrpc: "2.0", id, result }, true);
    } catch (error) {
      emit({ jsonrpc: "2.0", id, error: { code: -32603, message: String((error as Error).message ?? error) } }, true);
    }
  }

  function result(method: string, params: any): unknown {
    const custom = options.results?.(method, params);
    if (custom !== undefined) return custom;
    if (method === "tools/list") {
      const list = Object.entries(tools).map(([name, t]) => ({ name, inputSchema: { type: "object" }, ...t.descriptor }));
      return era === "2026-07-28" ? { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: list } : { tools: list };
    }
    if (method === "ping") return {};
    if (method === "prompts/get") return { messages: [{ role: "user", content: { type: "text", text: `prompt ${params?.name}` } }] };
    if (method === "resources/read") return { contents: [{ uri: params?.uri, text: "scripted resource" }] };
    if (method === "server/discover")
      return {
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "private",
        supportedVersions: versions,
        capabilities: options.capabilities ?? { tools: { listChanged: true } },
        serverInfo: { name: "scripted", version: "1.0.0" },
      };
    if (method === "initialize") {
      const asked = params?.protocolVersion;
      return {
        protocolVersion: versions.includes(asked) ? asked : versions[0],
        capabilities: options.capabilities ?? { tools: { listChanged: true } },
        serverInfo: { name: "scripted", version: "1.0.0" },
      };
    }
    return undefined;
  }

  async function onPost(req: http.IncomingMessage, res: http.ServerResponse, record: RecordedRequest, directive: Directive | undefined) {
    const msg = record.body;
    if (!msg || typeof msg !== "object")
      return sendJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    const method = msg.method;
    const sessionHeader = req.headers["mcp-session-id"] as string | undefined;
    const sessionHeaders: { [k: string]: string } = {};
    if (era === "legacy") {
      if (method === "initialize") {
        if (options.sessions !== false) {
          const sid = `s-${++sessionCounter}`;
          sessions.add(sid);
          sessionHeaders["mcp-session-id"] = sid;
        }
      } else if (options.sessions !== false) {
        if (sessionHeader === undefined)
          return sendJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: no session" } });
        if (!sessions.has(sessionHeader))
          return sendJson(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
        sessionHeaders["mcp-session-id"] = sessionHeader;
      }
    } else {
      const version = req.headers["mcp-protocol-version"];
      const metaVersion = msg.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
      if (method !== undefined && msg.id !== undefined) {
        if (version !== metaVersion)
          return sendJson(res, 400, { jsonrpc: "2.0", id: msg.id, error: { code: -32020, message: "Header mismatch" } });
        if (!versions.includes(String(version)))
          return sendJson(res, 400, {
            jsonrpc: "2.0",
            id: msg.id,
            error: { code: -32022, message: "Unsupported protocol version", data: { supported: versions, requested: version } },
          });
        if (req.headers["mcp-method"] !== method)
          return sendJson(res, 400, { jsonrpc: "2.0", id: msg.id, error: { code: -32020, message: "Mcp-Method mismatch" } });
      }
    }
    if (msg.id === undefined || method === undefined) {
      // A notification or a response to a server request.
      if (method === "notifications/cancelled") running.get(msg.params?.requestId)?.abort();
      res.writeHead(202).end();
      return;
    }
    const id = msg.id;
    if (method === "subscriptions/listen" && era === "2026-07-28") {
      openSse(res, {});
      const entry = { res, id };
      listeners.add(entry);
      res.write(
        `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: msg.params?.notifications ?? {}, _meta: { "io.modelcontextprotocol/subscriptionId": id } } })}\n\n`,
      );
      res.on("close", () => listeners.delete(entry));
      return;
    }
    if (method !== "tools/call") {
      const value = result(method, msg.params);
      if (value === undefined)
        return sendJson(
          res,
          era === "2026-07-28" ? 404 : 200,
          { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } },
          sessionHeaders,
        );
      return sendJson(res, 200, { jsonrpc: "2.0", id, result: value }, { ...sessionHeaders, ...directive?.headers });
    }
    const controller = new AbortController();
    running.set(id, controller);
    if (directive?.answerOnGet) {
      res.writeHead(202, sessionHeaders).end();
      await runTool(id, msg.params, (m) => toGetStream(`data: ${JSON.stringify(m)}\n\n`), controller.signal);
      running.delete(id);
      return;
    }
    const useSse =
      directive?.sse || directive?.dropAfterPriming !== undefined || directive?.drip !== undefined || options.response === "sse";
    if (!useSse) {
      let answer: unknown;
      await runTool(
        id,
        msg.params,
        (m, isAnswer) => {
          if (isAnswer) answer = m;
        },
        controller.signal,
      );
      running.delete(id);
      if (!res.writableEnded && !controller.signal.aborted) sendJson(res, 200, answer, sessionHeaders);
      return;
    }
    const stream: Stream = { id: `st${++streamCounter}`, res, seq: 0, buffer: [], endOnAnswer: true };
    streams.set(stream.id, stream);
    openSse(res, sessionHeaders);
    res.on("close", () => {
      if (stream.res === res) stream.res = undefined;
      // Modern: a closed stream is the cancellation. Legacy: it is not (resume is possible).
      if (era === "2026-07-28" && !res.writableFinished) controller.abort();
    });
    if (directive?.drip) {
      for (let i = 0; i < directive.drip.count && !res.destroyed; i++) {
        res.write(": keep-alive\n\n");
        await new Promise((r) => setTimeout(r, directive.drip?.intervalMs));
      }
    }
    if (directive?.dropAfterPriming) {
      res.write(`id: ${stream.id}-0\nretry: ${directive.dropAfterPriming.retryMs}\ndata: \n\n`);
      stream.res = undefined;
      res.end();
    }
    await runTool(id, msg.params, (m, isAnswer) => write(stream, m, isAnswer), controller.signal);
    running.delete(id);
  }

  function onGet(req: http.IncomingMessage, res: http.ServerResponse, directive?: Directive) {
    if (era === "2026-07-28" || options.getStream === false) return void res.writeHead(405, { allow: "POST" }).end();
    const last = req.headers["last-event-id"] as string | undefined;
    const sid = req.headers["mcp-session-id"] as string | undefined;
    if (options.sessions !== false && (sid === undefined || !sessions.has(sid))) return void res.writeHead(404).end();
    openSse(res, {});
    if (directive?.dropAfterPriming) {
      // SEP-1699 polling: prime the standalone stream with an id and a retry, then close it.
      res.end(`id: g${++streamCounter}-0\nretry: ${directive.dropAfterPriming.retryMs}\ndata: \n\n`);
      return;
    }
    if (last?.startsWith("g")) {
      // A resumed standalone stream: nothing was buffered for it; it listens again.
      const entry = { res, id: undefined };
      listeners.add(entry);
      res.on("close", () => listeners.delete(entry));
      return;
    }
    if (last !== undefined) {
      const stream = streams.get(last.slice(0, last.lastIndexOf("-")));
      if (!stream) return void res.end();
      stream.res = res;
      for (const frame of stream.buffer.splice(0)) res.write(frame);
      res.on("close", () => {
        if (stream.res === res) stream.res = undefined;
      });
      return;
    }
    const entry = { res, id: undefined };
    listeners.add(entry);
    res.on("close", () => listeners.delete(entry));
    for (const frame of forGet.splice(0)) res.write(frame);
  }

  /** Frames waiting for a standalone GET stream to open. */
  const forGet: string[] = [];
  function toGetStream(frame: string): void {
    const open = [...listeners].filter((l) => l.id === undefined);
    if (open.length === 0) forGet.push(frame);
    for (const l of open) l.res.write(frame);
  }

  const sseStreams = new Map<string, http.ServerResponse>();

  /** The deprecated HTTP+SSE transport: answers travel on the GET stream, POSTs get 202. */
  function onLegacySse(req: http.IncomingMessage, res: http.ServerResponse, msg: RecordedRequest["body"]): void {
    const path = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && path.pathname === "/sse") {
      const sid = `sse-${++sessionCounter}`;
      openSse(res, {});
      sseStreams.set(sid, res);
      res.on("close", () => sseStreams.delete(sid));
      res.write(`event: endpoint\ndata: /messages?sessionId=${sid}\n\n`);
      return;
    }
    if (req.method !== "POST" || path.pathname !== "/messages") return void res.writeHead(path.pathname === "/sse" ? 405 : 404).end();
    const stream = sseStreams.get(path.searchParams.get("sessionId") ?? "");
    if (!stream || !msg) return void res.writeHead(404).end();
    res.writeHead(202).end();
    const emit = (m: unknown) => stream.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
    if (msg.id === undefined || msg.method === undefined) {
      if (msg.method === "notifications/cancelled") running.get(msg.params?.requestId)?.abort();
      return;
    }
    if (msg.method === "tools/call") {
      const controller = new AbortController();
      running.set(msg.id, controller);
      void runTool(msg.id, msg.params, emit, controller.signal).finally(() => running.delete(msg.id as string | number));
      return;
    }
    const value = result(msg.method, msg.params);
    emit(
      value === undefined
        ? { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } }
        : { jsonrpc: "2.0", id: msg.id, result: value },
    );
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: RecordedRequest["body"];
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const record: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, closedEarly: false };
      requests.push(record);
      res.on("close", () => {
        if (!res.writableFinished) record.closedEarly = true;
      });
      const directive = take(record.method, body?.method) ?? options.chaos?.(record);
      if (directive?.hang) return;
      if (directive?.delayMs !== undefined) await new Promise((r) => setTimeout(r, directive.delayMs));
      if (directive?.destroy) return void req.socket.destroy();
      if (directive?.reset) return void req.socket.resetAndDestroy();
      if (directive?.dropMidStream) {
        openSse(res, {});
        res.write(": started\n\n", () => req.socket.destroy());
        return;
      }
      if (directive?.expireSession) {
        sessions.clear();
        return sendJson(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
      }
      if (options.requireBearer !== undefined && req.headers.authorization !== `Bearer ${options.requireBearer}`) {
        res.writeHead(401, { "www-authenticate": 'Bearer realm="scripted"' }).end();
        return;
      }
      if (directive?.status !== undefined) {
        res.writeHead(directive.status, {
          ...(directive.body === undefined ? {} : { "content-type": "application/json" }),
          ...directive.headers,
        });
        res.end(
          directive.body === undefined ? undefined : typeof directive.body === "string" ? directive.body : JSON.stringify(directive.body),
        );
        return;
      }
      if (options.legacySse) onLegacySse(req, res, body);
      else if (req.method === "POST") void onPost(req, res, record, directive);
      else if (req.method === "GET") onGet(req, res, directive);
      else if (req.method === "DELETE") {
        const sid = req.headers["mcp-session-id"] as string | undefined;
        if (era === "2026-07-28") return void res.writeHead(405).end();
        if (sid) sessions.delete(sid);
        res.writeHead(200).end();
      } else res.writeHead(405).end();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sseUrl: `http://127.0.0.1:${port}/sse`,
    requests,
    sessions,
    rpc: (method) => requests.filter((r) => r.method === "POST" && (method === undefined || r.body?.method === method)),
    next: (match, directive) => void queue.push({ match, directive }),
    dropSseStreams() {
      for (const res of sseStreams.values()) res.destroy();
    },
    broadcast(message) {
      for (const l of listeners) {
        const params =
          era === "2026-07-28"
            ? { ...(message.params as object), _meta: { "io.modelcontextprotocol/subscriptionId": l.id } }
            : message.params;
        l.res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", method: message.method, ...(params === undefined ? {} : { params }) })}\n\n`);
      }
    },
    async close() {
      for (const c of running.values()) c.abort();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
