import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Caller } from "./caller.js";
import { canonicalJson, checkDrift, compareCatalogues, fingerprintCatalogue, fingerprintTool, sha256Hex } from "./drift.js";

const echo = {
  name: "echo",
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
  annotations: { readOnlyHint: true },
};
const sum = { name: "sum", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: "number" } } } };

function listing(tools: readonly object[], ok = true): Caller {
  return {
    server: "demo",
    callTool: async () => ({ ok: true, result: { content: [] } }),
    listTools: async () =>
      ok
        ? { ok: true, tools: tools as never }
        : {
            ok: false,
            failure: {
              kind: "unavailable",
              message: "connection refused",
              recovery: { action: "retry_later" },
              tool: "tools/list",
              server: "demo",
              retryable: true,
            } as never,
          },
  };
}

describe("sha256Hex", () => {
  it("matches node:crypto for arbitrary unicode text, across block boundaries", () => {
    for (const text of ["", "abc", "a".repeat(55), "a".repeat(56), "a".repeat(64), "é🙂".repeat(40)]) {
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
      }),
    );
  });
});

describe("canonicalJson and fingerprints", () => {
  it("ignores key order, whitespace and undefined members", () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: undefined, w: "z" }] })).toBe('{"a":[{"w":"z","y":2}],"b":1}');
    expect(fingerprintTool({ ...echo, annotations: { readOnlyHint: true } })).toBe(
      fingerprintTool({
        annotations: { readOnlyHint: true },
        inputSchema: { properties: { message: { type: "string" } }, type: "object" },
        name: "echo",
      }),
    );
  });

  it("ignores title and description but not schemas or annotations", () => {
    const base = fingerprintTool(echo);
    expect(fingerprintTool({ ...echo, title: "Echo", description: "new words" } as typeof echo)).toBe(base);
    expect(fingerprintTool({ ...echo, annotations: { readOnlyHint: false } })).not.toBe(base);
    expect(fingerprintTool({ ...echo, inputSchema: { type: "object", properties: { message: { type: "number" } } } })).not.toBe(base);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("a catalogue's fingerprint does not depend on tool order", () => {
    expect(fingerprintCatalogue([echo, sum])).toEqual(fingerprintCatalogue([sum, echo]));
    expect(fingerprintCatalogue([echo]).fingerprint).not.toBe(fingerprintCatalogue([echo, sum]).fingerprint);
  });
});

describe("compareCatalogues", () => {
  it("reports added, removed and changed tools, sorted, honouring a subset", () => {
    const drift = compareCatalogues({ a: "1", b: "2", c: "3" }, { b: "2", c: "x", d: "4" });
    expect(drift).toEqual([
      { tool: "a", change: "removed", expected: "1" },
      { tool: "c", change: "changed", expected: "3", actual: "x" },
      { tool: "d", change: "added", actual: "4" },
    ]);
    expect(compareCatalogues({ a: "1", b: "2", c: "3" }, { b: "2", c: "x", d: "4" }, ["b", "c"])).toEqual([drift[1]]);
  });
});

describe("checkDrift", () => {
  const expected = { server: "demo", ...fingerprintCatalogue([echo, sum]) };

  it("no drift: ok, no warnings", async () => {
    const warnings: string[] = [];
    const report = await checkDrift(listing([sum, echo]), expected, { onWarning: (m) => warnings.push(m) });
    expect(report).toEqual({ ok: true, server: "demo", drift: [] });
    expect(warnings).toEqual([]);
  });

  it("warn policy: ok with one warning per drifted tool", async () => {
    const warnings: string[] = [];
    const changed = { ...sum, outputSchema: { type: "object" } };
    const report = await checkDrift(listing([changed, { name: "new", inputSchema: { type: "object" } }]), expected, {
      onWarning: (m) => warnings.push(m),
    });
    expect(report.ok).toBe(true);
    expect(report.drift.map((d) => `${d.tool}:${d.change}`)).toEqual(["echo:removed", "new:added", "sum:changed"]);
    expect(warnings).toHaveLength(3);
    expect(warnings[2]).toContain('server "demo": tool "sum" changed');
  });

  it("fail policy: not ok, message names the server and each tool", async () => {
    const report = await checkDrift(listing([echo]), expected, { policy: "fail" });
    expect(report.ok).toBe(false);
    expect(!report.ok && report.message).toBe('server "demo": live catalogue drifted from the lock: sum (removed)');
  });

  it("a listing failure is reported, not thrown", async () => {
    const report = await checkDrift(listing([], false), expected, { policy: "warn" });
    expect(report.ok).toBe(false);
    expect(!report.ok && report.message).toContain("cannot list tools: connection refused");
    expect(!report.ok && report.failure?.kind).toBe("unavailable");
  });
});
