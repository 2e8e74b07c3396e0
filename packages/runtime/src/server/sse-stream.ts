/**
 * Server-side SSE streams with replay. Every event gets an id `<stream>_<seq>`; events are kept
 * until the stream is finished and delivered, so a client that lost the connection can resume with
 * GET + `Last-Event-ID` and get the rest on the new connection (MCP 2025-11-25, SEP-1699).
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { RpcMessage } from "../protocol/json-rpc.js";

// Bounds the replay buffer of a stream whose client never comes back; older events are dropped first.
const MAX_KEPT_EVENTS = 1000;

function newStreamId(): string {
  const uuid = randomUUID();
  return uuid.slice(0, 8) + uuid.slice(9, 13);
}

/** One logical SSE stream, which may outlive the HTTP connection that carries it. */
export class SseStream {
  // Random, so a Last-Event-ID from another session cannot name this stream by guessing a counter.
  // 48 random bits from randomUUID (its first 12 hex digits), which draws on a pooled buffer: a
  // randomBytes call per stream was ~5% of a busy HTTP server's CPU (issue 32 profile).
  readonly id = newStreamId();
  private seq = 0;
  private readonly events: { readonly seq: number; readonly text: string }[] = [];
  private sink: ServerResponse | undefined;
  /** True once the last message of the stream was written. */
  finished = false;

  constructor(
    private readonly headers: { readonly [name: string]: string },
    private readonly retryMs: number,
    private readonly priming: boolean,
  ) {}

  /** True while an HTTP response is attached. */
  get attached(): boolean {
    return this.sink !== undefined;
  }

  /** Attaches a response (first connection or a resume) and replays events after `afterSeq`. */
  attach(res: ServerResponse, afterSeq?: number): void {
    this.detach();
    this.sink = res;
    res.writeHead(200, {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      ...this.headers,
    });
    // The headers go out with the first event when that comes in this turn (a quick call's answer:
    // one packet instead of two); otherwise on the next tick, so a long call's stream shows as open.
    process.nextTick(() => {
      if (this.sink === res && !res.headersSent) res.flushHeaders();
    });
    res.once("close", () => {
      if (this.sink === res) this.sink = undefined;
    });
    if (afterSeq === undefined) {
      // Priming event: an id with empty data, so even a stream that breaks at once can be resumed.
      if (this.priming) this.emit(`id: ${this.id}_0\nretry: ${this.retryMs}\ndata: \n\n`, 0);
    } else {
      for (const event of this.events) if (event.seq > afterSeq) res.write(event.text);
    }
    if (this.finished) this.detach();
  }

  /** Writes one JSON-RPC message as a `message` event. */
  write(message: RpcMessage): void {
    const seq = ++this.seq;
    this.emit(`id: ${this.id}_${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`, seq);
  }

  private emit(text: string, seq: number): void {
    if (seq > 0) {
      this.events.push({ seq, text });
      if (this.events.length > MAX_KEPT_EVENTS) this.events.shift();
    }
    this.sink?.write(text);
  }

  /** Marks the stream complete and ends the attached response; true when a connection got it all. */
  finish(): boolean {
    const delivered = this.sink !== undefined;
    this.finished = true;
    this.detach();
    return delivered;
  }

  /** Ends the current HTTP response without finishing the stream (the client may resume). */
  detach(): void {
    const sink = this.sink;
    this.sink = undefined;
    if (sink && !sink.writableEnded) sink.end();
  }
}

/** Splits a `Last-Event-ID` into stream id and sequence number. */
export function parseEventId(value: string): { readonly stream: string; readonly seq: number } | undefined {
  // The last "_": the sequence never contains one, the stream id is whatever comes before it.
  const cut = value.lastIndexOf("_");
  if (cut <= 0) return undefined;
  const seq = Number(value.slice(cut + 1));
  return Number.isSafeInteger(seq) && seq >= 0 ? { stream: value.slice(0, cut), seq } : undefined;
}
