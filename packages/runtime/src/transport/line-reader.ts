/**
 * Newline-delimited JSON framing with a size cap. A line longer than the cap is dropped as a whole
 * (never buffered past the cap), so a runaway server cannot exhaust memory.
 */

/** What the reader reports for each complete line. */
export interface LineReaderEvents {
  readonly onMessage: (value: unknown) => void;
  /** A line that is not JSON, or one that exceeded the cap. */
  readonly onNoise: (reason: string, kind: "garbage" | "oversize") => void;
  /** An oversized line ended: its size, and its JSON-RPC id when found at the top level of its head or tail. */
  readonly onOversizeEnd?: (info: { readonly bytes: number; readonly id?: string | number }) => void;
}

const SNIFF_BYTES = 256;

/**
 * Finds the top-level id of an oversized JSON-RPC response from its first and last bytes only:
 * leading `"jsonrpc"`/`"id"` members, or a closing `,"id":X}` (quotes are escaped inside strings).
 * A leading `"method"` means a request, not a response: no id then.
 */
export function sniffId(head: string, tail: string): string | number | undefined {
  const parse = (value: string) => (value.startsWith('"') ? value.slice(1, -1) : Number(value));
  const token = /\s*"(jsonrpc|id|method)"\s*:\s*(-?\d+(?:\.\d+)?|"[^"\\]*")\s*([,}])/y;
  const start = head.search(/\S/);
  let id: string | number | undefined;
  if (head[start] === "{") {
    token.lastIndex = start + 1;
    for (let m = token.exec(head); m; m = m[3] === "}" ? null : token.exec(head)) {
      if (m[1] === "method") return undefined;
      if (m[1] === "id") id = parse(m[2] as string);
    }
  }
  if (id !== undefined) return id;
  const end = /,\s*"id"\s*:\s*(-?\d+(?:\.\d+)?|"[^"\\]*")\s*\}\s*$/.exec(tail);
  return end ? parse(end[1] as string) : undefined;
}

/** A stateful reader: feed it chunks, it calls back per line. */
export interface LineReader {
  push(chunk: Buffer): void;
}

/** The head and tail before any oversized line: one empty buffer for every reader. */
const EMPTY = Buffer.alloc(0);

/** Creates a line reader that caps each message at `maxBytes`. */
export function createLineReader(maxBytes: number, events: LineReaderEvents): LineReader {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  // While skipping an oversized line: its first and last bytes, to find which request it answered.
  let head: Buffer = EMPTY;
  let tail: Buffer = EMPTY;
  let skipped = 0;

  function emit(line: Buffer): void {
    emitText(line.toString("utf8"));
  }

  function emitText(decoded: string): void {
    // A CRLF line loses its CR (a char code compare: endsWith is a builtin call per line).
    const text = decoded.charCodeAt(decoded.length - 1) === 13 ? decoded.slice(0, -1) : decoded;
    // Blank lines are skipped silently; a line that starts with a JSON value needs no trim to know.
    if (text.length === 0 || (text.charCodeAt(0) <= 32 && text.trim() === "")) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      events.onNoise(`non-JSON line: ${text.slice(0, 80)}`, "garbage");
      return;
    }
    events.onMessage(value);
  }

  return {
    push(chunk) {
      // Fast path: nothing buffered and the chunk ends a line and fits the cap, so every line in it
      // fits too: decode once and split (0x0A never occurs inside a UTF-8 sequence).
      if (size === 0 && !skipping && chunk.length <= maxBytes && chunk[chunk.length - 1] === 10) {
        // Decoded whole (toString() with no arguments is the shortest way in) and searched as a string:
        // the newlines are where the bytes had them.
        const text = chunk.toString();
        const nl = text.indexOf("\n");
        // One line (every answer of a sequential caller): no split.
        if (nl === text.length - 1) {
          if (nl > 0) emitText(text.slice(0, nl));
          return;
        }
        // Several lines (answers to concurrent calls): sliced in place, no array of them.
        let from = 0;
        for (let at = nl; at !== -1; at = text.indexOf("\n", from)) {
          if (at > from) emitText(text.slice(from, at));
          from = at + 1;
        }
        return;
      }
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(10, start);
        // Fast path: a whole line inside this chunk, nothing buffered, within the cap: decoded in place
        // (no Buffer views, no part list). Anything else takes the general path below.
        if (nl !== -1 && size === 0 && !skipping && nl - start <= maxBytes) {
          if (nl > start) emitText(chunk.toString("utf8", start, nl));
          start = nl + 1;
          continue;
        }
        const end = nl === -1 ? chunk.length : nl;
        const piece = chunk.subarray(start, end);
        if (!skipping) {
          if (size + piece.length > maxBytes) {
            skipping = true;
            head = Buffer.concat([...parts, piece.subarray(0, SNIFF_BYTES)]).subarray(0, SNIFF_BYTES);
            tail = EMPTY;
            skipped = size;
            parts = [];
            size = 0;
            events.onNoise(`message larger than ${maxBytes} bytes dropped`, "oversize");
          } else if (piece.length > 0) {
            parts.push(piece);
            size += piece.length;
          }
        }
        if (skipping) {
          skipped += piece.length;
          tail = Buffer.concat([tail, piece.subarray(-SNIFF_BYTES)]).subarray(-SNIFF_BYTES);
        }
        if (nl === -1) break;
        if (skipping && events.onOversizeEnd) {
          const id = sniffId(head.toString("utf8"), tail.toString("utf8"));
          events.onOversizeEnd(id === undefined ? { bytes: skipped } : { bytes: skipped, id });
        }
        if (!skipping && size > 0) emit(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size));
        parts = [];
        size = 0;
        skipping = false;
        start = nl + 1;
      }
    },
  };
}
