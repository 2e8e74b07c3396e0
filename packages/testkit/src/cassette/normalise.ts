/**
 * Turns live wire events into stable cassette events: request ids numbered in order of appearance
 * (client and server requests apart, renumbered on every new request so a reconnect's reused ids
 * never merge), progress tokens, task ids and request states likewise, and every secret redacted by the runtime's
 * own rules for failures (registered env and header values, bearer tokens and `token=` text). No
 * second redactor: the runtime's is the one that is tested against leaks.
 */

import { redactText, redactValuesIn, registeredSecretValues, type WireEvent, type WireFault } from "@toolwright/runtime/caller";
import type { CassetteEvent, JsonObject } from "./format.js";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Numbers live values in order of appearance. */
class Numbering {
  private readonly map = new Map<unknown, number>();
  private next = 1;
  /** A new number for `live` (a request going out: its id may be reused after a reconnect). */
  fresh(live: unknown): number {
    const n = this.next++;
    this.map.set(live, n);
    return n;
  }
  /** The number `live` already has, or a new one. */
  of(live: unknown): number {
    return this.map.get(live) ?? this.fresh(live);
  }
  /** The number `live` already has; `live` itself when it was never seen (a stray id stays visible). */
  known(live: unknown): unknown {
    return this.map.get(live) ?? live;
  }
}

/** Options for `createNormaliser`. */
export interface NormaliseOptions {
  /** Secret values to redact besides those the runtime has registered (the callers' env values and header tokens). */
  readonly secrets?: readonly string[];
}

/** Normalises wire events one at a time, in order. */
export interface Normaliser {
  /** The stable event for `event`, redacted; undefined for a value that is not a JSON object. */
  event(event: WireEvent): CassetteEvent | undefined;
}

/** Creates the normaliser of one recording. */
export function createNormaliser(options: NormaliseOptions = {}): Normaliser {
  const client = new Numbering(); // ids of requests the client sent
  const server = new Numbering(); // ids of requests the server sent
  const tokens = new Numbering(); // progress tokens
  const tasks = new Numbering(); // task ids the server chose
  const states = new Numbering(); // 2026-07-28 `requestState`: signed with a per-process key
  const extra = (options.secrets ?? []).filter((s) => s !== "");

  function redact<T>(value: T): T {
    // The registry is read per event: a caller registers its secrets when it is created.
    const values = [...new Set([...registeredSecretValues(), ...extra])].sort((a, b) => b.length - a.length);
    return redactStrings(redactValuesIn(value, values));
  }

  function taskIds(value: unknown, depth = 0): unknown {
    if (depth > 64 || (!isObject(value) && !Array.isArray(value))) return value;
    if (Array.isArray(value)) return value.map((v) => taskIds(v, depth + 1));
    const out: { [key: string]: unknown } = Object.create(null);
    for (const [k, v] of Object.entries(value)) {
      if (k === "taskId" && typeof v === "string") out[k] = `task-${tasks.of(v)}`;
      else if (k === "requestState" && typeof v === "string") out[k] = `state-${states.of(v)}`;
      else out[k] = taskIds(v, depth + 1);
    }
    return out;
  }

  function send(msg: JsonObject): JsonObject {
    const out: { [key: string]: unknown } = { ...msg };
    if (typeof msg.method === "string" && msg.id !== undefined) out.id = client.fresh(msg.id);
    else if (msg.method === undefined && msg.id !== undefined) out.id = server.known(msg.id); // an answer to a server request
    const params = isObject(msg.params) ? { ...msg.params } : undefined;
    if (params) {
      const meta = isObject(params._meta) ? { ...params._meta } : undefined;
      if (meta && meta.progressToken !== undefined) {
        meta.progressToken = tokens.fresh(meta.progressToken);
        params._meta = meta;
      }
      if (msg.method === "notifications/cancelled" && params.requestId !== undefined) params.requestId = client.known(params.requestId);
      out.params = params;
    }
    return taskIds(out) as JsonObject;
  }

  function recv(msg: JsonObject): JsonObject {
    const out: { [key: string]: unknown } = { ...msg };
    if (typeof msg.method === "string" && msg.id !== undefined) out.id = server.fresh(msg.id);
    else if (msg.method === undefined && msg.id !== undefined) out.id = client.known(msg.id);
    if (isObject(msg.params)) {
      const params = { ...msg.params };
      if (msg.method === "notifications/progress" && params.progressToken !== undefined)
        params.progressToken = tokens.known(params.progressToken);
      if (msg.method === "notifications/cancelled" && params.requestId !== undefined) params.requestId = server.known(params.requestId);
      out.params = params;
    }
    return taskIds(out) as JsonObject;
  }

  return {
    event(event) {
      if (event.direction === "fault") {
        const id = event.requestId === undefined ? undefined : client.known(event.requestId);
        return {
          dir: "fault",
          ...(typeof id === "number" ? { id } : {}),
          ...(event.ended === true ? { end: true } : {}),
          fault: redact(faultFacts(event.fault)),
        };
      }
      if (!isObject(event.message)) return undefined;
      return event.direction === "send"
        ? { dir: "send", msg: redact(send(event.message)) }
        : { dir: "recv", msg: redact(recv(event.message)) };
    },
  };
}

/**
 * The facts of a transport failure the runtime maps (so a replay maps them the same way): type,
 * code or status, message, Retry-After, exit code and signal, the stderr tail (redacted like
 * every string here). Never headers or bodies.
 */
function faultFacts(fault: WireFault): JsonObject {
  const out: { [key: string]: unknown } = { type: fault.type, message: fault.message };
  if (fault.type === "http") {
    out.status = fault.status;
    if (fault.retryAfterMs !== undefined) out.retryAfterMs = fault.retryAfterMs;
  }
  if (fault.type === "rpc") {
    out.code = fault.code;
    if (fault.httpStatus !== undefined) out.status = fault.httpStatus;
    if (fault.data !== undefined) out.data = fault.data;
  }
  if (fault.type === "transport") {
    out.code = fault.code;
    if (fault.exitCode !== undefined) out.exitCode = fault.exitCode;
    if (fault.signal !== undefined) out.signal = fault.signal;
    if (fault.stderrTail) out.stderrTail = fault.stderrTail;
  }
  if (fault.type === "timeout") out.phase = fault.phase;
  return out;
}

/** `redactText` on every string (keys included): bearer tokens and `token=value` text. */
function redactStrings<T>(value: T, depth = 0): T {
  if (typeof value === "string") return redactText(value) as T;
  if (depth > 64 || (!isObject(value) && !Array.isArray(value))) return value;
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, depth + 1)) as T;
  const out: { [key: string]: unknown } = Object.create(null);
  for (const [k, v] of Object.entries(value as JsonObject)) out[redactText(k)] = redactStrings(v, depth + 1);
  return out as T;
}
