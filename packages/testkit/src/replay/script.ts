/**
 * A cassette as a replay serves it: one exchange per client request, holding what the server did
 * in answer, in order (messages to send, answers to await from the client, a refused send). A
 * server message belongs to the request it names (a response), else to the latest request still
 * open when it arrived (progress, logging, a server request), a long-lived `subscriptions/listen`
 * last, as it stays open for the whole session.
 */

import type { Cassette, JsonObject } from "../cassette/format.js";

/** One thing the server did while answering a request. */
export type ReplayStep =
  | { readonly kind: "emit"; readonly msg: JsonObject }
  /** Wait for the client's answer to the server request with this (normalised) id. */
  | { readonly kind: "await"; readonly id: unknown }
  /** The transport failed the request (`end`: the transport itself ended, failing all in flight). */
  | { readonly kind: "fault"; readonly fault: JsonObject; readonly end: boolean };

/** A recorded client request and what the server did about it. */
export interface Exchange {
  /** Position among the cassette's requests, from 1 (named in failures). */
  readonly index: number;
  readonly request: JsonObject;
  readonly method: string;
  readonly steps: ReplayStep[];
}

const LONG_LIVED = "subscriptions/listen";

/** Splits a cassette's events into exchanges. Client notifications are kept for review only. */
export function exchangesOf(cassette: Cassette): Exchange[] {
  const exchanges: Exchange[] = [];
  const byId = new Map<unknown, Exchange>();
  const open: Exchange[] = [];
  const serverRequests = new Map<unknown, Exchange>();
  const close = (ex: Exchange) => {
    const at = open.indexOf(ex);
    if (at >= 0) open.splice(at, 1);
  };
  // With nothing open (a roots request right after the handshake), the message follows the last
  // exchange: the replay sends it after that exchange's answer, as the server did.
  const owner = (): Exchange | undefined => {
    for (let i = open.length - 1; i >= 0; i--) if (open[i]?.method !== LONG_LIVED) return open[i];
    return open[open.length - 1] ?? exchanges[exchanges.length - 1];
  };
  for (const event of cassette.events) {
    if (event.dir === "fault") {
      const end = event.end === true;
      // A transport that ended with nothing in flight (a process exit between calls) ends after
      // the latest exchange, as the message with nothing open does.
      const ex = event.id !== undefined ? byId.get(event.id) : end ? owner() : undefined;
      if (ex) {
        ex.steps.push({ kind: "fault", fault: event.fault, end });
        close(ex);
      }
      continue;
    }
    const msg = event.msg;
    const isRequest = typeof msg.method === "string" && msg.id !== undefined;
    const isResponse = msg.method === undefined && msg.id !== undefined;
    if (event.dir === "send") {
      if (isRequest) {
        const ex: Exchange = { index: exchanges.length + 1, request: msg, method: msg.method as string, steps: [] };
        exchanges.push(ex);
        byId.set(msg.id, ex);
        open.push(ex);
      } else if (isResponse) {
        // The client's answer to a server request: the replay waits for it at this point.
        serverRequests.get(msg.id)?.steps.push({ kind: "await", id: msg.id });
      }
      continue;
    }
    const ex = isResponse ? byId.get(msg.id) : owner();
    if (!ex) continue; // nothing open to carry it (a stray message): a replay cannot place it
    ex.steps.push({ kind: "emit", msg });
    if (isRequest) serverRequests.set(msg.id, ex);
    if (isResponse) close(ex);
  }
  return withoutTransportProbes(exchanges);
}

const HANDSHAKES = new Set(["initialize", "server/discover"]);

/**
 * Drops handshake attempts the transport refused when another handshake followed: the HTTP
 * caller's `server/discover` probe and the initialize POST a legacy HTTP+SSE server answered 404
 * before the caller fell back. They were the transport finding its way, not the session; an
 * in-memory replay reaches the session directly.
 */
function withoutTransportProbes(exchanges: readonly Exchange[]): Exchange[] {
  const lastHandshake = exchanges.reduce((at, ex, i) => (HANDSHAKES.has(ex.method) ? i : at), -1);
  return exchanges.filter((ex, i) => !(i < lastHandshake && HANDSHAKES.has(ex.method) && ex.steps.some((s) => s.kind === "fault")));
}
