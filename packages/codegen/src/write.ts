/**
 * Writing generated files: every path must stay inside `--out`, every file is written atomically
 * (temp file + rename), unchanged files are left alone, and files a previous run generated that
 * this run no longer produces are removed. `checkOutput` compares without writing.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { checkWritePath, type SafeWriteOptions, writeFileSafe } from "@toolwright/runtime/manager";
import { sourceLines } from "./emit/generated-file.js";

/** What a write or check found. Paths are relative to the output folder. */
export interface OutputReport {
  readonly written: readonly string[];
  readonly unchanged: readonly string[];
  readonly removed: readonly string[];
  /** For checks: files that differ, are missing, or should no longer exist. */
  readonly stale: readonly string[];
}

/** Resolves a generated path inside `outDir`; throws if it would land anywhere else. */
export function safeJoin(outDir: string, path: string): string {
  if (path === "" || isAbsolute(path) || path.includes("\0") || path.split(/[\\/]/).some((p) => p === ".." || p === "." || p === "")) {
    throw new Error(`refusing to write ${JSON.stringify(path)}: generated paths must stay inside --out`);
  }
  const root = resolve(outDir);
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) throw new Error(`refusing to write ${JSON.stringify(path)} outside ${outDir}`);
  return full;
}

/**
 * Files under `outDir` that a previous run generated from the same design (they start with the
 * generated marker and name `source` on the next line). Other files are never touched.
 */
export function previouslyGenerated(outDir: string, source: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.(ts|js)$/.test(entry.name) && isOurs(full, source))
        found.push(relative(outDir, full).split(sep).join("/"));
    }
  };
  walk(resolve(outDir));
  return found.sort();
}

function isOurs(path: string, source: string): boolean {
  try {
    const head = readFileSync(path, "utf8").slice(0, 4096);
    const prefix = sourceLines(source);
    return head.startsWith(prefix) && (head[prefix.length] === "\n" || head[prefix.length] === " ");
  } catch {
    return false;
  }
}

function readIfFile(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** Compares `files` with what is on disk; writes nothing. */
export function checkOutput(outDir: string, files: ReadonlyMap<string, string>, source: string): OutputReport {
  const stale: string[] = [];
  const unchanged: string[] = [];
  for (const [path, text] of files) {
    if (readIfFile(safeJoin(outDir, path)) === text) unchanged.push(path);
    else stale.push(path);
  }
  for (const old of previouslyGenerated(outDir, source)) if (!files.has(old)) stale.push(old);
  return { written: [], unchanged, removed: [], stale: stale.sort() };
}

/**
 * Writes `files` into `outDir` atomically and removes generated files that are no longer produced.
 * No write follows a link out of `outDir`, nor a folder between `project` (default `outDir`) and `outDir` out of `project`.
 */
export function writeOutput(
  outDir: string,
  files: ReadonlyMap<string, string>,
  source: string,
  onFile?: (path: string, done: number, total: number) => void,
  project: string = outDir,
): OutputReport {
  // Validate every path before touching the disk, so a bad path never leaves a partial write: no
  // folder on the way leads out of the project (an --out outside it is the user's explicit choice),
  // and nothing below --out leads out of --out.
  const within = outDir;
  const targets = [...files].map(([path, text]) => ({ path, text, full: safeJoin(outDir, path) }));
  for (const { full } of targets) {
    checkWritePath(full, { within: project });
    checkWritePath(full, { within });
  }
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const { path, text, full } of targets) {
    onFile?.(path, written.length + unchanged.length, targets.length);
    if (readIfFile(full) === text) {
      unchanged.push(path);
      continue;
    }
    writeFileSafe(full, text, { within });
    written.push(path);
  }
  const removed: string[] = [];
  for (const old of previouslyGenerated(outDir, source)) {
    if (files.has(old)) continue;
    rmSync(safeJoin(outDir, old), { force: true });
    removed.push(old);
  }
  return { written, unchanged, removed, stale: [] };
}

/**
 * Writes `text` to `path` through a temporary file and a rename, so readers never see half a file,
 * and never through a link out of `within` (default: the file's own folder). Missing folders are
 * created. Every file the CLI writes goes through here (the runtime's `writeFileSafe`).
 */
export function writeFileAtomic(path: string, text: string, options: Pick<SafeWriteOptions, "within"> = {}): void {
  writeFileSafe(path, text, options);
}
