/**
 * The Streamable HTTP transport (2025-03-26 … 2026-07-28): one POST per message, JSON or SSE
 * answers, `Mcp-Session-Id`, `MCP-Protocol-Version`, SSE resume by GET + `Last-Event-ID` after
 * `retry` ms (SEP-1699), the standalone GET stream (405 tolerated) and DELETE on close.
 */
import type http from "node:http";
import { retryAfterMsFromHeader } from "../failure/failure-mapping.js";
import type { RpcId, RpcMessage } from "../protocol/json-rpc.js";
import { META } from "../protocol/modern.js";
import type { WireFault } from "../protocol/wire-fault.js";
import { AbortHandle, type HttpEndpointOptions, type HttpResponse, httpExchange, readBody, WireFaultError } from "./http-exchange.js";
import { createSseParser } from "./sse-parser.js";

/** Options for `createStreamableHttpTransport`. Header names are lower-case. */
export interface StreamableHttpOptions extends HttpEndpointOptions {
  /** Feeds one inbound JSON-RPC value to the peer. */
  readonly receive: (value: unknown) => void;
  readonly onNoise?: ((reason: string) => void) | undefined;
  /** Extra headers for one outgoing message (modern routing headers). */
  readonly headersFor?: ((message: RpcMessage) => { readonly [name: string]: string } | undefined) | undefined;
  /** GET resumptions tried for one broken stream. Default 5. */
  readonly maxResumeAttempts?: number | undefined;
  /** Reconnect delay when the server sent no `retry`. Default 1000 ms. */
  readonly defaultRetryMs?: number | undefined;
}

/** A Streamable HTTP transport bound to one endpoint. */
export interface StreamableHttpTransport {
  /** Sends one message (the RPC peer's `send`). Rejects with a `WireFaultError`. */
  send(message: RpcMessage, context: { readonly requestId?: RpcId }): Promise<void>;
  /** Aborts the HTTP exchange of an abandoned request. */
  abandon(id: RpcId): void;
  readonly sessionId: string | undefined;
  /** The negotiated legacy version, sent as `MCP-Protocol-Version` once set. */
  protocolVersion: string | undefined;
  /** Modern era: no `notifications/cancelled` (closing the stream cancels), no resume. */
  modern: boolean;
  /** True after a 404 answered a request that carried a session id: the session is gone. */
  readonly sessionExpired: boolean;
  /** Forgets the session (before re-initializing). */
  resetSession(): void;
  /** Opens the standalone GET stream for server messages (legacy era). */
  openNotificationStream(): void;
  /** Aborts every exchange and DELETEs the session. */
  close(): Promise<void>;
}

interface InFlight {
  readonly controller: AbortHandle;
  answered: boolean;
}

const ACCEPT_BOTH = "application/json, text/event-stream";
const POST_HEADERS = Object.freeze({ "content-type": "application/json", accept: ACCEPT_BOTH });

/** Transport code for an SSE answer that ended before its response (nothing left to resume). */
export const STREAM_LOST = "ESTREAMLOST";
const sleep = (ms: number, signal: AbortSignal | AbortHandle) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      if (signal instanceof AbortHandle) signal.watch(undefined);
      else signal.removeEventListener("abort", done);
      resolve();
    }
    if (signal instanceof AbortHandle) signal.watch(done);
    else signal.addEventListener("abort", done, { once: true });
  });

function isSse(res: HttpResponse): boolean {
  return String(res.headers["content-type"] ?? "").includes("text/event-stream");
}

/** Creates a Streamable HTTP transport. Nothing is sent until the first `send`. */
export function createStreamableHttpTransport(options: StreamableHttpOptions): StreamableHttpTransport {
  const inflight = new Map<RpcId, InFlight>();
  const life = new AbortController();
  let sessionId: string | undefined;
  let sessionExpired = false;
  let getStreamOpen = false;
  let closed = false;
  const maxResume = options.maxResumeAttempts ?? 5;
  const defaultRetry = options.defaultRetryMs ?? 1000;

  function inbound(value: unknown): void {
    if (typeof value === "object" && value !== null && !("method" in value)) {
      const id = (value as { id?: unknown }).id;
      const entry = typeof id === "string" || typeof id === "number" ? inflight.get(id) : undefined;
      if (entry) entry.answered = true;
    }
    options.receive(value);
  }

  function inboundText(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      options.onNoise?.("SSE event data is not JSON");
      return;
    }
    if (Array.isArray(value)) for (const item of value) inbound(item);
    else inbound(value);
  }

  async function headersFor(
    method: "GET" | "POST" | "DELETE",
    message?: RpcMessage,
    fixed?: { readonly [name: string]: string },
  ): Promise<{ [name: string]: string }> {
    // One fresh object per request, filled in place: spreads per layer showed up in profiles.
    const headers: { [name: string]: string } = Object.assign({}, options.headers, fixed);
    if (options.auth) {
      for (const [k, v] of Object.entries(await options.auth.authorize({ url: options.url.href, method }))) headers[k.toLowerCase()] = v;
    }
    if (sessionId !== undefined) headers["mcp-session-id"] = sessionId;
    const params = message && "params" in message ? (message.params as { _meta?: { [key: string]: unknown } } | undefined) : undefined;
    const metaVersion = params?._meta?.[META.protocolVersion];
    if (typeof metaVersion === "string") headers["mcp-protocol-version"] = metaVersion;
    else if (transport.protocolVersion !== undefined) headers["mcp-protocol-version"] = transport.protocolVersion;
    if (message) {
      const extra = options.headersFor?.(message);
      if (extra) Object.assign(headers, extra);
    }
    return headers;
  }

  /** One exchange with at most one auth retry per status (a 401, a 403 step-up) and per DPoP nonce challenge. */
  async function exchange(
    method: "GET" | "POST" | "DELETE",
    build: () => Promise<{ [name: string]: string }>,
    body: string | undefined,
    signal: AbortSignal | AbortHandle,
    agent: http.Agent | false,
  ) {
    const challenged = new Set<string>();
    for (;;) {
      const res = await httpExchange({
        method,
        url: options.url,
        headers: await build(),
        ...(body === undefined ? {} : { body }),
        agent,
        ...(signal instanceof AbortHandle ? { abort: signal } : { signal }),
        redirect: options.redirect,
        outbound: options.outbound,
      });
      // A DPoP nonce challenge (RFC 9449 §9) gets its own single retry.
      const dpopNonce = res.headers["dpop-nonce"] as string | undefined;
      const challenge = `${res.status}${dpopNonce ? ":dpop-nonce" : ""}`;
      if ((res.status === 401 || res.status === 403) && options.auth && !challenged.has(challenge)) {
        challenged.add(challenge);
        const retry = await options.auth
          .handleChallenge({
            url: options.url.href,
            status: res.status,
            wwwAuthenticate: (res.headers["www-authenticate"] as string | undefined) ?? null,
            ...(dpopNonce ? { dpopNonce } : {}),
            ...(options.outbound ? { outbound: options.outbound } : {}),
          })
          .catch((error: unknown) => {
            res.body.resume(); // the provider's fault replaces this response
            throw error;
          });
        // Drain only when retrying: a refused challenge returns the response, whose body is still read.
        if (retry) {
          res.body.resume();
          continue;
        }
        return res;
      }
      return res;
    }
  }

  async function failure(res: HttpResponse, hadSession: boolean): Promise<WireFault> {
    const text = await readBody(res.body, 64 * 1024).catch(() => "");
    if (res.status === 404 && hadSession) sessionExpired = true;
    if (res.status === 400 || res.status === 404) {
      try {
        const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
        if (parsed && typeof parsed.error?.code === "number") {
          const e = parsed.error;
          return {
            type: "rpc",
            code: e.code as number,
            message: String(e.message ?? ""),
            ...(e.data === undefined ? {} : { data: e.data }),
            httpStatus: res.status,
          };
        }
      } catch {
        // not JSON: report the status below
      }
    }
    const retryAfterMs = retryAfterMsFromHeader(res.headers["retry-after"] as string | undefined);
    return {
      type: "http",
      status: res.status,
      message: res.body.statusMessage || "error",
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(text ? { body: text.slice(0, 2000) } : {}),
    };
  }

  /** Reads an SSE body to its end; resolves with the stream's last id and retry. */
  function consume(
    res: HttpResponse,
    stopWhenAnswered?: InFlight,
  ): Promise<{ lastEventId: string | undefined; retryMs: number | undefined }> {
    return new Promise((resolve) => {
      const body = res.body;
      body.setEncoding("utf8");
      let grace: ReturnType<typeof setTimeout> | undefined;
      const parser = createSseParser((event) => {
        if (event.event !== "message") return;
        inboundText(event.data);
        // The answer should end the stream; a server that keeps it open gets a short grace, then we hang up.
        if (stopWhenAnswered?.answered && grace === undefined) grace = setTimeout(() => body.destroy(), 200);
      });
      body.on("data", (chunk: string) => parser.push(chunk));
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        if (grace !== undefined) clearTimeout(grace);
        resolve({ lastEventId: parser.lastEventId, retryMs: parser.retryMs });
      };
      body.once("end", finish);
      body.once("close", finish);
      body.on("error", finish);
    });
  }

  /** After a POST stream broke before its answer: GET + Last-Event-ID, waiting `retry` ms first. */
  async function resume(entry: InFlight, lastEventId: string | undefined, retryMs: number | undefined): Promise<void> {
    let eventId = lastEventId;
    let wait = retryMs;
    for (let attempt = 0; attempt < maxResume && !entry.answered && eventId !== undefined; attempt++) {
      await sleep(wait ?? defaultRetry, entry.controller);
      if (entry.controller.aborted || closed) return;
      const last = eventId;
      const res = await exchange(
        "GET",
        async () => ({ ...(await headersFor("GET")), accept: "text/event-stream", "last-event-id": last }),
        undefined,
        entry.controller,
        // A pooled socket: no connect or DNS delay on top of the server's `retry` (SEP-1699 timing).
        options.agent,
      );
      if (res.status < 200 || res.status >= 300 || !isSse(res)) throw new WireFaultError(await failure(res, sessionId !== undefined));
      const state = await consume(res, entry);
      eventId = state.lastEventId ?? eventId;
      wait = state.retryMs ?? wait;
    }
  }

  async function post(message: RpcMessage, id: RpcId | undefined): Promise<void> {
    const entry: InFlight = { controller: new AbortHandle(), answered: false };
    if (id !== undefined) inflight.set(id, entry);
    const hadSession = sessionId !== undefined;
    const body = JSON.stringify(message);
    try {
      const res = await exchange(
        "POST",
        () => headersFor("POST", message, POST_HEADERS),
        body,
        entry.controller,
        (message as { method?: string }).method === "subscriptions/listen" ? false : options.agent,
      );
      const sid = res.headers["mcp-session-id"];
      if (typeof sid === "string" && sid !== "" && !transport.modern) sessionId = sid;
      if (res.status < 200 || res.status >= 300) throw new WireFaultError(await failure(res, hadSession));
      if (res.status === 202 || res.status === 204) {
        res.body.resume();
        // A request accepted without an answer: the answer can only come on the standalone GET stream.
        if (id !== undefined && !transport.modern) transport.openNotificationStream();
        return;
      }
      if (isSse(res)) {
        const state = await consume(res, entry);
        if (id === undefined || entry.answered || entry.controller.aborted) return;
        if (!transport.modern) await resume(entry, state.lastEventId, state.retryMs);
        if (!entry.answered && !entry.controller.aborted) {
          throw new WireFaultError({
            type: "transport",
            code: STREAM_LOST,
            message: "the response stream ended before the answer arrived",
          });
        }
        return;
      }
      const text = await readBody(res.body);
      if (text.trim() === "") {
        if (id === undefined) return;
        throw new WireFaultError({
          type: "transport",
          code: "EPROTO",
          message: `HTTP ${res.status} with an empty body answered a request`,
        });
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        const type = String(res.headers["content-type"] ?? "no content-type");
        throw new WireFaultError({ type: "transport", code: "EPROTO", message: `the response body (${type}) is not JSON` });
      }
      // A JSON-RPC error with a null id (the server could not read our id) is this request's answer.
      const orphan = value as { id?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | null;
      if (id !== undefined && orphan && !Array.isArray(orphan) && orphan.id === null && typeof orphan.error?.code === "number") {
        const e = orphan.error;
        throw new WireFaultError({
          type: "rpc",
          code: e.code as number,
          message: String(e.message ?? ""),
          ...(e.data === undefined ? {} : { data: e.data }),
        });
      }
      if (Array.isArray(value)) for (const item of value) inbound(item);
      else inbound(value);
      // Without this, a 200 that answers something else would leave the call waiting for its timeout.
      if (id !== undefined && !entry.answered && !entry.controller.aborted) {
        throw new WireFaultError({ type: "transport", code: "EPROTO", message: "the JSON answer carried no response for this request" });
      }
    } finally {
      if (id !== undefined && inflight.get(id) === entry) inflight.delete(id);
    }
  }

  async function notificationLoop(): Promise<void> {
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    let failures = 0;
    while (!closed && failures < maxResume) {
      let res: HttpResponse;
      try {
        const last = lastEventId;
        res = await exchange(
          "GET",
          async () => ({ ...(await headersFor("GET")), accept: "text/event-stream", ...(last ? { "last-event-id": last } : {}) }),
          undefined,
          life.signal,
          false,
        );
      } catch {
        failures++;
        await sleep(retryMs ?? defaultRetry, life.signal);
        continue;
      }
      if (res.status === 405 || res.status < 200 || res.status >= 300 || !isSse(res)) {
        res.body.resume();
        if (res.status !== 405) options.onNoise?.(`GET notification stream answered HTTP ${res.status}`);
        return; // 405: the server offers no standalone stream, which is fine
      }
      const before = lastEventId;
      const state = await consume(res);
      lastEventId = state.lastEventId ?? lastEventId;
      retryMs = state.retryMs ?? retryMs;
      failures = lastEventId !== before ? 0 : failures + 1;
      if (!closed) await sleep(retryMs ?? defaultRetry, life.signal);
    }
  }

  const transport: StreamableHttpTransport = {
    protocolVersion: undefined,
    modern: false,
    get sessionId() {
      return sessionId;
    },
    async send(message, context) {
      if (closed) throw new WireFaultError({ type: "transport", code: "ECLOSED", message: "the HTTP caller is closed" });
      // Over HTTP the modern era cancels by closing the request's stream; no notification is defined.
      if (transport.modern && (message as { method?: string }).method === "notifications/cancelled") return;
      await post(message, context.requestId);
    },
    abandon(id) {
      inflight.get(id)?.controller.abort();
    },
    get sessionExpired() {
      return sessionExpired;
    },
    resetSession() {
      sessionId = undefined;
      transport.protocolVersion = undefined;
    },
    openNotificationStream() {
      if (getStreamOpen || closed || transport.modern) return;
      getStreamOpen = true;
      notificationLoop()
        .catch(() => {})
        .finally(() => {
          getStreamOpen = false;
        });
    },
    async close() {
      if (closed) return;
      closed = true;
      life.abort();
      for (const entry of inflight.values()) entry.controller.abort();
      inflight.clear();
      if (sessionId === undefined || transport.modern) return;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 2000);
      try {
        const res = await httpExchange({
          method: "DELETE",
          url: options.url,
          headers: await headersFor("DELETE"),
          agent: options.agent,
          signal: controller.signal,
          redirect: options.redirect,
          outbound: options.outbound,
        });
        res.body.resume(); // 405 is allowed: the server keeps sessions until they expire
      } catch {
        // best effort
      } finally {
        clearTimeout(timer);
        sessionId = undefined;
      }
    },
  };
  return transport;
}
