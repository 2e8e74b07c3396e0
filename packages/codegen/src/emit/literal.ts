/**
 * The one place text from a config, a lock, a server or a user becomes TypeScript source. Every
 * writer (`init`, `add`, the `gen` plugins) prints such text only through these helpers:
 *
 * - `stringLiteral`: a string literal whose value is exactly the text (line separators escaped too,
 *   so no parser or tool treats U+2028/U+2029 as the end of a line);
 * - `printKey` / `printLiteral`: object keys and JSON values (`__proto__` as a computed key);
 * - `docText` / `docName`: text inside a `/** ... *\/` comment (`*\/` can never close it);
 * - `lineCommentText`: text after `//` (no line terminator can end the comment early).
 *
 * What `init`, `add` and the design loader refuse in a name is one rule, `nameProblem` in the DSL
 * (applied to `mcp.json` names by `checkConfigName`, init/snippets.ts).
 *
 * Identifiers never come from text directly: `names.ts` maps names to `[A-Za-z0-9_]` identifiers.
 */
import { isSafeIdentifier } from "./names.js";

/** Every character ECMAScript treats as a line terminator. */
const LINE_TERMINATORS = /\r\n|[\n\r\u2028\u2029]/g;

/**
 * A string literal whose value is `text`, in double (default) or single quotes. JSON escaping plus
 * `\u2028`/`\u2029`: valid in string literals since ES2019, but older parsers and tools end a line there.
 */
export function stringLiteral(text: string, quote: '"' | "'" = '"'): string {
  const json = JSON.stringify(String(text)).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  if (quote === '"') return json;
  // JSON escapes every `"` as `\"` (the backslash right before it is always the escape); `'` needs one.
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** A property key as printed in an object literal. */
export function printKey(key: string): string {
  if (key === "__proto__") return '["__proto__"]';
  return isSafeIdentifier(key) || key === "constructor" ? key : stringLiteral(key);
}

/** Prints a JSON value as a literal, indented by `indent` spaces after the first line. */
export function printLiteral(value: unknown, indent = 0): string {
  const pad = " ".repeat(indent + 2);
  const end = " ".repeat(indent);
  if (typeof value === "string") return stringLiteral(value);
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const flat = value.every((v) => v === null || typeof v !== "object");
    if (flat) {
      const one = `[${value.map((v) => printLiteral(v)).join(", ")}]`;
      if (one.length <= 100) return one;
    }
    return `[\n${value.map((v) => `${pad}${printLiteral(v, indent + 2)},`).join("\n")}\n${end}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${pad}${printKey(k)}: ${printLiteral(v, indent + 2)},`).join("\n")}\n${end}}`;
}

/**
 * Text for the inside of a `/** ... *\/` comment: a `*` followed by `/` gets a backslash between
 * them, so nothing can close the comment, and each line break (any ECMAScript line terminator)
 * continues the comment on a ` * ` line.
 */
export function docText(text: string): string {
  return String(text).replace(/\*\//g, "*\\/").replace(LINE_TERMINATORS, "\n * ");
}

/** A quoted name for JSDoc: `"my-tool"`, with `*\/` and line breaks made harmless. */
export function docName(name: string): string {
  return docText(stringLiteral(name));
}

/**
 * Text for the rest of a `//` line comment: every line terminator (`\n`, `\r`, U+2028, U+2029) is
 * written as its escape, since any of them would end the comment and turn what follows into code.
 */
export function lineCommentText(text: string): string {
  return String(text).replace(/[\n\r\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
