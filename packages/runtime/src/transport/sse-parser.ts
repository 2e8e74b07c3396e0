/**
 * An incremental Server-Sent Events parser (WHATWG EventSource rules): `data` lines join with
 * newlines, `id` and `retry` update the stream state even on events without data (SEP-1699 priming
 * events), and comment lines (`:` keep-alives) are ignored.
 */

/** One dispatched SSE event. */
export interface SseEvent {
  /** The `event` field; `message` when absent. */
  readonly event: string;
  readonly data: string;
  /** The last event id at dispatch time, if any. */
  readonly id: string | undefined;
}

/** A push parser: feed decoded text, receive events. */
export interface SseParser {
  push(text: string): void;
  /** The most recent `id` seen on the stream. */
  readonly lastEventId: string | undefined;
  /** The most recent `retry` value in ms. */
  readonly retryMs: number | undefined;
  /** Characters buffered without a line end (guards against unbounded lines). */
  readonly pending: number;
}

/** Creates an SSE parser that calls `onEvent` for each event with data. */
export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let buffer = "";
  let eventType = "";
  let data: string[] = [];
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  // A CR at the end of one chunk may be followed by the LF of a CRLF in the next one.
  let skipLf = false;

  function line(text: string): void {
    if (text === "") {
      // An empty data buffer (a priming event is `data:` with nothing) dispatches nothing.
      const joined = data.join("\n");
      const type = eventType || "message";
      eventType = "";
      data = [];
      if (joined !== "") onEvent({ event: type, data: joined, id: lastEventId });
      return;
    }
    if (text.charCodeAt(0) === 58 /* : */) return; // comment / keep-alive
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case "data":
        data.push(value);
        return;
      case "event":
        eventType = value;
        return;
      case "id":
        if (!value.includes("\0")) lastEventId = value;
        return;
      case "retry":
        if (/^\d+$/.test(value)) retryMs = Number(value);
        return;
      default:
        return; // unknown fields are ignored
    }
  }

  return {
    get lastEventId() {
      return lastEventId;
    },
    get retryMs() {
      return retryMs;
    },
    get pending() {
      return buffer.length;
    },
    push(text) {
      let start = 0;
      let chunk = buffer + text;
      buffer = "";
      if (skipLf && chunk.charCodeAt(0) === 10) chunk = chunk.slice(1);
      skipLf = false;
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        line(chunk.slice(start, i));
        if (c === 13) {
          if (i + 1 < chunk.length) {
            if (chunk.charCodeAt(i + 1) === 10) i++;
          } else {
            skipLf = true;
          }
        }
        start = i + 1;
      }
      buffer = chunk.slice(start);
    },
  };
}
