/**
 * Fuzzing the stdio JSON-RPC line reader with fast-check: any chunking of valid messages yields
 * the same messages, arbitrary bytes never throw, the size cap holds, and the id sniffed from an
 * oversized line is never the wrong one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLineReader, sniffId } from "../../packages/runtime/src/transport/line-reader.js";

const RUNS = 2_000;

/** Splits a buffer at the given cut points (any byte offset, so UTF-8 sequences are cut too). */
function cut(buffer: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buffer.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const p of points) {
    out.push(buffer.subarray(at, p));
    at = p;
  }
  out.push(buffer.subarray(at));
  return out;
}

function read(chunks: readonly Buffer[], maxBytes = 1 << 20) {
  const messages: unknown[] = [];
  const noise: { reason: string; kind: string }[] = [];
  const oversize: { bytes: number; id?: string | number }[] = [];
  const reader = createLineReader(maxBytes, {
    onMessage: (v) => messages.push(v),
    onNoise: (reason, kind) => noise.push({ reason, kind }),
    onOversizeEnd: (info) => oversize.push(info),
  });
  for (const c of chunks) reader.push(c);
  return { messages, noise, oversize };
}

const json = fc.jsonValue({ maxDepth: 4 });
const id = fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.string({ maxLength: 20, unit: "grapheme" }));

describe("line reader fuzzing", () => {
  it("any chunking of valid messages (LF or CRLF) yields exactly those messages", () => {
    fc.assert(
      fc.property(
        fc.array(json, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (values, cuts, crlf) => {
          const text = values.map((v) => JSON.stringify(v) + (crlf ? "\r\n" : "\n")).join("");
          const { messages, noise } = read(cut(Buffer.from(text, "utf8"), cuts));
          expect(noise).toEqual([]);
          expect(messages).toEqual(values.map((v) => JSON.parse(JSON.stringify(v))));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("unicode payloads survive cuts inside multi-byte sequences", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "binary", maxLength: 40 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (strings, cuts) => {
          const text = strings.map((s) => `${JSON.stringify({ jsonrpc: "2.0", id: 1, result: s })}\n`).join("");
          const { messages } = read(cut(Buffer.from(text, "utf8"), cuts));
          expect(messages.map((m) => (m as { result: string }).result)).toEqual(strings.map((s) => JSON.parse(JSON.stringify(s))));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("arbitrary bytes never throw, and each line gives at most one report", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 10 }), fc.integer({ min: 1, max: 512 }), (chunks, max) => {
        const buffers = chunks.map((c) => Buffer.from(c));
        const lines = Buffer.concat(buffers).toString("latin1").split("\n").length - 1;
        const { messages, noise, oversize } = read(buffers, max);
        expect(messages.length + noise.filter((n) => n.kind === "garbage").length).toBeLessThanOrEqual(lines);
        expect(oversize.length).toBeLessThanOrEqual(lines);
      }),
      { numRuns: RUNS },
    );
  });

  it("never delivers a line over the cap, and delivers the small ones around it", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 30 })), { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (plan, cuts) => {
          const max = 64;
          const lines = plan.map(([big, s]) => JSON.stringify({ s, pad: big ? "p".repeat(200) : "" }));
          const { messages, noise } = read(cut(Buffer.from(lines.map((l) => `${l}\n`).join("")), cuts), max);
          const small = lines.filter((l) => Buffer.byteLength(l) <= max);
          expect(messages).toEqual(small.map((l) => JSON.parse(l)));
          expect(noise.filter((n) => n.kind === "oversize")).toHaveLength(lines.length - small.length);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("the id sniffed from an oversized response is its real top-level id, or nothing; never a nested one", () => {
    const message = fc.record({
      order: fc.constantFrom("jsonrpc-id-result", "id-jsonrpc-result", "result-jsonrpc-id", "request", "error-last-id", "nested-only"),
      id,
      nestedId: id,
      payload: json,
    });
    fc.assert(
      fc.property(message, ({ order, id: realId, nestedId, payload }) => {
        const result = { content: [{ type: "text", id: nestedId, text: "x".repeat(300), payload }], id: nestedId };
        const value =
          order === "jsonrpc-id-result"
            ? { jsonrpc: "2.0", id: realId, result }
            : order === "id-jsonrpc-result"
              ? { id: realId, jsonrpc: "2.0", result }
              : order === "result-jsonrpc-id"
                ? { result, jsonrpc: "2.0", id: realId }
                : order === "request"
                  ? { jsonrpc: "2.0", id: realId, method: "sampling/createMessage", params: result }
                  : order === "error-last-id"
                    ? { error: { code: -1, message: "x", data: result }, jsonrpc: "2.0", id: realId }
                    : { jsonrpc: "2.0", result };
        const line = Buffer.from(`${JSON.stringify(value)}\n`);
        const { oversize } = read([line], 64);
        expect(oversize).toHaveLength(1);
        const got = oversize[0]?.id;
        const expected = order === "request" || order === "nested-only" ? undefined : JSON.parse(JSON.stringify(realId));
        if (got !== undefined) expect(got).toEqual(expected);
        // Plain ids (no JSON escapes) at the head or the tail are always found.
        if (expected !== undefined && !JSON.stringify(realId).includes("\\")) expect(got).toEqual(expected);
        if (order === "nested-only" || order === "request") expect(got).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it("sniffId never throws on arbitrary heads and tails", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 300 }), (head, tail) => {
        const got = sniffId(head, tail);
        expect(got === undefined || typeof got === "string" || typeof got === "number").toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
