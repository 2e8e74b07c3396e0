import { describe, expect, it } from "vitest";
import { createMetaArgsDecoder } from "./meta-args.js";

describe("createMetaArgsDecoder", () => {
  const decode = createMetaArgsDecoder(
    {
      query: { type: "string" },
      limit: { type: "integer", minimum: 1, maximum: 20 },
      detail: { type: "string", enum: ["name", "full"] },
      arguments: { type: "string" },
    },
    ["query"],
    { objectAsText: ["arguments"] },
  );

  it("passes a valid payload through unchanged, objects allowed only where declared as object text", () => {
    const value = { query: "x", limit: 20, detail: "full", arguments: { a: 1 } };
    expect(decode(value)).toEqual({ ok: true, value });
    expect(decode({ query: "x", arguments: "{}" })).toMatchObject({ ok: true });
  });

  it("names every problem as the runtime's field issues", () => {
    expect(decode([])).toEqual({ ok: false, issues: [{ field: "", constraint: "invalid_field_type", expected: "object" }] });
    expect(decode({ limit: 0, detail: "some", extra: 1, query: { q: 1 } })).toEqual({
      ok: false,
      issues: [
        { field: "limit", constraint: "invalid_range", expected: "integer 1..20" },
        { field: "detail", constraint: "invalid_enum_value", allowed: ["name", "full"], actual: "some" },
        { field: "extra", constraint: "unknown_field" },
        { field: "query", constraint: "invalid_field_type", expected: "string" },
      ],
    });
    expect(decode({})).toEqual({ ok: false, issues: [{ field: "query", constraint: "missing_field" }] });
    // A key named like an Object.prototype member is unknown, not a field.
    expect(decode({ query: "x", toString: "y" })).toMatchObject({
      ok: false,
      issues: [{ field: "toString", constraint: "unknown_field" }],
    });
  });
});
