/**
 * Identifier sanitizing and provider-safe names. Every name the generator prints goes through
 * here once (in the resolver), so emitters never meet a dash, a dot or a reserved word.
 */
import { createHash } from "node:crypto";

// Words that cannot be binding names in strict-mode ES modules, plus names that misbehave as
// object keys or shadow globals generated code relies on.
const RESERVED = new Set([
  "arguments",
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "eval",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "implements",
  "import",
  "in",
  "instanceof",
  "interface",
  "let",
  "new",
  "null",
  "package",
  "private",
  "protected",
  "public",
  "return",
  "static",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "yield",
  "undefined",
  "NaN",
  "Infinity",
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "toString",
  "valueOf",
]);

/**
 * Splits a name into ASCII words. Accents are stripped; other non-ASCII letters become `uXXXX`
 * words, so distinct unicode names stay distinct and the result is always ASCII.
 */
export function splitWords(name: string): string[] {
  const words: string[] = [];
  let word = "";
  const flush = () => {
    if (word !== "") words.push(word);
    word = "";
  };
  const text = name.normalize("NFKD").replace(/\p{M}/gu, "");
  let prev = "";
  for (const ch of text) {
    if (/[A-Za-z0-9]/.test(ch)) {
      // camelCase boundary: "getSum" -> get, Sum.
      if (/[A-Z]/.test(ch) && /[a-z0-9]/.test(prev)) flush();
      word += ch;
    } else if (/[\p{L}\p{N}]/u.test(ch)) {
      flush();
      words.push(`u${ch.codePointAt(0)!.toString(16)}`);
    } else {
      flush();
    }
    prev = ch;
  }
  flush();
  return words;
}

// "SUM" reads as a word, not as three capitals: GET_SUM -> getSum.
function normalizeWord(word: string): string {
  return word.length > 1 && word === word.toUpperCase() ? word.toLowerCase() : word;
}

function capitalize(word: string): string {
  const w = normalizeWord(word);
  return w.charAt(0).toUpperCase() + w.slice(1);
}

function finish(id: string): string {
  let out = id === "" ? "_" : id;
  if (/^[0-9]/.test(out)) out = `_${out}`;
  if (RESERVED.has(out)) out = `${out}_`;
  return out;
}

/** A safe camelCase identifier: `get-sum` → `getSum`, `delete` → `delete_`, `3d` → `_3d`. */
export function camelName(name: string): string {
  const words = splitWords(name);
  const [first = "", ...rest] = words;
  const w = normalizeWord(first);
  const head = w.charAt(0).toLowerCase() + w.slice(1);
  return finish(head + rest.map(capitalize).join(""));
}

/** A safe PascalCase identifier: `get-sum` → `GetSum`. */
export function pascalName(name: string): string {
  return finish(splitWords(name).map(capitalize).join(""));
}

const STEM_MAX = 100;

/** A folder or file stem: lower-case words joined by dashes, never empty, never `.`/`..`, at most 100 characters. */
export function fileStem(name: string): string {
  const stem = splitWords(name)
    .map((w) => w.toLowerCase())
    .join("-");
  if (stem === "") return "_";
  // A path segment is capped at 255 bytes (ENAMETOOLONG); long names keep a readable head plus a hash.
  return stem.length <= STEM_MAX ? stem : `${stem.slice(0, STEM_MAX - 9)}-${shortHash(name)}`;
}

/** True when `id` can be printed as a bare identifier. */
export function isSafeIdentifier(id: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(id) && !RESERVED.has(id);
}

/** A short, stable hash of `text` (8 hex digits of SHA-256). */
export function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}

const PROVIDER_MAX = 64;

/** `[A-Za-z0-9_-]` only, at most 64 characters, before uniqueness is applied. */
export function providerBase(toolset: string, tool: string): string {
  const raw = `${toolset}_${tool}`
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[^A-Za-z0-9_-]/g, "_");
  return raw === "" ? "_" : raw;
}

/**
 * Provider-safe names for a list of tool ids, in order. A name that is too long, or that more
 * than one tool would get, is cut and suffixed with a hash of the tool id, for every tool in the clash.
 */
export function providerNames(tools: readonly { readonly id: string; readonly toolset: string; readonly name: string }[]): string[] {
  const bases = tools.map((t) => providerBase(t.toolset, t.name));
  const counts = new Map<string, number>();
  for (const b of bases) counts.set(b, (counts.get(b) ?? 0) + 1);
  const out = tools.map((t, i) => {
    const base = bases[i]!;
    if (base.length <= PROVIDER_MAX && counts.get(base) === 1) return base;
    const suffix = `_${shortHash(t.id)}`;
    return base.slice(0, PROVIDER_MAX - suffix.length) + suffix;
  });
  // A hashed name could still equal another tool's plain name; hash again with a longer input.
  const seen = new Set<string>();
  return out.map((name, i) => {
    let n = name;
    let round = 1;
    while (seen.has(n)) {
      const suffix = `_${shortHash(`${tools[i]!.id}#${round++}`)}`;
      n = bases[i]!.slice(0, PROVIDER_MAX - suffix.length) + suffix;
    }
    seen.add(n);
    return n;
  });
}
