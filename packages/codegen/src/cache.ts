/**
 * The re-run cache: when the design, every file it imports (the DSL included), its lock, the
 * generator itself and the files on disk are all exactly as the last run left them, `gen` skips
 * loading and generating. Entries live in `node_modules/.cache/toolwright/`, never in `--out`.
 * A design whose output depends on anything else (environment, network) needs `--no-cache`.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, parse, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { lockPathFor } from "./resolve/lock.js";
import type { TokenBill } from "./tokens/bill.js";
import { previouslyGenerated, safeJoin, writeFileAtomic } from "./write.js";

/** What a cache entry records. */
export interface CacheEntry {
  readonly version: 1;
  readonly generator: string;
  /** The design label printed in headers (depends on the working directory). */
  readonly source: string;
  /** Absolute input path → content hash ("" when the file did not exist). */
  readonly inputs: { readonly [path: string]: string };
  /** Output path (relative to --out) → content hash. */
  readonly outputs: { readonly [path: string]: string };
  readonly toolsets: number;
  readonly tools: number;
  readonly agents: number;
  readonly servers: number;
  /** Local inputs relative to cwd (for --watch). */
  readonly localInputs: readonly string[];
  /** The token bill of the run (a cached run reports it too). */
  readonly bill?: TokenBill;
}

function sha(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

function hashFile(path: string): string {
  try {
    return sha(readFileSync(path));
  } catch {
    return "";
  }
}

let generatorId: string | undefined;

/** Identifies this generator build: its own files (sizes, mtimes) and the versions of its printers. */
export function generatorFingerprint(): string {
  if (generatorId !== undefined) return generatorId;
  const root = dirname(fileURLToPath(import.meta.url));
  const parts: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.(js|ts)$/.test(e.name) && !/\.test\.|\.map$/.test(e.name)) {
        const st = statSync(full);
        parts.push(`${full}:${st.size}:${st.mtimeMs}`);
      }
    }
  };
  walk(root);
  const require = createRequire(import.meta.url);
  for (const pkg of ["ajv", "ajv-formats", "json-schema-to-typescript", "tsx"]) {
    let manifest = "";
    try {
      manifest = hashFile(require.resolve(`${pkg}/package.json`));
    } catch {
      // Not resolvable through exports: the generator's own files still identify the build.
    }
    parts.push(`${pkg}@${manifest}`);
  }
  generatorId = sha(parts.join("\n"));
  return generatorId;
}

/** The cache file for one (design, out) pair, under the nearest `node_modules`; `undefined` if none. */
export function cachePath(designPath: string, outDir: string): string | undefined {
  let dir = dirname(designPath);
  for (;;) {
    const nm = join(dir, "node_modules");
    if (existsSync(nm)) return join(nm, ".cache", "toolwright", `${sha(`${designPath}\0${resolve(outDir)}`).slice(0, 24)}.json`);
    const up = dirname(dir);
    if (up === dir || dir === parse(dir).root) return undefined;
    dir = up;
  }
}

/** The cached entry if every input, the generator and every output are unchanged; else `undefined`. */
export function freshEntry(designPath: string, outDir: string, source: string): CacheEntry | undefined {
  const file = cachePath(designPath, outDir);
  if (file === undefined || !existsSync(file)) return undefined;
  let entry: CacheEntry;
  try {
    entry = JSON.parse(readFileSync(file, "utf8")) as CacheEntry;
  } catch {
    return undefined;
  }
  if (entry.version !== 1 || entry.generator !== generatorFingerprint() || entry.source !== source) return undefined;
  for (const [path, hash] of Object.entries(entry.inputs)) if (hashFile(path) !== hash) return undefined;
  for (const [path, hash] of Object.entries(entry.outputs)) if (hashFile(safeJoin(outDir, path)) !== hash) return undefined;
  const onDisk = previouslyGenerated(outDir, source);
  const expected = Object.keys(entry.outputs).sort();
  if (onDisk.length !== expected.length || onDisk.some((p, i) => p !== expected[i])) return undefined;
  return entry;
}

/** Records a completed run. Failures to write the cache are ignored: it is only a speed-up. */
export function saveEntry(
  designPath: string,
  outDir: string,
  run: {
    source: string;
    allInputs: readonly string[];
    files: ReadonlyMap<string, string>;
    toolsets: number;
    tools: number;
    agents: number;
    servers: number;
    localInputs: readonly string[];
    bill: TokenBill;
  },
): void {
  const file = cachePath(designPath, outDir);
  if (file === undefined) return;
  const inputs: { [path: string]: string } = {};
  for (const path of [...run.allInputs, lockPathFor(designPath)]) inputs[path] = hashFile(path);
  const outputs: { [path: string]: string } = {};
  for (const [path, text] of run.files) outputs[path] = sha(text);
  const entry: CacheEntry = {
    version: 1,
    generator: generatorFingerprint(),
    source: run.source,
    inputs,
    outputs,
    toolsets: run.toolsets,
    tools: run.tools,
    agents: run.agents,
    servers: run.servers,
    localInputs: run.localInputs,
    bill: run.bill,
  };
  try {
    // Never through a link out of node_modules (the cache folder is created inside it).
    writeFileAtomic(file, JSON.stringify(entry), { within: dirname(dirname(dirname(file))) });
  } catch {
    // A read-only node_modules only costs speed.
  }
}
