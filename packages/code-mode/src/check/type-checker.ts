/**
 * The type check of a model's program (issue 27, item 2). The program is the body of an async
 * function: it may `await` tool calls and `return` a value, and sees only the ES2023 library, the
 * sandbox's `console`, the generated `ToolError` and one namespace per toolset. A program that does
 * not type-check comes back as a `ToolFailure` with `correct_call` and the diagnostics (line and
 * column in the model's own text), and nothing runs. One that does comes back as JavaScript for the
 * executor, in the same form: an async function body, types erased.
 */
import { createHash } from "node:crypto";
import type { ToolFailure } from "@toolwright/runtime";
import { failureFromInvalidInput, redactText } from "@toolwright/runtime/caller";
import type ts from "typescript";
import { type CodeModeApi, checkApis } from "./api.js";
import { deadlineTicksTransformer } from "./deadline-ticks.js";
import { createCheckService, loadTypeScript } from "./service.js";
import { trackAsyncTransformer } from "./track-async.js";

/** One problem the type check found, positioned in the program as the model wrote it. */
export interface CheckDiagnostic {
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in UTF-16 code units. */
  readonly column: number;
  readonly message: string;
  /** TypeScript's diagnostic code (`2322`); 0 for the checker's own rules. */
  readonly code: number;
}

/** A program that failed the check: a `correct_call` `ToolFailure` carrying the diagnostics. */
export type CheckFailure = ToolFailure & { readonly diagnostics: readonly CheckDiagnostic[] };

/** The outcome of a check. */
export type CheckResult = { readonly ok: true; readonly js: string } | { readonly ok: false; readonly failure: CheckFailure };

/** Options of a checker. */
export interface TypeCheckerOptions {
  /** The tool name failures carry (the code-mode tool the model called). Default `code_mode`. */
  readonly tool?: string;
  /** Programs longer than this (UTF-16 code units) are refused unchecked. Default 262,144. */
  readonly maxSourceLength?: number;
  /** At most this many diagnostics are returned. Default 20. */
  readonly maxDiagnostics?: number;
}

/** A checker over a fixed set of APIs. Warm checks reuse the parsed library and declarations. */
export interface TypeChecker {
  check(source: string): CheckResult;
  /** Problems in the declarations themselves (empty for generated APIs); for tests and diagnosis. */
  declarationDiagnostics(): readonly string[];
  /** Frees the parsed declarations. The checker must not be used afterwards. */
  dispose(): void;
}

/** The globals the sandbox provides beside the generated ones (its prelude defines them). */
const SANDBOX_GLOBALS = `interface CodeModeConsole {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
}
/** Captured: what the program prints comes back with its result. */
declare var console: CodeModeConsole;
`;

/** The program's wrapper: its first line. The model's line 1 is the wrapped file's line 2. */
const WRAP_HEAD = "async function __toolwrightProgram() {\n";
const WRAP_TAIL = "\n}\n";
const WRAPPER_NAME = "__toolwrightProgram";

const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);
let services = 0;

/** Creates a checker for programs that call the tools of `apis` (generated `<toolset>CodeMode` objects). */
export function createTypeChecker(apis: readonly CodeModeApi[], options: TypeCheckerOptions = {}): TypeChecker {
  const ts = loadTypeScript();
  checkApis(apis);
  const tool = options.tool ?? "code_mode";
  const maxSource = options.maxSourceLength ?? 262_144;
  const maxDiagnostics = options.maxDiagnostics ?? 20;
  const fixed = new Map<string, string>();
  fixed.set(`/code-mode/sandbox-${hash(SANDBOX_GLOBALS)}.d.ts`, SANDBOX_GLOBALS);
  if (apis.length > 0) fixed.set(`/code-mode/prelude-${hash(apis[0]!.prelude)}.d.ts`, apis[0]!.prelude);
  for (const api of apis) fixed.set(`/code-mode/api/${api.namespace}-${hash(api.declarations)}.d.ts`, api.declarations);
  const checkService = createCheckService(fixed, `/code-mode/program-${++services}.ts`);
  const { programFile } = checkService;

  const fail = (source: string, diagnostics: readonly CheckDiagnostic[]): CheckResult => {
    const shown = diagnostics.slice(0, 3).map((d) => `${d.line}:${d.column} ${d.message}`);
    const more = diagnostics.length > 3 ? ` (and ${diagnostics.length - 3} more)` : "";
    const base = failureFromInvalidInput([], source, undefined, { tool, server: "" });
    const message = redactText(`the program does not type-check; nothing ran: ${shown.join("; ")}${more}`);
    return { ok: false, failure: { ...base, message, diagnostics } };
  };

  return {
    check(source) {
      if (typeof source !== "string") return fail(String(source), [rule(1, 1, "the program must be TypeScript source text")]);
      if (source.length > maxSource)
        return fail(source.slice(0, 200), [rule(1, 1, `the program is ${source.length} characters long; the limit is ${maxSource}`)]);
      const lines = source.split(/\r\n|[\n\r\u2028\u2029]/).length;
      checkService.setProgram(`${WRAP_HEAD}${source}${WRAP_TAIL}`);
      const program = checkService.program();
      const file = program.getSourceFile(programFile);
      if (file === undefined) throw new Error("code mode: internal: the type checker has no program");
      const found = [...program.getSyntacticDiagnostics(file), ...structureDiagnostics(file), ...program.getSemanticDiagnostics(file)]
        .filter((d) => d.category === ts.DiagnosticCategory.Error)
        .map((d) => toDiagnostic(d, file, lines));
      if (found.length > 0) return fail(source, dedupe(found).slice(0, maxDiagnostics));
      return { ok: true, js: emitBody(program, file) };
    },
    declarationDiagnostics() {
      checkService.setProgram("");
      const program = checkService.program();
      const all = [...program.getGlobalDiagnostics(), ...program.getOptionsDiagnostics()];
      for (const name of fixed.keys()) {
        const file = program.getSourceFile(name);
        if (file) all.push(...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file));
      }
      return all.map((d) => `${d.file?.fileName ?? "(global)"}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    },
    dispose: () => checkService.dispose(),
  };
}

function rule(line: number, column: number, message: string): CheckDiagnostic {
  return { line, column, message, code: 0 };
}

/** Maps a diagnostic of the wrapped file back onto the model's text (1-based, clamped to it). */
function toDiagnostic(d: ts.Diagnostic, file: ts.SourceFile, lines: number): CheckDiagnostic {
  const ts = loadTypeScript();
  // "Do you need to install type definitions for node? Try `npm i ...`": advice for a project, not a program.
  const message = ts.flattenDiagnosticMessageText(d.messageText, "\n").replace(/ Do you need to (install|change)[^\n]*/g, "");
  if (d.file === undefined || d.start === undefined) return { line: 1, column: 1, message, code: d.code };
  const at = file.getLineAndCharacterOfPosition(d.start);
  // Line 0 is the wrapper's head; past the model's last line is its tail (an unclosed block ends there).
  if (at.line < 1) return { line: 1, column: 1, message, code: d.code };
  if (at.line > lines) return { line: lines, column: 1, message, code: d.code };
  return { line: at.line, column: at.character + 1, message, code: d.code };
}

function dedupe(found: readonly CheckDiagnostic[]): CheckDiagnostic[] {
  const seen = new Set<string>();
  return found
    .filter((d) => {
      const key = `${d.line}:${d.column}:${d.code}:${d.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

const diagnosticAt = (file: ts.SourceFile, node: ts.Node, messageText: string): ts.Diagnostic => ({
  file,
  start: node.getStart(file),
  length: node.getWidth(file),
  messageText,
  category: loadTypeScript().DiagnosticCategory.Error,
  code: 0,
});

/**
 * The checker's own rules: the program stays inside its function (a stray `}` could otherwise
 * close the wrapper and put code at the top level), and `import()` / `import.meta` are refused,
 * since they type-check as `any` and the sandbox has no module loader to offer.
 */
function structureDiagnostics(file: ts.SourceFile): ts.Diagnostic[] {
  const ts = loadTypeScript();
  const out: ts.Diagnostic[] = [];
  const [first, ...rest] = file.statements;
  const wrapped = first !== undefined && ts.isFunctionDeclaration(first) && first.name?.text === WRAPPER_NAME && rest.length === 0;
  if (!wrapped) {
    // Point at the brace that closed the wrapper early: the end of its first statement.
    const start = first === undefined ? 0 : Math.max(0, first.end - 1);
    out.push({
      file,
      start,
      length: 1,
      messageText: "the program is the body of an async function: this closes that function's block",
      category: ts.DiagnosticCategory.Error,
      code: 0,
    });
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      out.push(diagnosticAt(file, node, "import() is not available in code mode: call the tools through their namespaces"));
    else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword)
      out.push(diagnosticAt(file, node, "import.meta is not available in code mode"));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** The program as JavaScript: the emitted wrapper's body. */
function emitBody(program: ts.Program, file: ts.SourceFile): string {
  let js: string | undefined;
  const output = program.emit(
    file,
    (name, text) => {
      if (name.endsWith(".js")) js = text;
    },
    undefined,
    false,
    // Ticks first: the async bodies it marks are then moved whole into track-async's inner arrows.
    { before: [deadlineTicksTransformer, trackAsyncTransformer] },
  );
  if (js === undefined || output.emitSkipped) throw new Error("code mode: internal: the checked program emitted no JavaScript");
  const text = js.replace(/^"use strict";\n/, "");
  // A body with no statements (or only comments) prints on one line.
  if (new RegExp(`^async function ${WRAPPER_NAME}\\(\\) \\{\\s*\\}\\s*$`).test(text)) return "";
  const head = `async function ${WRAPPER_NAME}() {\n`;
  const end = text.lastIndexOf("}");
  if (!text.startsWith(head) || end < head.length - 1 || text.slice(end + 1).trim() !== "")
    throw new Error("code mode: internal: unexpected shape of the emitted program");
  return text.slice(head.length, end);
}
