/**
 * Helpers for the product tests: pack the workspaces as npm would publish them, run commands
 * without a shell on the Node that runs the suite, and read the README's Install lines.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The environment for children: the Node running this suite (20, 22 or 24) comes first on PATH, and
 * no `npm_*` variable from an enclosing `npm test` (its `npm_config_local_prefix` would point npm
 * at the repository instead of the temp project).
 */
export const CHILD_ENV: { readonly [name: string]: string } = Object.fromEntries([
  ...Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0])),
  ["PATH", `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`],
]);

/**
 * A `--import` URL that names every module the process loads on stderr (`LOADED <url>`). Where Node
 * has the in-thread `registerHooks` (22.15+, 24) it is used, and it sees require() too: on Node 24 the
 * off-thread `register` hooks' writes are lost when a quick command such as --version exits.
 */
export const LOAD_HOOK_IMPORT = (() => {
  const hook = "export async function load(url, context, next) { process.stderr.write(`LOADED ${url}\\n`); return next(url, context); }";
  const setup = [
    'import * as m from "node:module";',
    "const load = (url, context, next) => { process.stderr.write(`LOADED ${url}\\n`); return next(url, context); };",
    `if (typeof m.registerHooks === "function") m.registerHooks({ load }); else m.register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`,
  ].join("\n");
  return `data:text/javascript,${encodeURIComponent(setup)}`;
})();

/** What a finished child printed and how it ended. */
export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs `command args` in `cwd` (no shell) with a hard deadline and `CHILD_ENV` plus `env`; never rejects. */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = 120_000,
  env: { readonly [name: string]: string } = {},
): Promise<RunResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...CHILD_ENV, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const finish = (code: number | null, extra = "") => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr: stderr + extra, ms: Math.round(performance.now() - started) });
    };
    child.on("error", (error) => finish(null, `\nspawn failed: ${error.message}`));
    child.on("close", (code) => finish(code));
  });
}

/**
 * The packages brought to the publishing standard (folder names under packages/). A new workspace
 * joins once it has its LICENSE, README, CHANGELOG and metadata.
 */
export const PUBLISHED: readonly string[] = ["dsl", "runtime", "codegen", "ai-sdk", "langchain", "dbos", "code-mode", "testkit", "vault"];

/** One packed workspace: its tarball and the files in it. */
export interface PackedPackage {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly string[];
}

/**
 * `npm pack`s every workspace package (built already: `npm test` builds first) into `dest`. The
 * tarballs of one build are packed once per run and copied from `.tmp/packed/<fingerprint>/`:
 * seven product suites install them, and packing nine workspaces costs about 10 s each time. The
 * fingerprint covers every file a tarball can hold (manifest, dist, README, LICENSE, CHANGELOG), so
 * a rebuild packs again.
 */
export async function packWorkspaces(dest: string): Promise<readonly PackedPackage[]> {
  const cache = join(REPO, ".tmp", "packed", packFingerprint());
  if (!existsSync(join(cache, "packed.json"))) {
    mkdirSync(dirname(cache), { recursive: true });
    const staging = mkdtempSync(`${cache}-staging-`);
    const r = await run("npm", ["pack", "--workspaces", "--json", "--pack-destination", staging], REPO);
    if (r.code !== 0) throw new Error(`npm pack failed (exit ${r.code}): ${r.stderr}`);
    writeFileSync(join(staging, "packed.json"), r.stdout);
    try {
      // Atomic: two suites packing at once both finish, and the first rename wins.
      renameSync(staging, cache);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const packed = JSON.parse(readFileSync(join(cache, "packed.json"), "utf8")) as {
    name: string;
    version: string;
    filename: string;
    size: number;
    unpackedSize: number;
    files: { path: string }[];
  }[];
  mkdirSync(dest, { recursive: true });
  for (const p of packed) copyFileSync(join(cache, p.filename), join(dest, p.filename));
  return packed.map((p) => ({ ...p, files: p.files.map((f) => f.path) }));
}

/** A hash of every workspace file `npm pack` could put in a tarball: path, size and mtime. */
function packFingerprint(): string {
  const hash = createHash("sha256");
  for (const folder of readdirSync(join(REPO, "packages")).sort()) {
    const root = join(REPO, "packages", folder);
    if (!existsSync(join(root, "package.json"))) continue;
    for (const name of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "dist"]) {
      const path = join(root, name);
      if (!existsSync(path)) continue;
      const files = statSync(path).isDirectory() ? listFiles(path).map((f) => join(path, f)) : [path];
      for (const f of files) {
        const st = statSync(f);
        hash.update(`${f}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  }
  return hash.digest("hex").slice(0, 16);
}

/** The command lines of the README's tarball Install block (the ```bash block under "## Install" that installs `.tgz` files). */
export function readmeInstallLines(): readonly string[] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("Install"));
  const blocks = [...(section ?? "").matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  const block = blocks.find((b) => b.includes(".tgz"));
  if (block === undefined) throw new Error("README.md has no ```bash block installing the tarballs under ## Install");
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** Flags for every `npm install` the product tests run: quiet, offline when the cache allows. */
export const NPM_FLAGS: readonly string[] = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];

/** One README Install line as it ran. */
export interface InstallStep {
  readonly line: string;
  readonly result: RunResult;
}

/**
 * Runs the README's tarball Install lines one by one in `app` (the empty folder next to the
 * tarballs), each of which must run npm or npx and exit 0; throws naming the line and its output.
 */
export async function runReadmeInstall(app: string): Promise<readonly InstallStep[]> {
  const steps: InstallStep[] = [];
  for (const line of readmeInstallLines()) {
    const [command, ...args] = line.split(/\s+/);
    if (command !== "npm" && command !== "npx") throw new Error(`README Install line runs neither npm nor npx: ${line}`);
    const flags = command === "npm" && args[0] === "install" ? NPM_FLAGS : [];
    const result = await run(command, [...args, ...flags], app, 300_000);
    if (result.code !== 0) throw new Error(`README Install line failed: ${line}\n${result.stdout}\n${result.stderr}`);
    steps.push({ line, result });
  }
  return steps;
}

/** Total size in bytes of the files under `dir` (symlinks not followed). */
export function folderSize(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  }
  return total;
}

/** Every file under `dir` (relative, `/`-separated, sorted), not descending into folders named `skip`. */
export function listFiles(dir: string, skip: readonly string[] = ["node_modules"]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!skip.includes(e.name)) walk(path);
      } else out.push(path);
    }
  };
  walk("");
  return out.sort();
}

/**
 * Copies the workspace package in packages/`folder` (its package.json and the `files` it publishes)
 * to `nodeModules`/<name>: copied, not linked, so nothing can find the repository's `@types/node`
 * by walking up from a symlink's real path.
 */
export function copyPackage(folder: string, nodeModules: string): void {
  const from = join(REPO, "packages", folder);
  const manifest = JSON.parse(readFileSync(join(from, "package.json"), "utf8")) as { name: string; files: string[] };
  const target = join(nodeModules, ...manifest.name.split("/"));
  mkdirSync(target, { recursive: true });
  for (const f of ["package.json", ...manifest.files.filter((f) => !f.startsWith("!"))])
    cpSync(join(from, f), join(target, f), { recursive: true });
}

/** What a user would put in tsconfig.json: strict, NodeNext, and the packages' own .d.ts checked too. */
export const USER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: false,
    rootDir: "src",
    outDir: "dist",
  },
  include: ["src/**/*.ts"],
};
