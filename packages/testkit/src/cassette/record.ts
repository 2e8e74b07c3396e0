/**
 * `createRecordingCaller`: a real stdio or HTTP caller whose every message is written to a
 * cassette, through the runtime's `wiretap` option (one observer on the JSON-RPC peer, so the
 * caller under test is the real one, unchanged). Redaction happens as each event arrives, while
 * the caller's secrets are registered.
 */

import { createHostedCaller, type HostedCallerOptions, type SessionCaller, type WireEvent } from "@toolwright/runtime/caller";
import { clearHttpEraCache, createHttpCaller, type HttpCaller, type HttpCallerOptions } from "@toolwright/runtime/http";
import { writeFileSafe } from "@toolwright/runtime/manager";
import { createStdioCaller, type StdioCallerOptions } from "@toolwright/runtime/stdio";
import {
  CASSETTE_FORMAT,
  type Cassette,
  type CassetteEvent,
  type CassetteHeader,
  type CassetteTransport,
  printCassette,
} from "./format.js";
import { createNormaliser } from "./normalise.js";

/**
 * What to record: a stdio server, an HTTP endpoint, or a server in this process (`hosted`: any
 * runtime `MessageHost`, such as a tool server or a mock), with the options of its runtime caller.
 */
export type RecordTarget =
  | { readonly stdio: StdioCallerOptions }
  | { readonly http: HttpCallerOptions }
  | { readonly hosted: HostedCallerOptions };

/** Options for `createRecordingCaller`. */
export interface RecordingOptions {
  /** The server name in the cassette header. Default: the caller options' `name`, else "server". */
  readonly server?: string;
  /** More secret values to redact, besides the env values and header tokens the caller registers itself. */
  readonly secrets?: readonly string[];
}

/** A recording: the live caller to drive, and the cassette it has written so far. */
export interface Recording<C extends SessionCaller = SessionCaller> {
  /** The real caller; use it (or a generated client over it) as usual. */
  readonly caller: C;
  /** The cassette text so far. */
  cassette(): string;
  /** The cassette so far, parsed. */
  snapshot(): Cassette;
  /** Writes the cassette text to `file` (atomically, refusing symlinks), and returns the text. */
  save(file: string): string;
  /** Closes the caller; the header keeps the era and session facts seen before. */
  close(): Promise<void>;
}

/**
 * Creates a caller that records its session. HTTP: the era cache is cleared first, so a
 * re-recording probes the same way as the first recording did and writes the same bytes.
 */
export function createRecordingCaller(target: RecordTarget, options: RecordingOptions = {}): Recording {
  const events: CassetteEvent[] = [];
  const normaliser = createNormaliser({ ...(options.secrets ? { secrets: options.secrets } : {}) });
  // What close() causes (the process stopped, streams ended) is the recording's end, not the session's.
  let closing = false;
  const wiretap = (event: Parameters<typeof normaliser.event>[0]) => {
    if (closing || clientEnded(event)) return;
    const stable = normaliser.event(event);
    if (stable) events.push(stable);
  };
  let caller: SessionCaller;
  let transport: CassetteTransport;
  let http: HttpCaller | undefined;
  if ("stdio" in target) {
    caller = createStdioCaller({ ...target.stdio, wiretap });
    transport = "stdio";
  } else if ("hosted" in target) {
    caller = createHostedCaller({ ...target.hosted, wiretap });
    transport = "in-memory";
  } else {
    clearHttpEraCache();
    http = createHttpCaller({ ...target.http, wiretap });
    caller = http;
    transport = "streamable-http";
  }
  const given = "stdio" in target ? target.stdio.name : "hosted" in target ? target.hosted.name : target.http.name;
  const name = options.server ?? given ?? "server";
  let era: string | undefined;
  let session: boolean | undefined;
  const observe = () => {
    era = caller.handshake?.protocolVersion ?? era;
    if (http) {
      if (http.transport === "legacy-sse") transport = "legacy-sse";
      if (http.sessionId !== undefined) session = true;
    }
  };
  const header = (): CassetteHeader => {
    observe();
    return {
      cassette: CASSETTE_FORMAT,
      server: name,
      transport,
      ...(era !== undefined ? { era } : {}),
      ...(http ? { session: session === true } : {}),
    };
  };
  const snapshot = (): Cassette => ({ header: header(), events: [...events] });
  return {
    caller,
    snapshot,
    cassette: () => printCassette(snapshot()),
    save(file) {
      const text = printCassette(snapshot());
      writeFileSafe(file, text);
      return text;
    },
    async close() {
      observe();
      closing = true;
      await caller.close();
    },
  };
}

/**
 * A transport end the client caused itself (`ECLOSED`: it dropped a connection whose session the
 * server forgot, then opened a new one): the replay does that on its own, from the fault before.
 */
function clientEnded(event: WireEvent): boolean {
  return event.direction === "fault" && event.ended === true && event.fault.type === "transport" && event.fault.code === "ECLOSED";
}
