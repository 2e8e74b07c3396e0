/**
 * The one mcp.json reader (`parseJsonc`) checked with generated inputs: it agrees with `JSON.parse`
 * on every valid JSON text; a text decorated with a BOM, comments, trailing commas and CRLF line
 * breaks reads as the same value as its plain form and as itself with the comments stripped; any
 * other text is refused with a `JsoncError` at a real line and column whose message shows no
 * invisible character raw; the maps it builds have no prototype.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsoncError, parseJsonc, visibleText } from "../../packages/runtime/src/manager/jsonc.js";

const RUNS = 1_000;

/** Characters a message must never carry raw. */
const RAW_INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00a0\u3164\u115f]/u;

/** Strings that look like the syntax the reader must not be fooled by inside a string. */
const trickyString = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("//", "/*", "*/", "// not a comment", '"', "\\", "\uFEFF", ",}", ",]", "\r\n"),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    trickyString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(trickyString, fc.constantFrom("__proto__", "constructor", "toString")), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Where the decorated text may put a comment or extra space: between any two tokens. */
type Gap =
  | { readonly kind: "none" }
  | { readonly kind: "space"; readonly text: string }
  | { readonly kind: "line" | "block"; readonly text: string };
const gap: fc.Arbitrary<Gap> = fc.oneof(
  fc.constant({ kind: "none" as const }),
  fc.constantFrom(" ", "\n", "\r\n", "\t", "  \r\n  ").map((text) => ({ kind: "space" as const, text })),
  // A line comment runs to the line's end; its text holds anything but a line break.
  fc.string({ maxLength: 12 }).map((t) => ({ kind: "line" as const, text: t.replace(/[\r\n]/g, " ") })),
  // A block comment holds anything but its closing `*/`, line breaks and quotes included.
  fc.string({ maxLength: 12 }).map((t) => ({ kind: "block" as const, text: t.replace(/\*\//g, "* /") })),
);

/**
 * Renders `value` as JSON, with a gap from `gaps` between tokens and, where `trailing` says so, a
 * trailing comma in a non-empty container. `comments: false` renders each comment as one space.
 */
function render(value: unknown, gaps: readonly Gap[], trailing: readonly boolean[], comments: boolean): string {
  let g = 0;
  let t = 0;
  const space = (): string => {
    const x = gaps[g++ % gaps.length] ?? { kind: "none" };
    if (x.kind === "none") return "";
    if (x.kind === "space") return x.text;
    if (!comments) return x.kind === "line" ? "\n" : " ";
    return x.kind === "line" ? `//${x.text}\r\n` : `/*${x.text}*/`;
  };
  const go = (v: unknown): string => {
    if (Array.isArray(v)) {
      if (v.length === 0) return `[${space()}]`;
      const comma = trailing[t++ % trailing.length] ? `,${space()}` : "";
      return `[${v.map((e) => `${space()}${go(e)}${space()}`).join(",")}${comma}]`;
    }
    if (typeof v === "object" && v !== null) {
      const entries = Object.entries(v);
      if (entries.length === 0) return `{${space()}}`;
      const comma = trailing[t++ % trailing.length] ? `,${space()}` : "";
      return `{${entries.map(([k, e]) => `${space()}${JSON.stringify(k)}${space()}:${space()}${go(e)}${space()}`).join(",")}${comma}}`;
    }
    return JSON.stringify(v);
  };
  return `${space()}${go(value)}${space()}`;
}

/** Throws unless every object in `value` is prototype-free. */
function assertPrototypeFree(value: unknown): void {
  if (Array.isArray(value)) value.forEach(assertPrototypeFree);
  else if (typeof value === "object" && value !== null) {
    expect(Object.getPrototypeOf(value)).toBeNull();
    Object.values(value).forEach(assertPrototypeFree);
  }
}

/** `parseJsonc`'s outcome: the value as JSON, or the error (which must be a JsoncError). */
function outcome(text: string): { ok: true; json: string } | { ok: false; error: JsoncError } {
  try {
    return { ok: true, json: JSON.stringify(parseJsonc(text)) };
  } catch (error) {
    if (!(error instanceof JsoncError)) throw error;
    return { ok: false, error };
  }
}

function checkError(text: string, error: JsoncError): void {
  const lines = text.split(/\r\n|\r|\n/);
  expect(error.line).toBeGreaterThanOrEqual(1);
  expect(error.line).toBeLessThanOrEqual(lines.length);
  expect(error.column).toBeGreaterThanOrEqual(1);
  expect(error.column).toBeLessThanOrEqual((lines[error.line - 1] ?? "").length + 1);
  expect(error.message).not.toMatch(RAW_INVISIBLE);
}

describe("the mcp.json reader (parseJsonc)", () => {
  it("agrees with JSON.parse on valid JSON, and builds prototype-free maps", () => {
    fc.assert(
      fc.property(jsonValue, fc.constantFrom(undefined, 2, "\t"), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const read = parseJsonc(text);
        expect(JSON.stringify(read)).toBe(JSON.stringify(JSON.parse(text)));
        assertPrototypeFree(read);
      }),
      { numRuns: RUNS },
    );
  });

  it("reads BOM, comments, trailing commas and CRLF as the plain value, and as itself with comments stripped", () => {
    fc.assert(
      fc.property(
        jsonValue,
        fc.array(gap, { minLength: 1, maxLength: 16 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (value, gaps, trailing, bom) => {
          const decorated = (bom ? "\uFEFF" : "") + render(value, gaps, trailing, true);
          const stripped = render(value, gaps, trailing, false);
          const expected = JSON.stringify(JSON.parse(JSON.stringify(value)));
          expect(JSON.stringify(parseJsonc(decorated))).toBe(expected);
          expect(JSON.stringify(parseJsonc(stripped))).toBe(expected);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("any text: the same value as JSON.parse when that accepts it, else a JsoncError at a real line and column", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 40 }),
      // Valid JSON with one character removed, replaced or inserted: the near misses an editor leaves.
      fc
        .tuple(jsonValue, fc.nat(), fc.constantFrom("", ",", ":", "/", "*", "\uFEFF", "\u200B", "\u00A0", "'", "\n", "\u0000", "}", "]"))
        .map(([v, at, c]) => {
          const s = JSON.stringify(v, null, 1);
          const i = at % (s.length + 1);
          return s.slice(0, i) + c + s.slice(i + (c === "" ? 1 : at % 2));
        }),
    );
    fc.assert(
      fc.property(text, (t) => {
        let strict: string | undefined;
        try {
          strict = JSON.stringify(JSON.parse(t));
        } catch {
          strict = undefined;
        }
        const got = outcome(t);
        if (strict !== undefined) expect(got).toEqual({ ok: true, json: strict });
        if (!got.ok) checkError(t, got.error);
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it("a misplaced BOM or zero-width space is refused, located, and shown as U+XXXX", () => {
    const cases: [string, number, number, string][] = [
      ['{\n  "mcpServers": \uFEFF{}\n}', 2, 17, "U+FEFF"],
      ['{\r\n  "a": 1,\r\n\u200B "b": 2\r\n}', 3, 1, "U+200B"],
      ['{"a":\u00A01}', 1, 6, "U+00A0"],
      ['{"a": "x\u0001"}', 1, 9, "U+0001"],
    ];
    for (const [text, line, column, shown] of cases) {
      const got = outcome(text);
      expect(got.ok).toBe(false);
      if (got.ok) continue;
      expect([got.error.line, got.error.column]).toEqual([line, column]);
      expect(got.error.message).toContain(shown);
      checkError(text, got.error);
    }
    expect(visibleText("a\u200Bb\uFEFF c")).toBe("aU+200BbU+FEFF c");
  });

  it("refuses nesting far past any config without overflowing the stack", () => {
    for (const text of ["[".repeat(200_000), `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`]) {
      const got = outcome(text);
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.error.reason).toMatch(/nested deeper than/);
    }
  });

  it("an unterminated comment or string names where it starts", () => {
    const comment = outcome('{\n  /* open\n  "a": 1\n}');
    expect(comment.ok || [comment.error.line, comment.error.reason]).toEqual([2, "unterminated /* comment"]);
    const string = outcome('{\n  "a": "open\n}');
    expect(string.ok).toBe(false);
  });
});
