/**
 * Field-level differences between two versions of a listed entry (a tool, the server's
 * instructions): which field changed, with the old and the new text, so a drift report can show
 * a reviewer exactly what a server edited after it was pinned.
 */
import { canonicalJson, pinnedPart } from "./fingerprint.js";
import { BIDI, INVISIBLE } from "./lint-rules.js";

/** One changed field. `before`/`after` are the text (strings as they are, other values as canonical JSON); absent = not there. */
export interface FieldChange {
  /** Path of the field: `description`, `inputSchema.properties.path.description`, `annotations.readOnlyHint`, `instructions`. */
  readonly field: string;
  readonly before?: string;
  readonly after?: string;
}

const MAX_DEPTH = 32;
const SIMPLE_KEY = /^[A-Za-z_$][\w$-]*$/;

function isPlainObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : canonicalJson(value);
}

function join(path: string, key: string): string {
  const part = SIMPLE_KEY.test(key) ? key : JSON.stringify(key);
  return path === "" ? part : SIMPLE_KEY.test(key) ? `${path}.${part}` : `${path}[${part}]`;
}

/**
 * Lists the leaves that differ between `before` and `after` (objects by key, equal-length arrays
 * by index, anything else as one value), sorted by path; at most `limit` changes (default 100).
 * Entries are compared on their pinned part, so `icons` never counts.
 */
export function diffEntries(before: unknown, after: unknown, limit = 100): FieldChange[] {
  const out: FieldChange[] = [];
  const walk = (a: unknown, b: unknown, path: string, depth: number): void => {
    if (out.length >= limit) return;
    if (depth < MAX_DEPTH && isPlainObject(a) && isPlainObject(b)) {
      for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
        walk(Object.hasOwn(a, key) ? a[key] : undefined, Object.hasOwn(b, key) ? b[key] : undefined, join(path, key), depth + 1);
      }
      return;
    }
    if (depth < MAX_DEPTH && Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      for (let i = 0; i < a.length; i++) walk(a[i], b[i], `${path}[${i}]`, depth + 1);
      return;
    }
    const x = textOf(a);
    const y = textOf(b);
    if (x === y) return;
    out.push({
      field: path === "" ? "(entry)" : path,
      ...(x === undefined ? {} : { before: x }),
      ...(y === undefined ? {} : { after: y }),
    });
  };
  walk(isPlainObject(before) ? pinnedPart(before) : before, isPlainObject(after) ? pinnedPart(after) : after, "", 0);
  return out;
}

/** Shortens hostile or long text for one-line messages: JSON-quoted (so control characters show), at most `max` characters. */
export function quoteExcerpt(text: string | undefined, max = 160): string {
  if (text === undefined) return "(absent)";
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  const esc = (c: string) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`;
  return JSON.stringify(cut)
    .replace(INVISIBLE, esc)
    .replace(BIDI, esc)
    .replace(/[\u2028\u2029]/g, esc);
}

/** One line per change: `description: "old" -> "new"`. */
export function describeFieldChange(change: FieldChange): string {
  return `${change.field}: ${quoteExcerpt(change.before)} -> ${quoteExcerpt(change.after)}`;
}
