import { describe, expect, it } from "vitest";
import { countTokens, TOKEN_ENCODING } from "./count.js";

describe("countTokens", () => {
  it("counts o200k_base tokens, the same each time", () => {
    expect(TOKEN_ENCODING).toBe("o200k_base");
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    const schema = JSON.stringify({ type: "object", properties: { path: { type: "string" } }, required: ["path"] });
    expect(countTokens(schema)).toBe(countTokens(schema));
    expect(countTokens(schema)).toBeGreaterThan(5);
    expect(countTokens(schema)).toBeLessThan(schema.length);
  });
});
