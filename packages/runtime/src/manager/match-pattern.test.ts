import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchesPattern } from "./tool-registry.js";

/** The reference: the RegExp the manager used to build (exponential on hostile input, so small inputs only). */
const reference = (name: string, pattern: string) =>
  new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join("[^]*")}$`,
  ).test(name);

describe("matchesPattern: *-globs for allowTools/denyTools", () => {
  it("agrees with the RegExp reference on generated names and patterns", () => {
    const chars = fc.constantFrom("a", "b", "_", ".", "-", "(", "*");
    const name = fc
      .array(
        chars.filter((c) => c !== "*"),
        { maxLength: 10 },
      )
      .map((cs) => cs.join(""));
    const pattern = fc.array(chars, { maxLength: 8 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(name, pattern, (n, p) => {
        expect(matchesPattern(n, p)).toBe(reference(n, p));
      }),
      { numRuns: 5000 },
    );
  });

  it("answers at once for a hostile server tool name (the RegExp ran for minutes)", { timeout: 30_000 }, () => {
    expect(matchesPattern("a".repeat(100_000), "*a*a*a*a*a*a*a*b")).toBe(false);
    expect(matchesPattern(`${"a".repeat(100_000)}b`, "*a*a*a*a*a*a*a*b")).toBe(true);
    expect(matchesPattern("read_file", "read_*")).toBe(true);
    expect(matchesPattern("aXa", "a*a*a")).toBe(false);
  });
});
