/**
 * RFC 6570 URI templates, levels 1-3 (the operators "", "+", "#", ".", "/", ";", "?", "&"; no
 * level-4 modifiers): variable names, expansion, and matching a URI back to its variables, used by
 * servers to route `resources/read` and by generated template readers. Hand-written: no
 * zero-dependency library covers expansion and matching (README design notes).
 */

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

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Matches a URI against a template; the decoded variables, or undefined when it does not match.
 * Simple and label/path variables match one segment; "+" and "#" may span "/".
 */
export function matchTemplate(template: string, uri: string): { [name: string]: string } | undefined {
  const names: string[] = [];
  let pattern = "^";
  for (const part of parse(template)) {
    if (typeof part === "string") {
      pattern += escapeRegExp(part);
      continue;
    }
    const named = part.op === ";" || part.op === "?" || part.op === "&";
    // What one value may contain, per operator: lazy for "+"/"#" so a literal after the expression
    // still matches; the others stop at their own separators.
    const value = part.op === "+" || part.op === "#" ? "[^?#]*?" : named ? "[^&;#]*" : "[^/?#.,&;]*";
    const items = part.names.map((name) => {
      names.push(name);
      return named ? `${escapeRegExp(name)}=(${value})` : `(${value})`;
    });
    pattern += `(?:${escapeRegExp(PREFIX[part.op] as string)}${items.join(escapeRegExp(SEPARATOR[part.op] as string))})?`;
  }
  const m = new RegExp(`${pattern}$`).exec(uri);
  if (!m) return undefined;
  // Names come from a server's template: a prototype-free map keeps "__proto__" an ordinary variable.
  const out: { [name: string]: string } = Object.create(null);
  for (const [i, name] of names.entries()) {
    const raw = m[i + 1];
    if (raw === undefined) continue;
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      // A malformed escape ("%zz") cannot be a value this template produced: no match.
      return undefined;
    }
  }
  return out;
}
