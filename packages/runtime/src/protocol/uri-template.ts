/**
 * RFC 6570 URI templates, levels 1-3 (the operators "", "+", "#", ".", "/", ";", "?", "&"; no
 * level-4 modifiers): variable names, expansion, and matching a URI back to its variables, used by
 * servers to route `resources/read` and by generated template readers. Hand-written: no
 * zero-dependency library covers expansion and matching (README design notes).
 */

import { type Inst, type Program, runProgram } from "./template-vm.js";

interface Expression {
  readonly op: string;
  readonly names: readonly string[];
}

type Part = string | Expression;

const OPERATORS = new Set(["+", "#", ".", "/", ";", "?", "&"]);
/** RFC 6570 §2.3 varname characters (pct-encoded triplets allowed); ":" and "*" are level 4, refused here. */
const NAME = /^[A-Za-z0-9_.%]+$/;

/** Splits a template into literal text and expressions; throws a `TypeError` naming a bad expression. */
function parse(template: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf("{", at);
    if (open < 0) {
      parts.push(template.slice(at));
      break;
    }
    if (open > at) parts.push(template.slice(at, open));
    const close = template.indexOf("}", open);
    if (close < 0) throw new TypeError(`URI template ${JSON.stringify(template)}: "{" at ${open} is never closed`);
    const body = template.slice(open + 1, close);
    const op = OPERATORS.has(body[0] ?? "") ? (body[0] as string) : "";
    const names = body.slice(op.length).split(",");
    for (const name of names)
      if (!NAME.test(name)) throw new TypeError(`URI template ${JSON.stringify(template)}: bad variable ${JSON.stringify(name)}`);
    parts.push({ op, names });
    at = close + 1;
  }
  return parts;
}

/** The variable names of a template, in order, each once. */
export function templateVariables(template: string): string[] {
  const out: string[] = [];
  for (const part of parse(template)) if (typeof part !== "string") for (const n of part.names) if (!out.includes(n)) out.push(n);
  return out;
}

/**
 * "+" and "#" keep reserved characters and existing %XX escapes (encodeURI, with its re-encoded %25
 * undone); every other operator encodes all but unreserved characters, which encodeURIComponent
 * does except for !'()*.
 */
const encode = (value: string, reserved: boolean) =>
  reserved
    ? encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, "%$1")
    : encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Per operator, what starts the expansion and what joins its items (RFC 6570 Appendix A's table). */
const PREFIX: { readonly [op: string]: string } = { "": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&" };
const SEPARATOR: { readonly [op: string]: string } = { "": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&" };

/** Expands a template with string values; undefined variables are left out (RFC 6570 §3.2.1). */
export function expandTemplate(template: string, values: { readonly [name: string]: string | undefined }): string {
  return parse(template)
    .map((part) => {
      if (typeof part === "string") return part;
      const reserved = part.op === "+" || part.op === "#";
      const named = part.op === ";" || part.op === "?" || part.op === "&";
      const items = part.names.flatMap((name) => {
        // Own keys only: a variable named "constructor" must not expand to Object's constructor.
        const value = Object.hasOwn(values, name) ? values[name] : undefined;
        if (value === undefined) return [];
        const encoded = encode(value, reserved);
        if (!named) return [encoded];
        // ";" drops the "=" for an empty value (";x"), "?" and "&" keep it ("?x="), per §3.2.8-9.
        return [part.op === ";" && value === "" ? name : `${name}=${encoded}`];
      });
      return items.length === 0 ? "" : `${PREFIX[part.op]}${items.join(SEPARATOR[part.op])}`;
    })
    .join("");
}

/** What one value may contain, per operator ("any character but these"). */
const STOP_RESERVED: ReadonlySet<string> = new Set("?#");
const STOP_NAMED: ReadonlySet<string> = new Set("&;#");
const STOP_SIMPLE: ReadonlySet<string> = new Set("/?#.,&;");

/**
 * Compiles a template to an anchored pattern. Each expression is optional as a whole (all of its
 * variables, or none). Simple and label/path values stop at their separators; "+" and "#" values
 * may span "/" and are lazy (the shortest that lets the rest match); named values stop at "&", ";"
 * and "#". Variable `i` (in `names` order) is captured in slots 2i and 2i+1.
 */
function compile(template: string): { readonly program: Program; readonly names: readonly string[] } {
  const insts: Inst[] = [];
  const names: string[] = [];
  // UTF-16 units, as the matcher reads the URI.
  const literal = (text: string) => {
    for (let i = 0; i < text.length; i++) insts.push({ op: "char", char: text[i] as string });
  };
  for (const part of parse(template)) {
    if (typeof part === "string") {
      literal(part);
      continue;
    }
    const named = part.op === ";" || part.op === "?" || part.op === "&";
    const reserved = part.op === "+" || part.op === "#";
    const stop = reserved ? STOP_RESERVED : named ? STOP_NAMED : STOP_SIMPLE;
    // (?:prefix item (separator item)*)? — the split's exit target is patched once the group is laid out;
    // a group that matched nothing counts as skipped, as in a RegExp.
    const group = insts.length;
    insts.push({ op: "jump", to: -1 }, { op: "open" });
    literal(PREFIX[part.op] as string);
    for (const [i, name] of part.names.entries()) {
      if (i > 0) literal(SEPARATOR[part.op] as string);
      if (named) literal(`${name}=`);
      insts.push({ op: "save", slot: 2 * names.length });
      names.push(name);
      // loop: split(body, exit) greedy, split(exit, body) lazy; body: one value character, back to loop.
      const loop = insts.length;
      insts.push({ op: "jump", to: -1 }, { op: "class", stop }, { op: "jump", to: loop });
      const exit = insts.length;
      insts[loop] = reserved ? { op: "split", first: exit, second: loop + 1 } : { op: "split", first: loop + 1, second: exit };
      insts.push({ op: "save", slot: 2 * names.length - 1 });
    }
    insts.push({ op: "nonempty" });
    insts[group] = { op: "split", first: group + 1, second: insts.length };
  }
  insts.push({ op: "match" });
  return { program: { insts, slots: 2 * names.length }, names };
}

// Servers match every read against the same few templates: compiled once each, bounded so a
// caller passing ever-new templates cannot grow it without end.
const compiled = new Map<string, ReturnType<typeof compile>>();
const MAX_COMPILED = 256;

function compiledFor(template: string): ReturnType<typeof compile> {
  let hit = compiled.get(template);
  if (!hit) {
    hit = compile(template);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(template, hit);
  }
  return hit;
}

/**
 * `matchTemplate` with the number of matcher steps it took (at most 4 × (URI length + 1) × the
 * compiled template's size); for tests that check the matcher stays linear.
 */
export function matchTemplateCounted(
  template: string,
  uri: string,
): { readonly variables: { [name: string]: string } | undefined; readonly steps: number; readonly size: number } {
  const { program, names } = compiledFor(template);
  const { captures, steps } = runProgram(program, uri);
  return { variables: captures && decodeCaptures(names, captures, uri), steps, size: program.insts.length };
}

function decodeCaptures(names: readonly string[], captures: readonly number[], uri: string): { [name: string]: string } | undefined {
  // Names come from a server's template: a prototype-free map keeps "__proto__" an ordinary variable.
  const out: { [name: string]: string } = Object.create(null);
  for (const [i, name] of names.entries()) {
    const start = captures[2 * i] as number;
    const end = captures[2 * i + 1] as number;
    if (start < 0 || end < 0) continue;
    try {
      out[name] = decodeURIComponent(uri.slice(start, end));
    } catch {
      // A malformed escape ("%zz") cannot be a value this template produced: no match.
      return undefined;
    }
  }
  return out;
}

/**
 * Matches a URI against a template; the decoded variables, or undefined when it does not match.
 * Simple and label/path variables match one segment; "+" and "#" may span "/" and take the
 * shortest value that lets the rest of the template match (so `{+a}/{+b}` splits at the first
 * "/"). An expression matches with all of its variables or none. Linear in the URI's length for
 * every template (a Pike VM, template-vm.ts), so no URI can stall a server.
 */
export function matchTemplate(template: string, uri: string): { [name: string]: string } | undefined {
  return matchTemplateCounted(template, uri).variables;
}
