/**
 * Fuzzing the 2026-07-28 `Mcp-Param-*` header path with fast-check: any argument value becomes a
 * header value without CR, LF or other control characters (no header injection) that decodes back
 * to the value, and header planning never throws on arbitrary schemas.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeHeaderValue, encodeHeaderValue, paramHeaders, planToolHeaders } from "../../packages/runtime/src/protocol/modern.js";

const RUNS = 3_000;
const VISIBLE_ASCII = /^[\x20-\x7e]*$/;

describe("Mcp-Param header fuzzing", () => {
  it("encodeHeaderValue: visible ASCII only, and decodes back to the (well-formed) value", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 120 }),
          fc.constantFrom("a\r\nX-Injected: 1", "=?base64?aGk=?=", " padded ", "\u0000", ""),
        ),
        (value) => {
          const encoded = encodeHeaderValue(value);
          expect(encoded).toMatch(VISIBLE_ASCII);
          expect(decodeHeaderValue(encoded)).toBe(Buffer.from(value, "utf8").toString("utf8"));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("paramHeaders: any arguments give only header-safe values for the planned headers", () => {
    const schema = {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        count: { type: "integer", "x-mcp-header": "Count" },
        flag: { type: "boolean", "x-mcp-header": "Flag" },
        nested: { type: "object", properties: { id: { type: "string", "x-mcp-header": "Id" } } },
      },
    };
    const plan = planToolHeaders(schema);
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    fc.assert(
      fc.property(
        fc.record(
          {
            region: fc.jsonValue(),
            count: fc.jsonValue(),
            flag: fc.jsonValue(),
            nested: fc.oneof(fc.jsonValue(), fc.record({ id: fc.jsonValue() })),
          },
          { requiredKeys: [] },
        ),
        (args) => {
          const headers = paramHeaders(plan.params, args);
          for (const [name, value] of Object.entries(headers)) {
            expect(["mcp-param-region", "mcp-param-count", "mcp-param-flag", "mcp-param-id"]).toContain(name);
            expect(value).toMatch(VISIBLE_ASCII);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("planToolHeaders never throws on arbitrary JSON, and a reason is a string", () => {
    const withHeaders = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.jsonValue({ maxDepth: 2 }),
        fc.record(
          {
            type: fc.constantFrom("object", "string", "integer", "boolean", ["string", "null"]),
            "x-mcp-header": fc.oneof(fc.string(), fc.jsonValue()),
          },
          { requiredKeys: [] },
        ),
        fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.string({ maxLength: 6 }), tie("node"), { maxKeys: 4 }) }),
      ),
    })).node;
    fc.assert(
      fc.property(withHeaders, (schema) => {
        const plan = planToolHeaders(schema);
        if (!plan.ok) expect(typeof plan.reason).toBe("string");
        else for (const p of plan.params) expect(p.header).toMatch(/^Mcp-Param-[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/);
      }),
      { numRuns: RUNS },
    );
  });
});
