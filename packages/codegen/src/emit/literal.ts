/**
 * Prints JSON values as TypeScript literals: stable, indented, and safe for hostile keys
 * (`"__proto__": x` in an object literal would set the prototype; a computed key does not).
 */
import { isSafeIdentifier } from "./names.js";

/** A property key as printed in an object literal. */
export function printKey(key: string): string {
  if (key === "__proto__") return '["__proto__"]';
  return isSafeIdentifier(key) || key === "constructor" ? key : JSON.stringify(key);
}

/** Prints a JSON value as a literal, indented by `indent` spaces after the first line. */
export function printLiteral(value: unknown, indent = 0): string {
  const pad = " ".repeat(indent + 2);
  const end = " ".repeat(indent);
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const flat = value.every((v) => v === null || typeof v !== "object");
    if (flat) {
      const one = `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
      if (one.length <= 100) return one;
    }
    return `[\n${value.map((v) => `${pad}${printLiteral(v, indent + 2)},`).join("\n")}\n${end}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${pad}${printKey(k)}: ${printLiteral(v, indent + 2)},`).join("\n")}\n${end}}`;
}

/** A string literal safe inside a one-line JSDoc comment. */
export function docText(text: string): string {
  return text.replace(/\*\//g, "*\\/").replace(/\r?\n/g, "\n * ");
}

/** A quoted name for JSDoc: `"my-tool"`, with `*\/` and line breaks made harmless. */
export function docName(name: string): string {
  return docText(JSON.stringify(name));
}
