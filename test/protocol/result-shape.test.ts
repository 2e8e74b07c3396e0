/**
 * `shapedCallResult` answers the common result (text blocks only) without building an issue list.
 * That shortcut must agree with the full check everywhere: fast-check results mixing well-formed
 * and broken blocks, fields and roots, compared with `callResultIssues`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callResultIssues, shapedCallResult } from "../../packages/runtime/src/protocol/result-shape.js";

const odd = fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer(), fc.boolean(), fc.string({ maxLength: 5 }), fc.constant([]));
const block = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string({ maxLength: 8 }) }),
  fc.record({ type: fc.constant("text"), text: odd }),
  fc.record({ type: fc.constantFrom("image", "audio"), data: fc.oneof(fc.string(), odd), mimeType: fc.oneof(fc.string(), odd) }),
  fc.record({ type: fc.constant("resource"), resource: fc.oneof(fc.record({ uri: fc.oneof(fc.string(), odd) }), odd) }),
  fc.record({ type: fc.oneof(fc.constant("future_block"), odd) }),
  odd,
);
const result = fc.oneof(
  fc.record(
    {
      content: fc.oneof(fc.array(block, { maxLength: 4 }), odd),
      structuredContent: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), fc.integer()), odd),
      isError: fc.oneof(fc.boolean(), odd),
    },
    { requiredKeys: [] },
  ),
  odd,
);

describe("shapedCallResult", () => {
  it("is ok exactly when callResultIssues finds nothing, and then keeps the content (or reads missing content as [])", () => {
    fc.assert(
      fc.property(result, (r) => {
        const shaped = shapedCallResult(r);
        expect(shaped.ok).toBe(callResultIssues(r).length === 0);
        if (shaped.ok) {
          const content = (r as { content?: unknown }).content;
          expect(shaped.value.content).toEqual(Array.isArray(content) ? content : []);
        } else expect(shaped.fault.type).toBe("malformed");
      }),
      { numRuns: 3_000 },
    );
  });

  it("takes a text-only result as it is, and refuses a text block whose text is not a string", () => {
    const good = {
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "" },
      ],
      isError: false,
    };
    const ok = shapedCallResult(good);
    expect(ok.ok && ok.value).toBe(good);
    const bad = shapedCallResult({
      content: [
        { type: "text", text: "a" },
        { type: "text", text: 7 },
      ],
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.fault.message).toContain("content[1].text is not string");
  });
});
