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

/**
 * Member names that change how an object behaves when they are its own members: `then` makes it
 * thenable (`await client` would call the tool), `toJSON` takes over `JSON.stringify`, `valueOf` and
 * `toString` take over coercion, `inspect` older `util.inspect` and loggers, `asymmetricMatch` test
 * equality, and the `Object.prototype` names shadow what libraries call on any object. Symbol-keyed
 * protocols (`Symbol.iterator`, ...) cannot be reached: a generated member is always a string key.
 */
export const RESERVED_MEMBERS: ReadonlySet<string> = new Set([
  "then",
  "catch",
  "finally",
  "toJSON",
  "inspect",
  "asymmetricMatch",
  "prototype",
  "__proto__",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
  "constructor",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
]);

/**
 * The member name for a generated identifier on an object users hold (client methods, request
 * builders, handler and caller maps): `then` → `then_`, so the object keeps its contract.
 */
export function memberName(id: string): string {
  return RESERVED_MEMBERS.has(id) ? `${id}_` : id;
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

/** A provider-safe spelling of `name` and whether characters were lost on the way. */
export interface ProviderSpelling {
  /** `[A-Za-z0-9_-]*`: accents stripped, each run of other characters one `_`. */
  readonly safe: string;
  /** True when more than case-preserving separator mapping happened (accents, emoji, CJK, control characters). */
  readonly lossy: boolean;
}

/**
 * Transliterates `name` for providers: NFKD, drop combining marks, map each run of characters
 * outside `[A-Za-z0-9_-]` to one `_`. ASCII punctuation and spaces are separators; anything else
 * that had to go makes the spelling lossy, and lossy names get a hash suffix (`providerSafe`).
 */
export function providerSpelling(name: string): ProviderSpelling {
  const stripped = name.normalize("NFKD").replace(/\p{M}/gu, "");
  const lossy = stripped !== name || /[^\x20-\x7e]/.test(stripped);
  return { safe: stripped.replace(/[^A-Za-z0-9_-]+/g, "_"), lossy };
}

function hashed(head: string, seed: string, digits: number): string {
  const suffix = `_${createHash("sha256").update(seed).digest("hex").slice(0, digits)}`;
  return head.slice(0, PROVIDER_MAX - suffix.length) + suffix;
}

interface ProviderBase {
  /** The name before uniqueness is applied. */
  readonly name: string;
  /** The readable part a clash suffix is added to. */
  readonly head: string;
  /** True when `name` is exactly `<toolset>_<tool>`. */
  readonly exact: boolean;
}

function base(toolset: string, tool: string, seed: string): ProviderBase {
  const raw = `${toolset}_${tool}`;
  const { safe, lossy } = providerSpelling(raw);
  const head = lossy ? safe.replace(/_+$/, "") : safe;
  if (lossy) return { name: hashed(head, seed, 6), head, exact: false };
  if (safe.length > PROVIDER_MAX) return { name: hashed(safe, seed, 8), head, exact: false };
  return { name: safe, head, exact: safe === raw };
}

/** `[A-Za-z0-9_-]` only, at most 64 characters, before uniqueness is applied (`seed`, the tool id, feeds the hash of lossy names). */
export function providerBase(toolset: string, tool: string, seed = `${toolset}.${tool}`): string {
  return base(toolset, tool, seed).name;
}

/**
 * Provider-safe names for a list of tools, in order, unique and independent of the order. A name
 * that lost characters or is too long carries a hash of the tool id; when several tools would get
 * one name, each is suffixed with a hash of its id, except a tool whose `<toolset>_<tool>` is that
 * name exactly: it keeps it, so a real name is never given to another tool.
 */
export function providerNames(tools: readonly { readonly id: string; readonly toolset: string; readonly name: string }[]): string[] {
  const bases = tools.map((t) => base(t.toolset, t.name, t.id));
  const names = bases.map((b) => b.name);
  const exact = bases.map((b) => b.exact);
  // Visited in id order, so the rare rehash of a hash clash does not depend on declaration order.
  const order = tools.map((_, i) => i).sort((a, b) => (tools[a]!.id < tools[b]!.id ? -1 : tools[a]!.id > tools[b]!.id ? 1 : 0));
  for (let round = 0; round < 100; round++) {
    const claims = new Map<string, number[]>();
    for (const i of order) claims.set(names[i]!, [...(claims.get(names[i]!) ?? []), i]);
    let changed = false;
    for (const claimants of claims.values()) {
      if (claimants.length < 2) continue;
      const owners = claimants.filter((i) => exact[i]);
      const keeper = owners.length === 1 ? owners[0] : undefined;
      for (const i of claimants) {
        if (i === keeper) continue;
        names[i] = hashed(bases[i]!.head, round === 0 ? tools[i]!.id : `${tools[i]!.id}#${round}`, 8);
        exact[i] = false;
        changed = true;
      }
    }
    if (!changed) return names;
  }
  throw new Error("cannot find unique provider-safe names");
}
