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

/** Limits for `createSseParser`. */
export interface SseParserOptions {
  /** Longest line, and largest event data, in characters. Default 16 Mi. Longer ones are dropped. */
  readonly maxChars?: number;
  /** Called when a line or an event went over `maxChars` and was dropped. */
  readonly onOversize?: () => void;
}

/**
 * Creates an SSE parser that calls `onEvent` for each event with data. Memory is bounded by
 * `maxChars`, and each character is scanned once however the stream is chunked.
 */
export function createSseParser(onEvent: (event: SseEvent) => void, options: SseParserOptions = {}): SseParser {
  const maxChars = options.maxChars ?? 16 * 1024 * 1024;
  // The unterminated line, in pieces: joining on every push would copy and rescan it (quadratic).
  let parts: string[] = [];
  let partsLength = 0;
  // The current line, or the current event's data, went over the cap: drop it.
  let skippingLine = false;
  let dropEvent = false;
  let dataLength = 0;
  let eventType = "";
  let data: string[] = [];
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  // A CR at the end of one chunk may be followed by the LF of a CRLF in the next one.
  let skipLf = false;

  function line(text: string): void {
    if (text === "") {
      // An empty data buffer (a priming event is `data:` with nothing) dispatches nothing.
      const joined = dropEvent ? "" : data.join("\n");
      const type = eventType || "message";
      eventType = "";
      data = [];
      dataLength = 0;
      dropEvent = false;
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
        dataLength += value.length + 1;
        if (dataLength > maxChars) {
          if (!dropEvent) options.onOversize?.();
          dropEvent = true;
          data = [];
        }
        if (!dropEvent) data.push(value);
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
      return partsLength;
    },
    push(text) {
      let start = skipLf && text.charCodeAt(0) === 10 ? 1 : 0;
      skipLf = false;
      for (let i = start; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        const piece = text.slice(start, i);
        if (skippingLine || partsLength + piece.length > maxChars) {
          // A dropped line may have been part of an event's data: that event is incomplete.
          if (!skippingLine) options.onOversize?.();
          dropEvent = true;
        } else {
          line(parts.length === 0 ? piece : parts.join("") + piece);
        }
        parts = [];
        partsLength = 0;
        skippingLine = false;
        if (c === 13) {
          if (i + 1 < text.length) {
            if (text.charCodeAt(i + 1) === 10) i++;
          } else {
            skipLf = true;
          }
        }
        start = i + 1;
      }
      const rest = text.slice(start);
      if (skippingLine || rest === "") return;
      if (partsLength + rest.length > maxChars) {
        skippingLine = true;
        parts = [];
        partsLength = 0;
        options.onOversize?.();
        return;
      }
      parts.push(rest);
      partsLength += rest.length;
    },
  };
}
