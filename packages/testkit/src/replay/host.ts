/**
 * The replay host: a runtime `MessageHost` that answers each client request from a cassette, so
 * the runtime's real client session (and the typed clients over it) runs unchanged, with no
 * process and no network. Responses get the live request id, progress the live progress token;
 * server requests (elicitation, sampling, roots) go out as recorded and the replay waits for the
 * client's answer before it goes on.
 */

import type { MessageHost, MessageHostSession } from "@toolwright/runtime/caller";
import type { RpcId, RpcMessage } from "@toolwright/runtime/protocol";
import type { Cassette, JsonObject } from "../cassette/format.js";
import { comparable, describeRequest, differences, nearest, sameValue } from "./match.js";
import { type Exchange, exchangesOf } from "./script.js";
import { wireFaultOf } from "./wire-fault.js";

/** Options for a replay. */
export interface ReplayOptions {
  /**
   * `strict` (default): the same requests in the recorded order. `matching`: any order, each
   * request answered by a recorded one with the same method and params (tool name and
   * arguments), unused ones first, then used ones again.
   */
  readonly mode?: "strict" | "matching";
  /** Params paths left out of the comparison, dotted and relative to `params`: `arguments.when`, `_meta`. */
  readonly ignore?: readonly string[];
}

/** The replay host, with what it served. */
export interface ReplayHost extends MessageHost {
  /** Requests answered from the cassette so far. */
  readonly served: number;
  /** Recorded requests not used yet (strict: the ones after the last served). */
  remaining(): number;
}

/** The JSON-RPC code of "the cassette holds no such call": invalid params, so the planner corrects its call. */
export const NOT_RECORDED_CODE = -32602;

// Handshake requests are matched by method alone: their params are the client's identity, not a call.
const HANDSHAKE = new Set(["initialize", "server/discover"]);
// A session-level stream (2026-07-28): opened by some callers and not others (an HTTP caller with
// handlers opens it, an in-memory one may not), so strict order skips it and any listen answers it.
const LISTEN = "subscriptions/listen";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Creates a host serving `cassette`. */
export function createReplayHost(cassette: Cassette, options: ReplayOptions = {}): ReplayHost {
  const exchanges = exchangesOf(cassette);
  const strict = options.mode !== "matching";
  const ignore = options.ignore ?? [];
  const used = new Set<Exchange>();
  let position = 0;
  let served = 0;
  const session = cassette.header.session === true;

  const matches = (ex: Exchange, method: string, params: unknown) =>
    ex.method === method && (HANDSHAKE.has(method) || sameValue(comparable(ex.request.params, ignore), comparable(params, ignore)));

  function pick(method: string, params: unknown): Exchange | string {
    if (method === LISTEN) return exchanges.find((ex) => ex.method === LISTEN) ?? `the cassette holds no ${LISTEN} request`;
    if (strict) {
      while (exchanges[position]?.method === LISTEN) position++;
      const next = exchanges[position];
      if (next && matches(next, method, params)) {
        position++;
        return next;
      }
      const live = describeRequest(method, params);
      if (!next) return `the cassette holds no call ${live}: its ${exchanges.length} recorded requests were all replayed (strict mode)`;
      const diff = differences(comparable(next.request.params, ignore), comparable(params, ignore));
      const what = next.method === method ? `differs: ${diff.join("; ")}` : `recorded method ${next.method}, got ${method}`;
      return `the cassette holds no call ${live} at this point (strict mode); the next recorded request is #${next.index}: ${describeRequest(next.method, next.request.params)}; ${what}`;
    }
    let reuse: Exchange | undefined;
    for (const ex of exchanges) {
      if (!matches(ex, method, params)) continue;
      if (!used.has(ex)) {
        used.add(ex);
        return ex;
      }
      reuse ??= ex;
    }
    if (reuse) return reuse;
    const live = describeRequest(method, params);
    const near = nearest(exchanges, method, params, ignore);
    if (!near) return `the cassette holds no call ${live}: it records no requests`;
    const diff = differences(comparable(near.request.params, ignore), comparable(params, ignore));
    const what = near.method === method ? `differs: ${diff.join("; ")}` : `recorded method ${near.method}, got ${method}`;
    return `the cassette holds no call ${live}; the nearest recorded request is #${near.index}: ${describeRequest(near.method, near.request.params)}; ${what}`;
  }

  return {
    get served() {
      return served;
    },
    remaining: () => {
      const left = strict ? exchanges.slice(position) : exchanges.filter((ex) => !used.has(ex));
      return left.filter((ex) => ex.method !== LISTEN).length;
    },
    openSession({ send, close: hangUp, fail }): MessageHostSession {
      let closed = false;
      // Answers the client sent to server requests, and the replays waiting for them.
      const answers = new Map<unknown, () => void>();
      const answered = new Set<unknown>();
      const waitFor = (id: unknown) =>
        new Promise<void>((resolve) => {
          if (answered.delete(id)) resolve();
          else answers.set(id, resolve);
        });
      const out = (msg: JsonObject, related: RpcId | undefined) => !closed && send(msg as unknown as RpcMessage, related) !== false;

      /**
       * A recorded transport failure, reproduced as what it was: the transport ends (a process
       * exit) or fails the one request (an HTTP status, a reset), so the client's runtime maps it
       * by the same path to the same failure. A 404 on a session the server had assigned is a
       * forgotten session, as the HTTP caller judges it. Hosts without these hooks (a replay
       * served over a real transport) answer a JSON-RPC error that carries the recorded fault.
       */
      function failAs(step: { readonly fault: JsonObject; readonly end: boolean }, id: RpcId, method: string): void {
        const fault = wireFaultOf(step.fault);
        if (step.end && hangUp) {
          closed = true;
          hangUp(fault);
          return;
        }
        if (!step.end && fail) {
          const status = fault.type === "http" ? fault.status : fault.type === "rpc" ? fault.httpStatus : undefined;
          fail(id, fault, { sessionLost: status === 404 && session && !HANDSHAKE.has(method) });
          return;
        }
        out({ jsonrpc: "2.0", id, error: faultError(step.fault) }, id);
      }

      async function play(ex: Exchange, id: RpcId, token: unknown): Promise<void> {
        for (const step of ex.steps) {
          if (closed) return;
          if (step.kind === "await") {
            await waitFor(step.id);
            continue;
          }
          if (step.kind === "fault") {
            failAs(step, id, ex.method);
            return;
          }
          const msg = step.msg;
          if (msg.method === undefined && msg.id !== undefined) {
            // The answer; what the server sent after it before the next request (a roots request) follows.
            if (!out({ ...msg, id }, id)) return;
            continue;
          }
          if (msg.method === "notifications/progress" && isObject(msg.params)) {
            // No token from the client: it did not ask for progress this time.
            if (token !== undefined) out({ ...msg, params: { ...msg.params, progressToken: token } }, id);
            continue;
          }
          if (!out(msg, id)) return;
        }
      }

      return {
        receive(value) {
          if (closed || !isObject(value)) return;
          const { id, method, params } = value;
          if (typeof method !== "string") {
            // The client's answer to a server request.
            const resolve = answers.get(id);
            if (resolve) {
              answers.delete(id);
              resolve();
            } else answered.add(id);
            return;
          }
          if (id === undefined) return; // client notifications need no answer
          const chosen = pick(method, params);
          if (typeof chosen === "string") {
            out({ jsonrpc: "2.0", id: id as RpcId, error: { code: NOT_RECORDED_CODE, message: chosen } }, id as RpcId);
            return;
          }
          served++;
          const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
          void play(chosen, id as RpcId, meta?.progressToken);
        },
        close() {
          closed = true;
          for (const resolve of answers.values()) resolve();
          answers.clear();
        },
      };
    },
  };
}

/**
 * A recorded refused send, answered as a JSON-RPC error: an in-memory session has no HTTP status
 * to give, so the recorded one travels in `data.recorded` (an `rpc` fault keeps its own code).
 */
function faultError(fault: JsonObject): JsonObject {
  if (fault.type === "rpc" && typeof fault.code === "number") {
    return { code: fault.code, message: String(fault.message), ...(fault.data !== undefined ? { data: fault.data } : {}) };
  }
  const code = fault.type === "transport" ? -32000 : -32603;
  return { code, message: `recorded ${String(fault.type)} failure: ${String(fault.message)}`, data: { recorded: fault } };
}
