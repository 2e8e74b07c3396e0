/**
 * An in-memory TypeScript LanguageService over a fixed set of declaration files and one program
 * file. The declarations and the standard library never change, so their SourceFiles are parsed
 * once and reused by every check (the library's through a process-wide document registry, shared by
 * every checker); a check only re-parses and re-checks the program. Nothing is read from the user's
 * disk: the library comes from the `typescript` package this package depends on.
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

/** Where the library lives in the virtual file system (never a real path). */
const LIB_DIR = "/toolwright-lib/";

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
    lib: ["lib.es2023.d.ts"],
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

let realLibDir: string | undefined;
const libTexts = new Map<string, string | undefined>();

/** A library file's text, read once per process; undefined when there is no such file. */
function libText(fileName: string): string | undefined {
  if (!fileName.startsWith(LIB_DIR)) return undefined;
  const base = fileName.slice(LIB_DIR.length);
  // Library names are `lib.<name>.d.ts`; anything else (a path, `..`) is not a library file.
  if (!/^lib\.[a-z0-9.]+\.d\.ts$/.test(base)) return undefined;
  if (!libTexts.has(base)) {
    try {
      realLibDir ??= dirname(require.resolve("typescript/lib/lib.es5.d.ts"));
      libTexts.set(base, readFileSync(join(realLibDir, base), "utf8"));
    } catch {
      libTexts.set(base, undefined);
    }
  }
  return libTexts.get(base);
}

// One registry for the process: every checker shares the parsed library (the cold cost).
let registry: ts.DocumentRegistry | undefined;

/** A service over fixed files plus one program file whose text `setProgram` replaces. */
export interface CheckService {
  readonly service: ts.LanguageService;
  readonly programFile: string;
  setProgram(text: string): void;
  /** Releases this service's documents from the shared registry. */
  dispose(): void;
}

/**
 * Creates the service. `fixed` maps virtual file names to their text; the names must change when the
 * text does (the checker puts a hash of the text in them), and `programFile` must be unique to this
 * service, because the document registry behind every service is shared and keyed by file name.
 */
export function createCheckService(fixed: ReadonlyMap<string, string>, programFile: string): CheckService {
  const ts = loadTypeScript();
  const options = checkOptions();
  let programText = "";
  let version = 0;
  const snapshots = new Map<string, ts.IScriptSnapshot>();
  const textOf = (fileName: string): string | undefined =>
    fileName === programFile ? programText : (fixed.get(fileName) ?? libText(fileName));
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...fixed.keys(), programFile],
    // Fixed files never change under one name, so "0" is their version for good.
    getScriptVersion: (fileName) => (fileName === programFile ? String(version) : "0"),
    getScriptSnapshot(fileName) {
      if (fileName === programFile) return ts.ScriptSnapshot.fromString(programText);
      let snapshot = snapshots.get(fileName);
      if (snapshot === undefined) {
        const text = textOf(fileName);
        if (text === undefined) return undefined;
        snapshot = ts.ScriptSnapshot.fromString(text);
        snapshots.set(fileName, snapshot);
      }
      return snapshot;
    },
    getCurrentDirectory: () => "/",
    getDefaultLibFileName: (options) => `${LIB_DIR}${ts.getDefaultLibFileName(options)}`,
    fileExists: (fileName) => textOf(fileName) !== undefined,
    readFile: (fileName) => textOf(fileName),
    directoryExists: (dir) => dir === "/" || LIB_DIR.startsWith(dir.endsWith("/") ? dir : `${dir}/`) || dir.startsWith("/code-mode"),
    getDirectories: () => [],
    useCaseSensitiveFileNames: () => true,
  };
  registry ??= ts.createDocumentRegistry(true, "/");
  const service = ts.createLanguageService(host, registry);
  return {
    service,
    programFile,
    dispose: () => service.dispose(),
    setProgram(text) {
      programText = text;
      version++;
    },
  };
}
