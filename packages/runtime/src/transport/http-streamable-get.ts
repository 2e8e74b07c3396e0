/**
 * The GET side of Streamable HTTP in the legacy eras (2025-03-26 … 2025-11-25): resuming a POST's
 * broken SSE answer with `Last-Event-ID` after the server's `retry` (SEP-1699), and the standalone
 * stream on which a server sends requests and notifications outside any POST. The modern era has
 * neither: a broken answer is re-issued, and server messages ride `subscriptions/listen`.
 */
import type { WireFault } from "../failure/wire-fault.js";
import { isSse, readSseBody, sleep } from "./http-answer.js";
import { exchangeAuthorized } from "./http-auth.js";
import { type AbortHandle, type HttpEndpointOptions, type HttpResponse, WireFaultError } from "./http-exchange.js";

/** What the GET streams borrow from their transport. */
export interface GetStreamHost {
  readonly endpoint: HttpEndpointOptions;
  /** Builds a GET's headers (session, version, credentials, `Last-Event-ID` when given). */
  readonly headers: (lastEventId: string | undefined) => () => Promise<{ [name: string]: string }>;
  /** One `message` event's data (JSON-RPC text). */
  readonly onMessage: (data: string) => void;
  /** The fault for a failed GET (the transport notes an expired session). */
  readonly fault: (res: HttpResponse) => Promise<WireFault>;
  readonly closed: () => boolean;
  readonly onNoise?: ((reason: string) => void) | undefined;
  /** GET attempts for one broken stream, and rounds without progress for the standalone stream. */
  readonly maxResume: number;
  /** The wait when the server sent no `retry`. */
  readonly defaultRetryMs: number;
}

/** The request a resumption serves: it stops as soon as `answered` turns true, or on abort. */
export interface ResumeTarget {
  readonly controller: AbortHandle;
  readonly answered: boolean;
}

/** After a POST stream broke before its answer: GET + Last-Event-ID, waiting `retry` ms first. Rejects with the GET's fault. */
export async function resumeAnswer(
  host: GetStreamHost,
  entry: ResumeTarget,
  lastEventId: string | undefined,
  retryMs: number | undefined,
): Promise<void> {
  let eventId = lastEventId;
  let wait = retryMs;
  // Without an event id there is nothing to resume from: the server cannot know where we stopped.
  for (let attempt = 0; attempt < host.maxResume && !entry.answered && eventId !== undefined; attempt++) {
    await sleep(wait ?? host.defaultRetryMs, entry.controller);
    if (entry.controller.aborted || host.closed()) return;
    // A pooled socket: no connect or DNS delay on top of the server's `retry` (SEP-1699 timing).
    const agent = host.endpoint.agent;
    const res = await exchangeAuthorized(host.endpoint, "GET", host.headers(eventId), undefined, entry.controller, agent);
    if (res.status < 200 || res.status >= 300 || !isSse(res)) throw new WireFaultError(await host.fault(res));
    const state = await readSseBody(res, host.onMessage, () => entry.answered);
    eventId = state.lastEventId ?? eventId;
    wait = state.retryMs ?? wait;
  }
}

/**
 * The standalone GET stream: reconnects after `retry` with the last event id, and gives up after
 * `maxResume` rounds without progress or on any non-SSE answer (405 means the server offers none).
 */
export async function runNotificationStream(host: GetStreamHost, signal: AbortSignal, onFirstAnswer?: () => void): Promise<void> {
  try {
    await streamRounds(host, signal, onFirstAnswer);
  } finally {
    onFirstAnswer?.();
  }
}

async function streamRounds(host: GetStreamHost, signal: AbortSignal, onFirstAnswer: (() => void) | undefined): Promise<void> {
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  let failures = 0;
  while (!host.closed() && failures < host.maxResume) {
    let res: HttpResponse;
    try {
      // A dedicated socket: the stream stays open indefinitely and would starve the pool. An empty
      // event id (the server reset it) is not sent.
      res = await exchangeAuthorized(host.endpoint, "GET", host.headers(lastEventId || undefined), undefined, signal, false);
    } catch {
      onFirstAnswer?.();
      failures++;
      await sleep(retryMs ?? host.defaultRetryMs, signal);
      continue;
    }
    onFirstAnswer?.();
    if (res.status === 405 || res.status < 200 || res.status >= 300 || !isSse(res)) {
      res.body.resume();
      if (res.status !== 405) host.onNoise?.(`GET notification stream answered HTTP ${res.status}`);
      return;
    }
    const before = lastEventId;
    const state = await readSseBody(res, host.onMessage);
    lastEventId = state.lastEventId ?? lastEventId;
    retryMs = state.retryMs ?? retryMs;
    // Only a round that delivered nothing new counts against the limit; a busy server may end streams often.
    failures = lastEventId !== before ? 0 : failures + 1;
    if (!host.closed()) await sleep(retryMs ?? host.defaultRetryMs, signal);
  }
}
