/**
 * The one reader for `mcp.json` text: JSON as Claude Code, Claude Desktop, Cursor and VS Code
 * write and accept it — a leading UTF-8 byte-order mark, `//` and `/* *\/` comments and trailing
 * commas — and nothing looser. The runtime has no npm dependencies (a design rule), so this is
 * hand-written; it is checked against `JSON.parse` with generated inputs (test/security/fuzz-jsonc.test.ts).
 * Objects it builds are prototype-free: a key such as `__proto__` or `constructor` is plain data.
 */

/** A syntax error at a line and column (both 1-based); `reason` never holds an invisible character raw. */
export class JsoncError extends SyntaxError {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    readonly offset: number,
  ) {
    super(`${reason} at line ${line}, column ${column}`);
    this.name = "JsoncError";
  }
}

/** What `readJsonc` found besides the value: a rewrite must not silently drop comments or the BOM. */
export interface JsoncText {
  readonly value: unknown;
  readonly bom: boolean;
  readonly comments: number;
}

/** Characters a message must not print raw: controls, format characters (zero-width, BOM, bidi), separators, unassigned. */
const INVISIBLE = /(?! )[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/gu;

/** `text` with every invisible or control character shown as `U+XXXX`, so a message shows what is really there. */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`);
}

/** One character for a message: `"x"`, or `U+FEFF` for one that cannot be seen. */
function showChar(c: string): string {
  const shown = visibleText(c);
  return shown === c ? JSON.stringify(c) : shown;
}

/** Deep enough for any config; a hostile file nested deeper is refused instead of overflowing the stack. */
const MAX_DEPTH = 512;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** Parses JSON with comments and trailing commas. Throws `JsoncError` naming the line and column. */
export function parseJsonc(text: string): unknown {
  return readJsonc(text).value;
}

/** `parseJsonc`, also saying whether the text had a byte-order mark and how many comments. */
export function readJsonc(text: string): JsoncText {
  const bom = text.charCodeAt(0) === 0xfeff;
  let i = bom ? 1 : 0;
  let comments = 0;

  const fail = (reason: string, at = i): never => {
    const lines = text.slice(0, at).split(/\r\n|\r|\n/);
    const last = lines[lines.length - 1] ?? "";
    throw new JsoncError(reason, lines.length, last.length + 1, at);
  };
  const unexpected = (): never =>
    i >= text.length ? fail("unexpected end of file") : fail(`unexpected character ${showChar(text[i] as string)}`);

  const skip = (): void => {
    for (;;) {
      const c = text[i];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") i++;
      else if (c === "/" && text[i + 1] === "/") {
        comments++;
        while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
      } else if (c === "/" && text[i + 1] === "*") {
        comments++;
        const end = text.indexOf("*/", i + 2);
        if (end === -1) fail("unterminated /* comment");
        i = end + 2;
      } else return;
    }
  };

  const string = (): string => {
    const start = i++;
    for (;;) {
      const c = text.charCodeAt(i);
      if (i >= text.length) fail("unterminated string", start);
      if (c === 0x22) break;
      if (c < 0x20) fail(`control character ${visibleText(text[i] as string)} in a string (write it as an escape)`);
      if (c === 0x5c) {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) fail("invalid escape in a string");
        i = ESCAPE.lastIndex;
      } else i++;
    }
    i++;
    // Checked above: JSON.parse of exactly this slice only decodes the escapes.
    return JSON.parse(text.slice(start, i)) as string;
  };

  const value = (depth: number): unknown => {
    if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH} levels`);
    skip();
    const c = text[i];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return string();
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (match) {
      i = NUMBER.lastIndex;
      return Number(match[0]);
    }
    return unexpected();
  };

  // After a member or element: `,` (possibly trailing) or the closing bracket.
  const next = (close: string, what: string): boolean => {
    skip();
    if (text[i] === ",") {
      i++;
      skip();
      if (text[i] !== close) return true;
    } else if (text[i] !== close) {
      if (i >= text.length) fail(`unexpected end of file (expected "," or "${close}" after ${what})`);
      fail(`expected "," or "${close}" after ${what}, found ${showChar(text[i] as string)}`);
    }
    i++;
    return false;
  };

  const object = (depth: number): { [key: string]: unknown } => {
    i++;
    const out: { [key: string]: unknown } = Object.create(null);
    skip();
    if (text[i] === "}") {
      i++;
      return out;
    }
    do {
      skip();
      if (text[i] !== '"') {
        if (i >= text.length) fail("unexpected end of file (expected a key)");
        fail(`expected a quoted key, found ${showChar(text[i] as string)}`);
      }
      const key = string();
      skip();
      if (text[i] !== ":") {
        if (i >= text.length) fail('unexpected end of file (expected ":")');
        fail(`expected ":" after key ${visibleText(JSON.stringify(key))}, found ${showChar(text[i] as string)}`);
      }
      i++;
      // Own data property even for "__proto__": the object has no prototype to set.
      out[key] = value(depth + 1);
    } while (next("}", "a member"));
    return out;
  };

  const array = (depth: number): unknown[] => {
    i++;
    const out: unknown[] = [];
    skip();
    if (text[i] === "]") {
      i++;
      return out;
    }
    do out.push(value(depth + 1));
    while (next("]", "an element"));
    return out;
  };

  const result = value(0);
  skip();
  if (i < text.length) unexpected();
  return { value: result, bom, comments };
}
