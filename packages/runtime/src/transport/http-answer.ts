/**
 * Reading one HTTP answer from an MCP endpoint: a failed status becomes a wire fault, an SSE body
 * is parsed to its end, a JSON body is parsed or refused. Shared by both HTTP transports.
 */
import { retryAfterMsFromHeader } from "../failure/failure-mapping.js";
import type { WireFault } from "../failure/wire-fault.js";
import { AbortHandle, type HttpResponse, readBody, WireFaultError } from "./http-exchange.js";
import { createSseParser } from "./sse-parser.js";

/** Where an SSE body stopped: what a GET resumption sends as `Last-Event-ID`, and the server's `retry`. */
export interface SseEnd {
  readonly lastEventId: string | undefined;
  readonly retryMs: number | undefined;
}

/** True when the response is an event stream (the server chose SSE over a JSON body). */
export function isSse(res: HttpResponse): boolean {
  return String(res.headers["content-type"] ?? "").includes("text/event-stream");
}

/** A failed response's body, at most 64 KiB: it only feeds the fault's excerpt, and an error page can be huge. */
export function readFaultBody(res: HttpResponse): Promise<string> {
  return readBody(res.body, 64 * 1024).catch(() => "");
}

/** The fault for a non-2xx status: the status, `Retry-After` in milliseconds (429/503), the body's first 2,000 characters. */
export function httpStatusFault(res: HttpResponse, text: string): WireFault {
  const retryAfterMs = retryAfterMsFromHeader(res.headers["retry-after"] as string | undefined);
  return {
    type: "http",
    status: res.status,
    message: res.body.statusMessage || "error",
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(text ? { body: text.slice(0, 2000) } : {}),
  };
}

/** The JSON-RPC error a parsed body carries (`{ error: { code, message, data } }`) as an rpc fault; undefined when it has none. */
export function rpcErrorFault(value: unknown, httpStatus?: number): WireFault | undefined {
  const error = (value as { error?: { code?: unknown; message?: unknown; data?: unknown } } | null)?.error;
  if (typeof error?.code !== "number") return undefined;
  return {
    type: "rpc",
    code: error.code,
    message: String(error.message ?? ""),
    ...(error.data === undefined ? {} : { data: error.data }),
    ...(httpStatus === undefined ? {} : { httpStatus }),
  };
}

/** `JSON.parse`, or undefined for text that is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Reads a POST's JSON answer; undefined for a blank body that answers a notification. Rejects with
 * EPROTO when the body is not JSON or is blank for a request, and with the rpc fault of a JSON-RPC
 * error whose id is null: the server could not read our id, so that error is this request's answer.
 */
export async function readJsonAnswer(res: HttpResponse, forRequest: boolean): Promise<unknown> {
  return jsonAnswer(res, await readBody(res.body), forRequest);
}

/** `readJsonAnswer` on a body already read (see `bufferedBody`); throws what it rejects with. */
export function jsonAnswer(res: HttpResponse, text: string, forRequest: boolean): unknown {
  if (text.trim() === "") {
    if (!forRequest) return undefined;
    throw new WireFaultError({ type: "transport", code: "EPROTO", message: `HTTP ${res.status} with an empty body answered a request` });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const type = String(res.headers["content-type"] ?? "no content-type");
    throw new WireFaultError({ type: "transport", code: "EPROTO", message: `the response body (${type}) is not JSON` });
  }
  if (forRequest && !Array.isArray(value) && (value as { id?: unknown } | null)?.id === null) {
    const orphan = rpcErrorFault(value);
    if (orphan) throw new WireFaultError(orphan);
  }
  return value;
}

/**
 * Reads an SSE body to its end, handing each `message` event's data to `onMessage`; resolves with
 * the last event id and retry. When `answered()` turns true the answer should end the stream; a
 * server that keeps it open anyway gets a 200 ms grace, then we hang up (the socket is not pooled).
 */
export function readSseBody(res: HttpResponse, onMessage: (data: string) => void, answered?: () => boolean): Promise<SseEnd> {
  return new Promise((resolve) => {
    const body = res.body;
    body.setEncoding("utf8");
    let grace: ReturnType<typeof setTimeout> | undefined;
    const parser = createSseParser((event) => {
      if (event.event !== "message") return;
      onMessage(event.data);
      if (answered?.() && grace === undefined) grace = setTimeout(() => body.destroy(), 200);
    });
    body.on("data", (chunk: string) => parser.push(chunk));
    let done = false;
    // "end", "close" and "error" can all fire for one body; the first settles.
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

/** Waits `ms`, or less when the signal aborts first (then resolves, never rejects: the caller checks the signal). */
export function sleep(ms: number, signal: AbortSignal | AbortHandle): Promise<void> {
  return new Promise<void>((resolve) => {
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
}
