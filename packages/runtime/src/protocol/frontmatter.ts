/**
 * The YAML frontmatter of a `SKILL.md` (Agent Skills), parsed so a host can compare it field by
 * field with the skill's entry (SEP-2640). Hand-written because the runtime has no dependencies:
 * it reads the subset skill frontmatter uses (block mappings nested by indentation, block
 * sequences, plain / single-quoted / double-quoted scalars, `|` and `>` block scalars, flow
 * sequences of scalars, YAML 1.2 core-schema booleans, numbers and null, `#` comments). Anything
 * else (anchors, aliases, tags, flow mappings, several documents) is refused with the line, never
 * guessed: a frontmatter that cannot be read cannot be verified, and an unverified skill must not load.
 */

/** A parsed frontmatter, or why it could not be read. */
export type FrontmatterResult =
  | { readonly ok: true; readonly value: { readonly [key: string]: unknown }; readonly body: string }
  | { readonly ok: false; readonly message: string };

interface Line {
  readonly no: number;
  readonly indent: number;
  readonly text: string;
}

class YamlError extends Error {}

const fail = (line: Line | undefined, what: string): never => {
  throw new YamlError(line ? `line ${line.no}: ${what}` : what);
};

/** Splits `---` frontmatter from the body; the frontmatter must open the document. */
export function parseFrontmatter(document: string): FrontmatterResult {
  // Editors on Windows may save a byte-order mark, which would hide the opening ---.
  const text = document.startsWith("\uFEFF") ? document.slice(1) : document;
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { ok: false, message: "SKILL.md does not begin with YAML frontmatter (---)" };
  // YAML ends a document with --- (a new one) or ... (end marker); both close the frontmatter.
  const end = lines.findIndex((l, i) => i > 0 && (l.trimEnd() === "---" || l.trimEnd() === "..."));
  if (end < 0) return { ok: false, message: "the frontmatter has no closing ---" };
  try {
    // 2: the first frontmatter line is line 2 of the file, so errors name the line an author sees.
    const value = parseBlock(lines.slice(1, end), 2);
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, message: "the frontmatter is not a mapping" };
    return { ok: true, value: value as { [key: string]: unknown }, body: lines.slice(end + 1).join("\n") };
  } catch (error) {
    if (error instanceof YamlError) return { ok: false, message: `frontmatter ${error.message}` };
    throw error; // not a YAML problem: a bug here, which must not pass as a bad frontmatter
  }
}

/** Parses YAML lines (numbered from `firstNo`) holding one block node. */
function parseBlock(raw: readonly string[], firstNo: number): unknown {
  const lines: Line[] = [];
  for (const [i, text] of raw.entries()) {
    if (/^\s*(#.*)?$/.test(text)) continue;
    // YAML forbids tabs in indentation; guessing their width would change the structure.
    if (text.includes("\t") && /^\s*\t/.test(text)) fail({ no: firstNo + i, indent: 0, text }, "tabs cannot indent YAML");
    const indent = text.length - text.trimStart().length;
    lines.push({ no: firstNo + i, indent, text: text.slice(indent) });
  }
  if (lines.length === 0) return null;
  const state: Cursor = { at: 0, raw, firstNo, lines };
  const value = node(lines, state, (lines[0] as Line).indent);
  if (state.at < lines.length) fail(lines[state.at], "unexpected indentation");
  return value;
}

/** Where parsing is: an index into the significant lines, plus the raw source for block scalars. */
interface Cursor {
  at: number;
  readonly raw: readonly string[];
  readonly firstNo: number;
  readonly lines: readonly Line[];
}

function node(lines: readonly Line[], c: Cursor, indent: number): unknown {
  const first = lines[c.at] as Line;
  return first.text.startsWith("- ") || first.text === "-" ? sequence(lines, c, indent) : mapping(lines, c, indent);
}

function sequence(lines: readonly Line[], c: Cursor, indent: number): unknown[] {
  const out: unknown[] = [];
  while (c.at < lines.length) {
    const line = lines[c.at] as Line;
    if (line.indent !== indent || !(line.text.startsWith("- ") || line.text === "-")) break;
    const rest = line.text.slice(1).trimStart();
    c.at++;
    if (rest === "") out.push(child(lines, c, indent));
    else if (/^[^'"[{][^:#]*:(\s|$)/.test(rest) || /^(['"]).*\1:(\s|$)/.test(rest))
      fail(line, "mappings inside sequence items are not supported in skill frontmatter");
    else out.push(scalar(rest, line, lines, c, indent));
  }
  return out;
}

function mapping(lines: readonly Line[], c: Cursor, indent: number): { [key: string]: unknown } {
  // Prototype-free: a "__proto__" key in a user's file stays a key.
  const out: { [key: string]: unknown } = Object.create(null);
  while (c.at < lines.length) {
    const line = lines[c.at] as Line;
    if (line.indent < indent) break;
    if (line.indent > indent) fail(line, "unexpected indentation");
    const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"[\]{}&*!|>%@`][^:#]*?)\s*:(?:\s+(.*))?$/.exec(line.text);
    if (!m) fail(line, `expected "key: value", got ${JSON.stringify(line.text)}`);
    const [, rawKey, rest = ""] = m as unknown as [string, string, string | undefined];
    const key = rawKey.startsWith('"') || rawKey.startsWith("'") ? (quoted(rawKey, line) as string) : rawKey.trim();
    // YAML requires unique keys; which one wins differs between parsers, so the host and the author could disagree.
    if (Object.hasOwn(out, key)) fail(line, `duplicate key ${JSON.stringify(key)}`);
    c.at++;
    const value = stripComment(rest);
    out[key] = value === "" ? child(lines, c, indent) : scalar(value, line, lines, c, indent);
  }
  return out;
}

/** The nested block under a key or `-` with nothing after it; null when none follows. */
function child(lines: readonly Line[], c: Cursor, indent: number): unknown {
  const next = lines[c.at];
  if (!next || next.indent < indent) return null;
  // A sequence may sit at the same indent as its key ("key:\n- a").
  if (next.indent === indent) return next.text.startsWith("- ") || next.text === "-" ? sequence(lines, c, indent) : null;
  return node(lines, c, next.indent);
}

function stripComment(text: string): string {
  // In a quoted scalar a # is text; the quote parser rejects anything after the closing quote.
  if (text.startsWith('"') || text.startsWith("'")) return text.trim();
  // A comment needs whitespace before its #: "a#b" is one scalar.
  const hash = text.search(/\s#/);
  return (hash < 0 ? text : text.slice(0, hash)).trim();
}

function scalar(text: string, line: Line, lines: readonly Line[], c: Cursor, indent: number): unknown {
  if (text === "|" || text === ">" || /^[|>][+-]?$/.test(text)) return blockScalar(text, line, c, indent);
  if (/^[&*!]/.test(text)) fail(line, "anchors, aliases and tags are not supported in skill frontmatter");
  if (text.startsWith("{")) fail(line, "flow mappings are not supported in skill frontmatter");
  if (text.startsWith("[")) return flowSequence(text, line);
  if (text.startsWith('"') || text.startsWith("'")) return quoted(text, line);
  // A plain scalar may continue on more-indented lines (folded with spaces).
  let value = text;
  while (c.at < lines.length && (lines[c.at] as Line).indent > indent) {
    const more = lines[c.at] as Line;
    // "key: a" followed by an indented "other: b" is a YAML error, not text.
    if (/:(\s|$)/.test(more.text) || more.text.startsWith("- ")) fail(more, "unexpected indentation");
    value += ` ${stripComment(more.text)}`;
    c.at++;
  }
  return plain(value);
}

/** `|` keeps newlines, `>` folds them; chomping `-` strips the final newline, `+` keeps all. */
function blockScalar(header: string, line: Line, c: Cursor, indent: number): string {
  // Block scalars keep blank lines and comments, so read the raw source lines.
  const start = line.no - c.firstNo + 1;
  const body: string[] = [];
  let i = start;
  let width: number | undefined;
  for (; i < c.raw.length; i++) {
    const text = c.raw[i] as string;
    if (text.trim() === "") {
      body.push("");
      continue;
    }
    const ind = text.length - text.trimStart().length;
    if (ind <= indent) break;
    width ??= ind;
    if (ind < width) fail({ no: c.firstNo + i, indent: ind, text }, "a block scalar line is less indented than its first line");
    body.push(text.slice(width));
  }
  // The significant lines the block consumed are skipped too.
  const next = c.firstNo + i;
  while (c.at < c.lines.length && (c.lines[c.at] as Line).no < next) c.at++;
  while (body.length > 0 && body[body.length - 1] === "" && !header.endsWith("+")) body.pop();
  const joined = header.startsWith("|") ? body.join("\n") : fold(body);
  return header.endsWith("-") ? joined : `${joined}\n`;
}

/** Folded scalars: single newlines become spaces, blank lines stay newlines. */
function fold(body: readonly string[]): string {
  let out = "";
  for (const [i, part] of body.entries()) {
    if (i === 0) out = part;
    else if (part === "") out += "\n";
    else out += out.endsWith("\n") || out === "" ? part : ` ${part}`;
  }
  return out;
}

function flowSequence(text: string, line: Line): unknown[] {
  const inner = /^\[(.*)\]$/.exec(stripComment(text));
  if (!inner) fail(line, "a flow sequence must open and close on one line");
  const body = (inner as RegExpExecArray)[1]?.trim() ?? "";
  if (body === "") return [];
  const items: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (const ch of body) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === "[" || ch === "{") {
      fail(line, "nested flow collections are not supported in skill frontmatter");
    } else if (ch === ",") {
      items.push(current.trim());
      current = "";
    } else current += ch;
  }
  items.push(current.trim());
  return items.map((item) => (item.startsWith('"') || item.startsWith("'") ? quoted(item, line) : plain(item)));
}

const ESCAPES: { readonly [ch: string]: string } = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\", "/": "/", "0": "\0", " ": " " };

function quoted(text: string, line: Line): string {
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) fail(line, "unterminated single-quoted string");
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) fail(line, "unterminated double-quoted string");
  return text.slice(1, -1).replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, esc: string) => {
    // \uXXXX and \xXX name one character by its hex code.
    if (esc.length > 1) return String.fromCharCode(Number.parseInt(esc.slice(1), 16));
    const out = ESCAPES[esc];
    if (out === undefined) fail(line, `unknown escape \\${esc}`);
    return out as string;
  });
}

/** A plain scalar under the YAML 1.2 core schema. */
function plain(text: string): unknown {
  if (/^(null|Null|NULL|~)?$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?(0|[1-9][0-9]*)$/.test(text)) return Number(text);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  return text;
}
