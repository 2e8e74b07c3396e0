/**
 * Fuzzing the SSE parser with fast-check: any chunking and any line-ending style of a valid stream
 * yields the same events, keep-alive comments yield nothing, and arbitrary text never throws.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSseParser, type SseEvent } from "../../packages/runtime/src/transport/sse-parser.js";

const RUNS = 2_000;

/** A field value: no CR, LF or NUL. */
const value = fc.string({ unit: "grapheme", maxLength: 24 }).map((s) => s.replace(/[\r\n\0]/g, ""));
const eol = fc.constantFrom("\n", "\r", "\r\n");

const event = fc.record({
  type: fc.option(
    value.filter((v) => v !== ""),
    { nil: undefined },
  ),
  id: fc.option(value, { nil: undefined }),
  data: fc.array(value, { minLength: 1, maxLength: 4 }),
  comment: fc.option(value, { nil: undefined }),
  retry: fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
});

function cutString(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let at = 0;
  for (const p of points) {
    out.push(text.slice(at, p));
    at = p;
  }
  out.push(text.slice(at));
  return out;
}

function parse(chunks: readonly string[]) {
  const events: SseEvent[] = [];
  const parser = createSseParser((e) => events.push(e));
  for (const c of chunks) parser.push(c);
  return { events, parser };
}

describe("SSE parser fuzzing", () => {
  it("any chunking and line-ending style of a valid stream yields the same events", () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 8 }), eol, fc.array(fc.nat(), { maxLength: 30 }), (events, nl, cuts) => {
        let text = "";
        let lastId: string | undefined;
        let lastRetry: number | undefined;
        const expected: SseEvent[] = [];
        for (const e of events) {
          if (e.comment !== undefined) text += `:${e.comment}${nl}`;
          if (e.type !== undefined) text += `event: ${e.type}${nl}`;
          if (e.id !== undefined) {
            text += `id: ${e.id}${nl}`;
            lastId = e.id;
          }
          if (e.retry !== undefined) {
            text += `retry: ${e.retry}${nl}`;
            lastRetry = e.retry;
          }
          for (const d of e.data) text += `data: ${d}${nl}`;
          text += nl;
          // A lone empty `data:` (the SEP-1699 priming event) dispatches nothing in this parser.
          if (e.data.join("\n") !== "") expected.push({ event: e.type ?? "message", data: e.data.join("\n"), id: lastId });
        }
        const { events: got, parser } = parse(cutString(text, cuts));
        expect(got).toEqual(expected);
        expect(parser.lastEventId).toBe(lastId);
        expect(parser.retryMs).toBe(lastRetry);
        expect(parser.pending).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it("a stream of keep-alive comments only yields no event and buffers nothing", () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 30 }), eol, fc.array(fc.nat(), { maxLength: 20 }), (comments, nl, cuts) => {
        const text = comments.map((c) => `:${c}${nl}`).join("");
        const { events, parser } = parse(cutString(text, cuts));
        expect(events).toEqual([]);
        expect(parser.pending).toBe(0);
      }),
      { numRuns: RUNS },
    );
  });

  it("arbitrary text never throws; only the unterminated tail is buffered", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary", maxLength: 80 }), { maxLength: 10 }), (chunks) => {
        const { parser } = parse(chunks);
        const all = chunks.join("");
        const tail = all.length - Math.max(all.lastIndexOf("\n"), all.lastIndexOf("\r")) - 1;
        expect(parser.pending).toBeLessThanOrEqual(tail);
      }),
      { numRuns: RUNS },
    );
  });
});
