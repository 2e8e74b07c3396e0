/**
 * The programs of a type check, built directly (no LanguageService): the standard library and the
 * declarations are parsed and bound once, as SourceFiles every check reuses; a check parses only the
 * model's program and builds a Program over them. Nothing is read from the user's disk: the library
 * comes from the `typescript` package this package depends on.
 *
 * Why the warm check is fast (issue 27: ≤ 50 ms at 300 tools). Each check needs a new Program and so
 * a new TypeChecker, whose set-up merges every file's globals into one table. The ES2023 library is
 * some 30 files that declare the same interfaces (`Array`, `String`...) again and again, and merging
 * symbols across files clones them, every check. So the library is concatenated into one file
 * (`noLib`, its `/// <reference lib>` chain resolved here), whose declarations the binder merges once.
 * A LanguageService also re-synchronizes every file per request and re-parses the program
 * incrementally; a plain `createProgram` over cached SourceFiles skips both (bench/: `--only=code-mode-check`).
 *
 * Why TypeScript 6: it is the last release with the JavaScript compiler API; TypeScript 7 (the
 * native port) exposes only an experimental IPC API that spawns a process.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type ts from "typescript";

const require = createRequire(import.meta.url);
let loaded: typeof ts | undefined;

/**
 * The TypeScript compiler, loaded on first use: it is several megabytes of JavaScript, and an app
 * that imports `@toolwright/code-mode` without checking programs should not pay for it.
 */
export function loadTypeScript(): typeof ts {
  loaded ??= require("typescript") as typeof ts;
  return loaded;
}

/** The one library file of every check (virtual; never a real path). */
const LIB_FILE = "/toolwright-lib/lib.code-mode.d.ts";
/** The library the program sees: ES2023, no DOM, no host. */
const LIB_ROOT = "es2023";

/**
 * The compiler options of every check. ES2023 with no DOM and no Node types, so `process`,
 * `require`, `fetch` and `window` are unknown names. Strict, except two checks that reject programs
 * which run fine and would only cost the model a round trip: implicit `any` in its own helpers and
 * `unknown` catch variables (`catch (e) { e.message }` is the common idiom).
 */
export function checkOptions(): ts.CompilerOptions {
  const t = loadTypeScript();
  return {
    target: t.ScriptTarget.ES2023,
    module: t.ModuleKind.ESNext,
    noLib: true,
    types: [],
    strict: true,
    noImplicitAny: false,
    useUnknownInCatchVariables: false,
    noEmitOnError: false,
    removeComments: true,
    skipLibCheck: true,
    skipDefaultLibCheck: true,
    isolatedModules: false,
    allowJs: false,
    noResolve: true,
    newLine: t.NewLineKind.LineFeed,
  };
}

/**
 * The ES2023 library as one text: each `lib.<name>.d.ts` after the libraries it references, each
 * once, with its reference directives dropped (they would name files that do not exist here).
 */
function concatenatedLib(): string {
  const dir = dirname(require.resolve("typescript/lib/lib.es5.d.ts"));
  const done = new Set<string>();
  const parts: string[] = [];
  const add = (name: string, depth: number): void => {
    // Names come from the library's own directives; anything but `a.b-c` is not one of them.
    if (done.has(name) || depth > 32 || !/^[a-z0-9.-]+$/.test(name)) return;
    done.add(name);
    const text = readFileSync(join(dir, `lib.${name}.d.ts`), "utf8");
    for (const match of text.matchAll(/^\/\/\/\s*<reference\s+lib="([^"]+)"\s*\/>/gm)) add(match[1]!.toLowerCase(), depth + 1);
    parts.push(text.replace(/^\/\/\/\s*<reference\s+lib="[^"]+"\s*\/>/gm, ""));
  };
  add(LIB_ROOT, 0);
  return parts.join("\n");
}

// Parsed and bound once per process: every checker shares the library's SourceFile (the cold cost).
let libFile: ts.SourceFile | undefined;

/** Builds Programs over fixed files plus one program file whose text `setProgram` replaces. */
export interface CheckService {
  readonly programFile: string;
  setProgram(text: string): void;
  /** The Program of the current program text (built once per text). */
  program(): ts.Program;
  /** Frees the parsed declarations. */
  dispose(): void;
}

/**
 * Creates the service. `fixed` maps virtual file names to their text (the declarations); they are
 * parsed once here. `programFile` names the model's program.
 */
export function createCheckService(fixed: ReadonlyMap<string, string>, programFile: string): CheckService {
  const ts = loadTypeScript();
  const options = checkOptions();
  libFile ??= ts.createSourceFile(LIB_FILE, concatenatedLib(), ts.ScriptTarget.ES2023, false);
  const files = new Map<string, ts.SourceFile>([[LIB_FILE, libFile]]);
  for (const [name, text] of fixed) files.set(name, ts.createSourceFile(name, text, ts.ScriptTarget.ES2023, false));
  const roots = [...files.keys(), programFile];
  let programText = "";
  let current: ts.Program | undefined;
  const host: ts.CompilerHost = {
    getSourceFile: (fileName) =>
      fileName === programFile ? ts.createSourceFile(programFile, programText, ts.ScriptTarget.ES2023, false) : files.get(fileName),
    getDefaultLibFileName: () => LIB_FILE,
    writeFile: () => {},
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (fileName) => fileName === programFile || files.has(fileName),
    readFile: (fileName) => (fileName === programFile ? programText : files.get(fileName)?.text),
    directoryExists: () => true,
    getDirectories: () => [],
  };
  return {
    programFile,
    setProgram(text) {
      programText = text;
      current = undefined;
    },
    program() {
      // No `oldProgram`: reusing its structure costs more than it saves when every file but the
      // program is already a cached SourceFile.
      current ??= ts.createProgram({ rootNames: roots, options, host });
      return current;
    },
    dispose() {
      files.clear();
      current = undefined;
    },
  };
}
