/**
 * Child processes for the benchmark: a minimal environment, a hard timeout, and a registry so that
 * every child is killed when the run ends, even on Ctrl-C.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

const live = new Set<ChildProcess>();

/** The environment every child gets: PATH and HOME only (no NODE_OPTIONS, no NODE_EXTRA_CA_CERTS). */
export function minimalEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["PATH", "HOME"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** What a finished child left. */
export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Spawn to exit, in ms. */
  readonly wallMs: number;
}

/** Runs a command to completion; kills it (and fails) after `timeoutMs`. */
export function run(command: string, args: readonly string[], options: { cwd?: string; timeoutMs?: number; pinned?: boolean } = {}) {
  const [cmd, argv] = options.pinned ? ["taskset", ["-c", "0", command, ...args]] : [command, [...args]];
  return new Promise<Finished>((resolve, reject) => {
    const start = performance.now();
    const child = spawn(cmd as string, argv as string[], { env: minimalEnv(), cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    live.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr?.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ").slice(0, 200)} timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs ?? 180_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(error);
    });
    child.once("close", (code) => {
      const wallMs = performance.now() - start;
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr, wallMs });
    });
  });
}

/** Kills every child still running. */
export function killAll(): void {
  for (const child of live) child.kill("SIGKILL");
  live.clear();
}

/** Number of children still running (0 at the end of a clean run). */
export function liveChildren(): number {
  return live.size;
}

/** Parses the `RESULT {...}` line a worker prints. */
export function parseResult<T>(finished: Finished, what: string): T {
  const line = finished.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (finished.code !== 0 || !line) {
    throw new Error(`${what} failed (exit ${finished.code}): ${finished.stderr.slice(-800)}`);
  }
  return JSON.parse(line.slice(7)) as T;
}
