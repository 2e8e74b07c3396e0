/**
 * Hostile text for "text is data" property tests, and the checks that generated TypeScript holds it
 * only as data: it parses without a diagnostic, and the marker call hidden in the text never shows
 * up as code (an identifier outside a property name).
 */
import fc from "fast-check";
import { ts } from "ts-morph";

/** The identifier every injection attempt calls; `$` is never produced by the name sanitizer. */
export const MARKER = "$pwn$";

/** Pieces that end a comment, a string, a template or a line, or open code. */
export const DANGEROUS = [
  "*/",
  "/*",
  "/**",
  "//",
  "\n",
  "\r",
  "\r\n",
  "\u2028",
  "\u2029",
  "\u0085",
  "`",
  "${",
  "}",
  '"',
  "'",
  "\\",
  "\\u2028",
  ");",
  "<!--",
  "-->",
  "#!",
  "@example ",
  "\u0000",
  "\ud800",
  ` ${MARKER}() `,
  `*/ ${MARKER}(); /*`,
  `\n${MARKER}();\n`,
  `\u2028${MARKER}();//`,
  `"); ${MARKER}(); ("`,
  `\`; ${MARKER}(); \``,
  `\${${MARKER}()}`,
] as const;

/** Arbitrary text: unicode strings, raw code units, and strings assembled from dangerous pieces. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.array(fc.oneof(fc.constantFrom(...DANGEROUS), fc.string({ maxLength: 4 })), { maxLength: 8 }).map((p) => p.join("")),
  },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
);

/** Hostile text that is not empty after trimming (what a name must be). */
export const hostileName: fc.Arbitrary<string> = hostileText.filter((s) => s.trim() !== "");

/** Parses TypeScript; returns the source file and its syntax diagnostics. */
export function parseTs(text: string, name = "/generated.ts"): { file: ts.SourceFile; diagnostics: string[] } {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const raw = (file as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
  return { file, diagnostics: raw.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")) };
}

/** Every node of `file`, depth first. */
export function allNodes(file: ts.SourceFile): ts.Node[] {
  const out: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    out.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** Identifiers containing the marker anywhere but as the name of a property (where a key may legitimately be spelled so). */
export function markerInCode(file: ts.SourceFile): string[] {
  return allNodes(file)
    .filter((n) => ts.isIdentifier(n) || ts.isPrivateIdentifier(n))
    .filter((n) => n.getText(file).includes(MARKER))
    .filter((n) => {
      const p = n.parent;
      const isKey = (ts.isPropertyAssignment(p) || ts.isPropertySignature(p) || ts.isPropertyDeclaration(p)) && p.name === n;
      return !isKey;
    })
    .map((n) => `${n.getText(file)} at ${file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1}`);
}

/** The values of every string literal (and no-substitution template) in `file`. */
export function stringValues(file: ts.SourceFile): string[] {
  return allNodes(file)
    .filter((n): n is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral => ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n))
    .map((n) => n.text);
}

/** Asserts `text` is TypeScript that parses and runs no marker code; returns the parsed file. Throws a readable error otherwise. */
export function assertDataOnly(text: string, label: string): ts.SourceFile {
  const { file, diagnostics } = parseTs(text);
  if (diagnostics.length > 0) throw new Error(`${label}: does not parse: ${diagnostics.join("; ")}\n${text}`);
  const code = markerInCode(file);
  if (code.length > 0) throw new Error(`${label}: hostile text became code (${code.join(", ")})\n${text}`);
  return file;
}
