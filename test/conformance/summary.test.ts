import { describe, expect, it } from "vitest";
import {
  allowedClientErrors,
  judge,
  parseBaseline,
  parseExitFile,
  parseSummary,
  type ScenarioResult,
  unconditionalSkips,
} from "./summary.js";

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

  const clean: ScenarioResult = { run: "r", scenario: "s", ok: true, checksPassed: 3, checksFailed: 0, warnings: 0, scoring: "scored" };

  it("judges strictly: no checks, a non-zero client exit or no reported exit fail a scenario whose checks passed", () => {
    expect(judge(clean, { codes: [0], allowError: false })).toEqual(clean);
    expect(judge(clean, undefined)).toEqual(clean);
    expect(judge(clean, { codes: [0, 1], allowError: false })).toMatchObject({ ok: false, problem: "the client exited 1" });
    expect(judge(clean, { codes: [], allowError: false })).toMatchObject({ ok: false, problem: /reported no exit/ });
    expect(judge(clean, { codes: [1], allowError: true })).toEqual(clean);
    expect(judge({ ...clean, checksPassed: 0 }, { codes: [0], allowError: false })).toMatchObject({ ok: false, problem: "no checks ran" });
    const failing = { ...clean, ok: false, checksFailed: 1 };
    expect(judge(failing, { codes: [0], allowError: false })).toEqual(failing);
  });

  it("reads exit files, one code per line, and the harness's allowClientError scenarios", () => {
    expect(parseExitFile("0\n1\n\nx\n")).toEqual([0, 1, -1]);
    const bundle =
      "class A{constructor(){this.name=`auth/one`,this.allowClientError=!0}}class B{constructor(){this.name=`two`}}" +
      "class C{constructor(){this.name=`three`;this.x=1;this.allowClientError=!0}}";
    expect([...allowedClientErrors(bundle)]).toEqual(["auth/one", "three"]);
  });

  it("counts a zero-check scenario apart only when the harness source never tests it", () => {
    const bundle =
      "function sa(e,t,n,r,i){return{id:e,name:t,description:n,status:`SKIPPED`,timestamp:0}}" +
      "var A=class{constructor(){this.name=`never-tested`}async run(e){return[sa(`x`,`X`,`d`,`needs a rewrite`,[W])]}};" +
      "var B=class{constructor(){this.name=`tested`}async run(e){let t=[];if(e)return[sa(`x`,`X`,`d`,`no`,[W])];return t}};" +
      "var C=class{constructor(){this.name=`other-builder`}async run(e){return[ok(`x`,`X`,`d`,`r`,[W])]}};";
    const skips = unconditionalSkips(bundle);
    expect([...skips]).toEqual([["never-tested", "needs a rewrite"]]);
    const none = { ...clean, scenario: "never-tested", checksPassed: 0 };
    expect(judge(none, undefined, skips)).toMatchObject({ ok: false, withoutChecks: "needs a rewrite" });
    expect(judge({ ...none, scenario: "tested" }, undefined, skips)).toMatchObject({ ok: false, problem: "no checks ran" });
    expect(judge({ ...none, scenario: "tested" }, undefined, skips).withoutChecks).toBeUndefined();
  });
});
