/**
 * The deprecated HTTP+SSE transport (2024-11-05): GET opens an event stream whose first `endpoint`
 * event names the POST URL; every client message is POSTed there and answers come back as
 * `message` events. An endpoint on another origin is refused.
 */
import type http from "node:http";
import { retryAfterMsFromHeader } from "../failure/failure-mapping.js";
import type { RpcMessage } from "../protocol/json-rpc.js";
import type { WireFault } from "../protocol/wire-fault.js";
import { type HttpEndpointOptions, type HttpResponse, httpExchange, readBody, WireFaultError } from "./http-exchange.js";
import { createSseParser } from "./sse-parser.js";

/** Options for `createLegacySseTransport`. Header names are lower-case. */
export interface LegacySseOptions extends HttpEndpointOptions {
  readonly receive: (value: unknown) => void;
  readonly onNoise?: ((reason: string) => void) | undefined;
  /** The event stream ended; in-flight requests must fail. */
  readonly onClose: (fault: WireFault) => void;
}

/** A legacy HTTP+SSE transport. */
export interface LegacySseTransport {
  /** Opens the stream and waits for the `endpoint` event. Rejects with a `WireFaultError`. */
  connect(signal: AbortSignal, timeoutMs: number): Promise<void>;
  send(message: RpcMessage): Promise<void>;
  readonly endpoint: URL | undefined;
  close(): Promise<void>;
}

/** Creates a legacy HTTP+SSE transport. */
export function createLegacySseTransport(options: LegacySseOptions): LegacySseTransport {
  const life = new AbortController();
  let endpoint: URL | undefined;
  let closed = false;
  const posts = new Set<AbortController>();

  async function authHeaders(method: string): Promise<{ [name: string]: string }> {
    const headers: { [name: string]: string } = { ...options.headers };
    if (options.auth) {
      for (const [k, v] of Object.entries(await options.auth.authorize({ url: options.url.href, method }))) headers[k.toLowerCase()] = v;
    }
    return headers;
  }

  /** Runs an exchange; on 401/403 hands the challenge to the auth provider and retries once if it says so. */
  async function withChallenge(run: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const res = await run();
    if ((res.status !== 401 && res.status !== 403) || !options.auth) return res;
    const retry = await options.auth
      .handleChallenge({
        url: options.url.href,
        status: res.status,
        wwwAuthenticate: (res.headers["www-authenticate"] as string | undefined) ?? null,
        ...(options.outbound ? { outbound: options.outbound } : {}),
      })
      .catch((error: unknown) => {
        res.body.resume(); // the provider's fault replaces this response
        throw error;
      });
    if (!retry) return res;
    res.body.resume();
    return run();
  }

  async function fail(
    status: number,
    statusMessage: string | undefined,
    body: http.IncomingMessage,
    retryAfter: unknown,
  ): Promise<WireFault> {
    const text = await readBody(body, 64 * 1024).catch(() => "");
    const retryAfterMs = retryAfterMsFromHeader(typeof retryAfter === "string" ? retryAfter : undefined);
    return {
      type: "http",
      status,
      message: statusMessage || "error",
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(text ? { body: text.slice(0, 2000) } : {}),
    };
  }

  return {
    get endpoint() {
      return endpoint;
    },
    async connect(signal, timeoutMs) {
      const onAbort = () => life.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      // The deadline covers the GET's response headers too: a server that accepts the connection and
      // never answers must not hold connect() forever.
      let timedOut = false;
      const deadline = setTimeout(() => {
        timedOut = true;
        life.abort();
      }, timeoutMs);
      try {
        const res = await withChallenge(async () =>
          httpExchange({
            method: "GET",
            url: options.url,
            headers: { ...(await authHeaders("GET")), accept: "text/event-stream" },
            agent: false,
            signal: life.signal,
            redirect: options.redirect,
            outbound: options.outbound,
          }),
        );
        if (res.status < 200 || res.status >= 300)
          throw new WireFaultError(await fail(res.status, res.body.statusMessage, res.body, res.headers["retry-after"]));
        if (!String(res.headers["content-type"] ?? "").includes("text/event-stream")) {
          res.body.resume();
          throw new WireFaultError({ type: "http", status: res.status, message: "the SSE endpoint did not answer with text/event-stream" });
        }
        const streamUrl = res.url;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            reject(new WireFaultError({ type: "timeout", phase: "connect", message: `no endpoint event within ${timeoutMs} ms` }));
            res.body.destroy();
          }, timeoutMs);
          const parser = createSseParser((event) => {
            if (event.event === "endpoint") {
              if (endpoint !== undefined) return;
              let url: URL;
              try {
                url = new URL(event.data.trim(), streamUrl);
              } catch {
                clearTimeout(timer);
                reject(new WireFaultError({ type: "transport", code: "EPROTO", message: "the endpoint event is not a URL" }));
                res.body.destroy();
                return;
              }
              if (url.origin !== options.url.origin) {
                clearTimeout(timer);
                reject(
                  new WireFaultError({ type: "transport", code: "EPROTO", message: `endpoint on another origin (${url.origin}) refused` }),
                );
                res.body.destroy();
                return;
              }
              endpoint = url;
              clearTimeout(timer);
              resolve();
              return;
            }
            if (event.event !== "message") return;
            let value: unknown;
            try {
              value = JSON.parse(event.data);
            } catch {
              options.onNoise?.("SSE event data is not JSON");
              return;
            }
            options.receive(value);
          });
          res.body.setEncoding("utf8");
          res.body.on("data", (chunk: string) => parser.push(chunk));
          res.body.on("error", () => {});
          res.body.once("close", () => {
            clearTimeout(timer);
            const fault: WireFault = { type: "transport", code: "ECONNRESET", message: "the SSE stream closed" };
            if (endpoint === undefined) reject(new WireFaultError(fault));
            if (!closed) options.onClose(fault);
          });
        });
      } catch (error) {
        if (timedOut) throw new WireFaultError({ type: "timeout", phase: "connect", message: `no endpoint event within ${timeoutMs} ms` });
        throw error;
      } finally {
        clearTimeout(deadline);
        signal.removeEventListener("abort", onAbort);
      }
    },
    async send(message) {
      if (closed || endpoint === undefined)
        throw new WireFaultError({ type: "transport", code: "ECLOSED", message: "the SSE stream is not open" });
      // One controller per POST: sharing the life signal would pile listeners onto it under load.
      const controller = new AbortController();
      posts.add(controller);
      try {
        const target = endpoint;
        const res = await withChallenge(async () =>
          httpExchange({
            method: "POST",
            url: target,
            headers: { ...(await authHeaders("POST")), "content-type": "application/json" },
            body: JSON.stringify(message),
            agent: options.agent,
            signal: controller.signal,
            redirect: options.redirect,
            outbound: options.outbound,
          }),
        );
        if (res.status < 200 || res.status >= 300)
          throw new WireFaultError(await fail(res.status, res.body.statusMessage, res.body, res.headers["retry-after"]));
        res.body.resume();
      } finally {
        posts.delete(controller);
      }
    },
    async close() {
      closed = true;
      life.abort();
      for (const controller of posts) controller.abort();
    },
  };
}
