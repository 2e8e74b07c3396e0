/**
 * Live progress for long commands (`pull` of several servers, `gen` of a large design), drawn on
 * stderr only when it is a terminal: one status line rewritten in place plus a permanent line per
 * finished step. Piped or with `--json`, nothing is drawn and the command prints its one summary
 * line (or its JSON) as before. Hand-written: a dozen lines of ANSI erase-line, no dependency.
 */

/** Where progress is drawn: `process.stderr`, or a stand-in in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

/** A progress display. Every method is a no-op when progress is off. */
export interface Progress {
  /** Replaces the status line. */
  status(text: string): void;
  /** Prints a permanent line above the status line. */
  line(text: string): void;
  /** Clears the status line. */
  end(): void;
}

const OFF: Progress = { status() {}, line() {}, end() {} };
const CLEAR = "\r\x1b[2K";
/** Status redraws closer together than this are skipped (a large gen writes hundreds of files). */
const REDRAW_MS = 50;

/** A live display on `stream` when it is a terminal and `json` is off; otherwise a no-op display. */
export function createProgress(stream: ProgressStream | undefined, options: { readonly json?: boolean } = {}): Progress {
  if (!stream?.isTTY || options.json) return OFF;
  let current = "";
  let drawn = 0;
  const fit = (text: string) => {
    const width = Math.max(20, (stream.columns || 80) - 1);
    return text.length > width ? `${text.slice(0, width - 1)}…` : text;
  };
  return {
    status(text) {
      current = text;
      const now = Date.now();
      if (now - drawn < REDRAW_MS) return;
      drawn = now;
      stream.write(`${CLEAR}${fit(text)}`);
    },
    line(text) {
      stream.write(`${CLEAR}${text}\n${current ? fit(current) : ""}`);
    },
    end() {
      if (current) stream.write(CLEAR);
      current = "";
    },
  };
}
