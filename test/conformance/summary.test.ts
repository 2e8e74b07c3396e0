import { describe, expect, it } from "vitest";
import { parseBaseline, parseSummary } from "./summary.js";

const STDOUT = `Running requirements 2025-11-25 (4 scenarios) in parallel...

=== SUITE SUMMARY ===

✓ initialize: 1 passed, 0 failed
✗ sse-retry: 2 passed, 0 failed, 1 warnings
✗ auth/dpop: 9 passed, 3 failed
✓ auth/client-credentials-jwt: 7 passed, 0 failed

Total: 19 passed, 3 failed, 1 warnings

Not scored for 2025-11-25: 2 scenario(s) run, 1 failing. These do not affect conformance.
  ✓ auth/client-credentials-jwt (extension)
  ✗ auth/dpop (extension)
`;

describe("conformance summary parsing", () => {
  it("reads each scenario line, warnings included, and marks unscored scenarios", () => {
    expect(parseSummary("2025-11-25", STDOUT)).toEqual([
      { run: "2025-11-25", scenario: "initialize", ok: true, checksPassed: 1, checksFailed: 0, warnings: 0, scoring: "scored" },
      { run: "2025-11-25", scenario: "sse-retry", ok: false, checksPassed: 2, checksFailed: 0, warnings: 1, scoring: "scored" },
      { run: "2025-11-25", scenario: "auth/dpop", ok: false, checksPassed: 9, checksFailed: 3, warnings: 0, scoring: "extension" },
      {
        run: "2025-11-25",
        scenario: "auth/client-credentials-jwt",
        ok: true,
        checksPassed: 7,
        checksFailed: 0,
        warnings: 0,
        scoring: "extension",
      },
    ]);
    expect(parseSummary("x", "no summary here")).toEqual([]);
  });

  it("reads the baseline and rejects an entry without a reason, naming the line", () => {
    const map = parseBaseline("# comment\n\n2026-07-28 auth/dpop not implemented: DPoP\n");
    expect([...map]).toEqual([["2026-07-28 auth/dpop", "not implemented: DPoP"]]);
    expect(() => parseBaseline("# c\n0.1.16 sse-retry\n")).toThrow(/line 2/);
  });
});
