/**
 * Finds where `toolwright add` inserts into a user's design, through the file's AST (ts-morph),
 * and returns plain text insertions. Nothing is re-printed: every byte outside the inserted text
 * stays as the user wrote it, comments and formatting included. The file's quote style,
 * semicolons, line endings and indentation are read from the file itself.
 */
import type { ArrayLiteralExpression, ObjectLiteralExpression, SourceFile } from "ts-morph";
import { FileError } from "../errors.js";

/** One insertion into the original text (a replacement of `at..end` when `end` is given). */
export interface Insertion {
  readonly at: number;
  readonly end?: number;
  readonly text: string;
}

/** Applies insertions to `text`; insertions at the same place keep their order. */
export function applyInsertions(text: string, edits: readonly Insertion[]): string {
  const sorted = edits.map((e, i) => ({ ...e, i })).sort((a, b) => a.at - b.at || a.i - b.i);
  let out = "";
  let pos = 0;
  for (const e of sorted) {
    if (e.at < pos) throw new Error(`internal: overlapping edits at ${e.at}`);
    out += text.slice(pos, e.at) + e.text;
    pos = e.end ?? e.at;
  }
  return out + text.slice(pos);
}

/** The style the file is written in. */
export interface FileStyle {
  readonly quote: string;
  readonly semicolon: string;
  readonly eol: string;
}

/** An existing `externalServer("name", ...)` declaration. */
export interface ServerDeclaration {
  readonly identifier: string;
  readonly line: number;
  /** The `externalServer(...)` call's range. */
  readonly call: { readonly start: number; readonly end: number };
}

/** What `add` needs to know about a design file. */
export interface DesignShape {
  readonly file: SourceFile;
  readonly style: FileStyle;
  /** DSL export name → the local name the file uses (`toolset` → `toolset`, or `ns.toolset`). */
  readonly local: (name: string) => string;
  /** Inserts the DSL imports the new code needs. */
  readonly importEdits: (names: readonly string[]) => Insertion[];
  /** Top-level names already taken. */
  readonly taken: ReadonlySet<string>;
  /** The statement an `externalServer("name", ...)` is declared in, with its variable name. */
  readonly serverDeclaration: (name: string) => ServerDeclaration | undefined;
  /** Where a new top-level declaration goes (after the last server declaration, else after the imports), and whether to export it. */
  readonly declarationPoint: { readonly at: number; readonly exported: boolean };
  /** The `design({...})` object literal the default export builds. */
  readonly designObject: ObjectLiteralExpression;
}

/** Parses a design; throws `FileError` with line and column for a syntax error. */
export async function parseDesign(text: string, label: string): Promise<SourceFile> {
  const { Project } = await import("ts-morph");
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } });
  const file = project.createSourceFile(`/${label.replace(/^(\.\.\/)+/, "")}`, text, { overwrite: true });
  const diagnostics = (file.compilerNode as unknown as { parseDiagnostics?: readonly { start?: number; messageText: unknown }[] })
    .parseDiagnostics;
  const first = diagnostics?.[0];
  if (first) {
    const { line, column } = file.getLineAndColumnAtPos(first.start ?? 0);
    const message =
      typeof first.messageText === "string" ? first.messageText : String((first.messageText as { messageText?: unknown }).messageText);
    throw new FileError(`${label}:${line}:${column}`, `cannot parse the design: ${message}`);
  }
  return file;
}

function lineEnd(text: string, pos: number): number {
  const nl = text.indexOf("\n", pos);
  if (nl === -1) return text.length;
  return text[nl - 1] === "\r" ? nl - 1 : nl;
}

function indentOf(text: string, pos: number): string {
  const start = text.lastIndexOf("\n", pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? "";
}

/** Appends items to an array or object literal, matching its layout (one line or one item per line, trailing comma or not). */
export function appendItems(
  text: string,
  list: ArrayLiteralExpression | ObjectLiteralExpression,
  items: readonly string[],
  eol: string,
): Insertion {
  const isArray = "getElements" in list;
  const nodes = isArray ? (list as ArrayLiteralExpression).getElements() : (list as ObjectLiteralExpression).getProperties();
  const raw = (
    isArray ? (list as ArrayLiteralExpression).compilerNode.elements : (list as ObjectLiteralExpression).compilerNode.properties
  ) as {
    readonly hasTrailingComma?: boolean;
  };
  const open = list.getStart() + 1;
  const close = list.getEnd() - 1;
  const last = nodes[nodes.length - 1];
  if (!last) {
    const inner = text.slice(open, close);
    if (inner.includes("\n")) {
      const indent = `${indentOf(text, list.getStart())}  `;
      return { at: open, text: items.map((i) => `${eol}${indent}${i},`).join("") };
    }
    const pad = isArray ? "" : " ";
    return { at: open, text: `${pad}${items.join(", ")}${pad}` };
  }
  const multiline = text.slice(open, nodes[0]!.getStart()).includes("\n");
  if (multiline) {
    const indent = indentOf(text, last.getStart());
    if (raw.hasTrailingComma) {
      const comma = text.indexOf(",", last.getEnd());
      // After the comma and anything else on that line (a trailing comment stays with its item).
      return { at: lineEnd(text, comma), text: items.map((i) => `${eol}${indent}${i},`).join("") };
    }
    return { at: last.getEnd(), text: items.map((i) => `,${eol}${indent}${i}`).join("") };
  }
  if (raw.hasTrailingComma) return { at: text.indexOf(",", last.getEnd()) + 1, text: items.map((i) => ` ${i},`).join("") };
  return { at: last.getEnd(), text: items.map((i) => `, ${i}`).join("") };
}

/** Reads the parts of a design `add` edits. Throws `FileError` naming the file when the shape is not one it can edit. */
export async function designShape(file: SourceFile, label: string): Promise<DesignShape> {
  const { Node } = await import("ts-morph");
  const text = file.getFullText();
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const imports = file.getImportDeclarations();
  const dsl = imports.find((d) => d.getModuleSpecifierValue() === "@toolwright/dsl" && !d.isTypeOnly());
  const quoteSource = dsl ?? imports[0];
  const quote = quoteSource?.getModuleSpecifier().getText().startsWith("'") ? "'" : '"';
  const semicolon = (quoteSource ?? file.getStatements()[0])?.getText().trimEnd().endsWith(";") === false ? "" : ";";
  const style: FileStyle = { quote, semicolon, eol };

  const names = new Map<string, string>();
  const namespace = dsl?.getNamespaceImport()?.getText();
  for (const spec of dsl?.getNamedImports() ?? []) names.set(spec.getName(), spec.getAliasNode()?.getText() ?? spec.getName());
  const local = (name: string) => (namespace ? `${namespace}.${name}` : (names.get(name) ?? name));

  const taken = new Set<string>();
  for (const st of file.getStatements()) {
    if (Node.isVariableStatement(st)) for (const d of st.getDeclarations()) taken.add(d.getName());
    else if (Node.isFunctionDeclaration(st) || Node.isClassDeclaration(st)) {
      const n = st.getName();
      if (n) taken.add(n);
    }
  }
  for (const d of imports) {
    for (const spec of d.getNamedImports()) taken.add(spec.getAliasNode()?.getText() ?? spec.getName());
    const def = d.getDefaultImport()?.getText();
    if (def) taken.add(def);
    const ns = d.getNamespaceImport()?.getText();
    if (ns) taken.add(ns);
  }

  const importEdits = (wanted: readonly string[]): Insertion[] => {
    if (namespace) return [];
    const missing = wanted.filter((n) => !names.has(n));
    if (missing.length === 0) return [];
    if (!dsl) {
      const line = `import { ${missing.join(", ")} } from ${quote}@toolwright/dsl${quote}${semicolon}`;
      const after = imports[imports.length - 1];
      if (after) return [{ at: lineEnd(text, after.getEnd()), text: `${eol}${line}` }];
      return [{ at: 0, text: `${line}${eol}${eol}` }];
    }
    const named = dsl.getImportClause()?.getNamedBindings();
    if (!named || !Node.isNamedImports(named)) {
      // `import dsl from` or a bare import: add a separate named import after it.
      const line = `import { ${missing.join(", ")} } from ${quote}@toolwright/dsl${quote}${semicolon}`;
      return [{ at: lineEnd(text, dsl.getEnd()), text: `${eol}${line}` }];
    }
    return [appendItems(text, named as unknown as ArrayLiteralExpression, missing, eol)];
  };

  const isCallTo = (node: unknown, fn: string): node is import("ts-morph").CallExpression =>
    Node.isCallExpression(node as import("ts-morph").Node) &&
    (node as import("ts-morph").CallExpression).getExpression().getText() === local(fn);

  const serverStatements = file.getStatements().filter((st) => {
    if (!Node.isVariableStatement(st)) return false;
    const init = st.getDeclarations()[0]?.getInitializer();
    return isCallTo(init, "externalServer") || isCallTo(init, "mcpServer");
  });
  const serverDeclaration = (name: string) => {
    for (const st of serverStatements) {
      if (!Node.isVariableStatement(st)) continue;
      const decl = st.getDeclarations()[0]!;
      const call = decl.getInitializer();
      const arg = isCallTo(call, "externalServer") ? call.getArguments()[0] : undefined;
      if (arg && Node.isStringLiteral(arg) && arg.getLiteralValue() === name) {
        return { identifier: decl.getName(), line: st.getStartLineNumber(), call: { start: call!.getStart(), end: call!.getEnd() } };
      }
    }
    return undefined;
  };
  const anchor = serverStatements[serverStatements.length - 1] ?? imports[imports.length - 1];
  const declarationPoint = anchor
    ? { at: lineEnd(text, anchor.getEnd()), exported: Node.isVariableStatement(anchor) ? anchor.hasExportKeyword() : false }
    : { at: 0, exported: false };

  // export default design({...}), directly or through a variable.
  let expr: import("ts-morph").Node | undefined = file.getExportAssignment((e) => !e.isExportEquals())?.getExpression();
  if (expr && Node.isIdentifier(expr)) {
    const decl = file.getVariableDeclaration(expr.getText());
    expr = decl?.getInitializer();
  }
  const designCall = isCallTo(expr, "design") ? expr : undefined;
  const object = designCall?.getArguments()[0];
  if (!designCall || !object || !Node.isObjectLiteralExpression(object)) {
    throw new FileError(
      label,
      `cannot find \`export default ${local("design")}({ toolsets: [...] })\`; add the server by hand or write the design with toolwright init`,
    );
  }
  return { file, style, local, importEdits, taken, serverDeclaration, declarationPoint, designObject: object };
}

/** The array literal of a `design({...})` property (`toolsets`, `servers`), or `undefined` when the property is absent. Throws when it is not an array literal. */
export async function designArray(shape: DesignShape, property: string, label: string): Promise<ArrayLiteralExpression | undefined> {
  const { Node } = await import("ts-morph");
  const prop = shape.designObject.getProperty(property);
  if (!prop) return undefined;
  let init: import("ts-morph").Node | undefined;
  if (Node.isPropertyAssignment(prop)) init = prop.getInitializer();
  else if (Node.isShorthandPropertyAssignment(prop)) init = shape.file.getVariableDeclaration(prop.getName())?.getInitializer();
  if (init && Node.isArrayLiteralExpression(init)) return init;
  const { line } = shape.file.getLineAndColumnAtPos(prop.getStart());
  throw new FileError(`${label}:${line}`, `design's ${property} is not an array literal; add the server by hand`);
}

/**
 * The edited file's text without the DSL named imports the edit left unused: ones the file used
 * before (`before`) and no longer does, such as the `fromExternalMCP` of a replaced toolset. An
 * import that was already unused is the user's business and stays.
 */
export async function pruneImports(before: DesignShape, after: SourceFile): Promise<string> {
  const { Node, SyntaxKind } = await import("ts-morph");
  const text = after.getFullText();
  const dsl = after.getImportDeclarations().find((d) => d.getModuleSpecifierValue() === "@toolwright/dsl" && !d.isTypeOnly());
  const specs = dsl?.getNamedImports() ?? [];
  // References by name, leaving out imports and member names (`t.tool`, `{ object: ... }`).
  const references = (file: SourceFile, local: string) =>
    file.getDescendantsOfKind(SyntaxKind.Identifier).filter((i) => {
      if (i.getText() !== local || i.getFirstAncestorByKind(SyntaxKind.ImportDeclaration)) return false;
      const parent = i.getParent();
      return !((Node.isPropertyAccessExpression(parent) || Node.isPropertyAssignment(parent)) && parent.getNameNode() === i);
    }).length;
  const dropped = specs.map((spec) => {
    const local = spec.getAliasNode()?.getText() ?? spec.getName();
    return references(after, local) === 0 && references(before.file, local) > 0;
  });
  const kept = dropped.lastIndexOf(false);
  if (kept === -1 || !dropped.includes(true)) return text;
  const edits: Insertion[] = [];
  for (const [i, spec] of specs.entries()) {
    if (dropped[i] && i < kept) edits.push({ at: spec.getStart(), end: specs[i + 1]!.getStart(), text: "" });
  }
  // The dropped ones after the last kept one go with the comma before them.
  if (kept < specs.length - 1) edits.push({ at: specs[kept]!.getEnd(), end: specs[specs.length - 1]!.getEnd(), text: "" });
  return applyInsertions(text, edits);
}
