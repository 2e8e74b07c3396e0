/**
 * Newline-delimited JSON framing with a size cap. A line longer than the cap is dropped as a whole
 * (never buffered past the cap), so a runaway server cannot exhaust memory.
 */

/** What the reader reports for each complete line. */
export interface LineReaderEvents {
  readonly onMessage: (value: unknown) => void;
  /** A line that is not JSON, or one that exceeded the cap. */
  readonly onNoise: (reason: string, kind: "garbage" | "oversize") => void;
}

/** A stateful reader: feed it chunks, it calls back per line. */
export interface LineReader {
  push(chunk: Buffer): void;
}

/** Creates a line reader that caps each message at `maxBytes`. */
export function createLineReader(maxBytes: number, events: LineReaderEvents): LineReader {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;

  function emit(line: Buffer): void {
    let text = line.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.trim() === "") return;
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
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(10, start);
        const end = nl === -1 ? chunk.length : nl;
        const piece = chunk.subarray(start, end);
        if (!skipping) {
          if (size + piece.length > maxBytes) {
            skipping = true;
            parts = [];
            size = 0;
            events.onNoise(`message larger than ${maxBytes} bytes dropped`, "oversize");
          } else if (piece.length > 0) {
            parts.push(piece);
            size += piece.length;
          }
        }
        if (nl === -1) break;
        if (!skipping && size > 0) emit(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size));
        parts = [];
        size = 0;
        skipping = false;
        start = nl + 1;
      }
    },
  };
}
