import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandTemplate, matchTemplate, matchTemplateCounted } from "./uri-template.js";

/**
 * The reference: the matcher as it was, a backtracking JS RegExp with the same rules (lazy "+"/"#",
 * expressions all-or-nothing). Exponential or quadratic on hostile input, so only run on small ones.
 */
function referenceMatch(template: string, uri: string): { [name: string]: string } | undefined {
  const escapeText = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const prefix: { [op: string]: string } = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" };
  const separator: { [op: string]: string } = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&" };
  const names: string[] = [];
  let pattern = "^";
  for (const piece of template.split(/(\{[^}]*\})/)) {
    if (!piece.startsWith("{")) {
      pattern += escapeText(piece);
      continue;
    }
    const body = piece.slice(1, -1);
    const op = "+#./;?&".includes(body[0] as string) ? (body[0] as string) : "";
    const named = op === ";" || op === "?" || op === "&";
    const value = op === "+" || op === "#" ? "[^?#]*?" : named ? "[^&;#]*" : "[^/?#.,&;]*";
    const items = body
      .slice(op.length)
      .split(",")
      .map((name) => {
        names.push(name);
        return named ? `${escapeText(name)}=(${value})` : `(${value})`;
      });
    pattern += `(?:${escapeText(prefix[op] as string)}${items.join(escapeText(separator[op] as string))})?`;
  }
  const m = new RegExp(`${pattern}$`).exec(uri);
  if (!m) return undefined;
  const out: { [name: string]: string } = Object.create(null);
  for (const [i, name] of names.entries()) {
    const raw = m[i + 1];
    if (raw === undefined) continue;
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  return out;
}

const OPS = ["", "+", "#", ".", "/", ";", "?", "&"] as const;
const expression = fc
  .record({ op: fc.constantFrom(...OPS), names: fc.uniqueArray(fc.constantFrom("a", "b", "c"), { minLength: 1, maxLength: 3 }) })
  .map(({ op, names }) => `{${op}${names.join(",")}}`);
// Literal text made of the characters the operators treat specially, so boundaries are contested.
const LITERAL_CHARS = ["x", "y", "/", ".", ",", ";", "?", "&", "=", "#", "a", ":"];
const literal = fc.array(fc.constantFrom(...LITERAL_CHARS), { minLength: 1, maxLength: 3 }).map((cs) => cs.join(""));
const template = fc.array(fc.oneof(expression, literal), { minLength: 1, maxLength: 5 }).map((parts) => parts.join(""));
// URIs from the same characters plus escapes (valid and malformed), or an expansion of the template.
const uriChars = fc
  .array(fc.constantFrom(...LITERAL_CHARS, "b", "c", "%41", "%zz", "%2F", "é"), { maxLength: 14 })
  .map((cs) => cs.join(""));
const values = fc.record(
  { a: fc.string({ maxLength: 4 }), b: fc.string({ maxLength: 4 }), c: fc.string({ maxLength: 4 }) },
  { requiredKeys: [] },
);

describe("matchTemplate: linear matcher, same answers as the backtracking reference", () => {
  it("agrees with the reference on generated templates and URIs", () => {
    fc.assert(
      fc.property(template, uriChars, (t, uri) => {
        expect(matchTemplate(t, uri)).toEqual(referenceMatch(t, uri));
      }),
      { numRuns: 3000 },
    );
  });

  it("agrees with the reference on expansions of the template", () => {
    fc.assert(
      fc.property(template, values, fc.constantFrom("", "/x", "?q", "#f"), (t, v, tail) => {
        const uri = expandTemplate(t, v);
        expect(matchTemplate(t, uri)).toEqual(referenceMatch(t, uri));
        expect(matchTemplate(t, uri + tail)).toEqual(referenceMatch(t, uri + tail));
      }),
      { numRuns: 2000 },
    );
  });

  it("takes steps linear in the URI's length, for every template (counted, not timed)", () => {
    // Hostile URIs: long runs of one character that several adjacent expressions could each take.
    const hostile = fc.tuple(
      fc.constantFrom("a", "/", ".", ",", "=", "&", ";", "x"),
      fc.integer({ min: 1, max: 3000 }),
      fc.constantFrom("", "?", "#", "!"),
    );
    fc.assert(
      fc.property(template, hostile, (t, [ch, n, tail]) => {
        const uri = ch.repeat(n) + tail;
        const { steps, size } = matchTemplateCounted(t, uri);
        // Each position visits each state (instruction × one bit) at most once while adding and once while stepping.
        expect(steps).toBeLessThanOrEqual(4 * size * (uri.length + 1));
      }),
      { numRuns: 300 },
    );
  });

  it("matches megabyte-long worst cases (the backtracking regex would run for about 20 minutes per URI)", { timeout: 60_000 }, () => {
    const size = 1024 * 1024;
    // {+a}/{+b} with no "/" at all: a backtracking regex tries every split point for every start.
    expect(matchTemplate("{+a}/{+b}", "x".repeat(size))).toBeUndefined();
    expect(matchTemplate("{+a}/{+b}/{+c}", `${"/".repeat(size)}?`)).toBeUndefined();
    expect(matchTemplate("{a}{b}{c}", `${"y".repeat(size)}?`)).toBeUndefined();
    const long = matchTemplate("file:///{+path}/{+rest}", `file:///${"d/".repeat(size / 2)}end`);
    expect(long?.path).toBe("d");
    expect(long?.rest?.length).toBe(size - 2 + 3);
    const { steps, size: programSize } = matchTemplateCounted("{+a}/{+b}", "x".repeat(size));
    expect(steps).toBeLessThanOrEqual(4 * programSize * (size + 1));
  });

  it("keeps the documented choices: shortest reserved value, all-or-nothing expressions", () => {
    expect(matchTemplate("{+a}/{+b}", "x/y/z")).toEqual({ a: "x", b: "y/z" });
    expect(matchTemplate("{+a}/x{b}", "p/xq/xr")).toEqual({ a: "p/xq", b: "r" });
    expect(matchTemplate("{a}{b}", "xy")).toEqual({ a: "xy" });
    expect(matchTemplate("s{?q,l}", "s?q=1&l=2")).toEqual({ q: "1", l: "2" });
    expect(matchTemplate("s{?q,l}", "s")).toEqual({});
  });
});
