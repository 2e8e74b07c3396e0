/**
 * Fuzzing the codegen name sanitizer with fast-check: any tool or toolset name (path tricks,
 * prototype keys, reserved words, unicode, emoji, 200+ characters) gives a valid identifier, a
 * file stem that cannot leave its folder, and provider-safe names that are valid and unique.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { camelName, fileStem, isSafeIdentifier, pascalName, providerNames } from "../../packages/codegen/src/emit/names.js";

const RUNS = 3_000;

const hostile = fc.constantFrom(
  "../x",
  "..",
  ".",
  "/etc/passwd",
  "C:\\Windows\\system32",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "delete",
  "await",
  "default",
  "export",
  "enum",
  "eval",
  "arguments",
  "undefined",
  "NaN",
  "Infinity",
  "x".repeat(200),
  "工具-名",
  "😀🔥",
  "🧪test",
  "ÄÖÜ-äöü",
  "Ǆ",
  "\u0000nul",
  "a\u200Bb",
  "",
  " ",
  "-",
  "123",
  "$",
  "get-sum",
  "get_sum",
  "getSum",
  "GET_SUM",
);
const name = fc.oneof(
  hostile,
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 250 }),
  fc.constantFrom("x".repeat(300), "工".repeat(100), "🔥".repeat(80)),
);

describe("name sanitizer fuzzing", () => {
  it("camelName and pascalName always give safe, ASCII identifiers", () => {
    fc.assert(
      fc.property(name, (n) => {
        for (const id of [camelName(n), pascalName(n)]) {
          expect(isSafeIdentifier(id)).toBe(true);
          expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
          // Usable as a property name without touching the prototype chain.
          expect(Object.hasOwn(Object.prototype, id)).toBe(false);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("fileStem is one safe path segment: never empty, never . or .., no separators", () => {
    fc.assert(
      fc.property(name, (n) => {
        const stem = fileStem(n);
        expect(stem).toMatch(/^[a-z0-9_][a-z0-9_-]*$/i);
        expect(stem === "." || stem === "..").toBe(false);
        expect(stem).not.toMatch(/[/\\:\0]/);
        // A path segment must fit the 255-byte file-name limit, whatever the name's length.
        expect(stem.length).toBeLessThanOrEqual(100);
      }),
      { numRuns: RUNS },
    );
  });

  it("sanitizing is deterministic", () => {
    fc.assert(
      fc.property(name, (n) => {
        expect(camelName(n)).toBe(camelName(n));
        expect(fileStem(n)).toBe(fileStem(n));
      }),
      { numRuns: RUNS },
    );
  });

  it("providerNames: [A-Za-z0-9_-]{1,64}, unique for distinct tool ids, stable", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, name), { maxLength: 40, selector: ([t, n]) => `${t}.${n}` }), (pairs) => {
        const tools = pairs.map(([toolset, tool]) => ({ id: `${toolset}.${tool}`, toolset, name: tool }));
        const names = providerNames(tools);
        expect(names).toHaveLength(tools.length);
        for (const p of names) expect(p).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(new Set(names).size).toBe(names.length);
        expect(providerNames(tools)).toEqual(names);
      }),
      { numRuns: RUNS },
    );
  });

  it("providerNames stays unique when many names collide after sanitizing", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[-_. /]{0,6}$/), { minLength: 1, maxLength: 60 }), (tails) => {
        const tools = tails.map((t) => ({ id: `ts.a${t}`, toolset: "ts", name: `a${t}` }));
        const names = providerNames(tools);
        expect(new Set(names).size).toBe(names.length);
      }),
      { numRuns: 500 },
    );
  });
});
