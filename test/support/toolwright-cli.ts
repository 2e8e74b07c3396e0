/**
 * Runs the built `toolwright` CLI (packages/codegen/dist/bin.js) in a child process, the way users
 * run it, with a kill timer so a command that never ends cannot hang the test run.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built CLI entry. */
export const TOOLWRIGHT_CLI = join(fileURLToPath(new URL("../..", import.meta.url)), "packages", "codegen", "dist", "bin.js");

/** How one CLI run ended. */
export interface CliRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  /** stdout and stderr, interleaved as they arrived. */
  readonly output: string;
  /** True when the kill timer had to end the child: the command did not end by itself. */
  readonly killed: boolean;
}

/** Options for `runToolwright`. */
export interface CliRunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Node flags before the script (a memory cap, for instance). */
  readonly nodeArgs?: readonly string[];
  /** Kill the child after this long (default 120 s). */
  readonly killAfterMs?: number;
}

/** Runs `toolwright <argv>` in a child; async so in-process servers keep answering meanwhile. */
export function runToolwright(argv: readonly string[], options: CliRunOptions): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), TOOLWRIGHT_CLI, ...argv], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let killed = false;
    child.stdout.on("data", (c) => {
      output += c;
    });
    child.stderr.on("data", (c) => {
      output += c;
    });
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, options.killAfterMs ?? 120_000);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, output, killed });
    });
  });
}

/** Runs the CLI's `main` in this process with `cwd`, capturing what it prints. */
export async function runMainInProcess(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import("@toolwright/codegen");
  let stdout = "";
  let stderr = "";
  const code = await main([...args], {
    stdout: (t) => {
      stdout += `${t}\n`;
    },
    stderr: (t) => {
      stderr += `${t}\n`;
    },
    cwd,
  });
  return { code, stdout, stderr };
}
