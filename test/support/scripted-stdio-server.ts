/**
 * Test helpers for the scripted stdio server (`scripted-stdio-server.mjs`): how to start it, and a
 * reader for the wire log it writes, so tests can assert on what really went over stdin.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the server script. */
export const SCRIPTED_STDIO_SERVER = fileURLToPath(new URL("./scripted-stdio-server.mjs", import.meta.url));

/** Process-wide behaviour of one scripted server. */
export interface ScriptedServerOptions {
  /** `never`: never answer initialize; `exit`: exit with code 7; `dump-env`: print the env to stderr, then exit 7. */
  readonly init?: "normal" | "never" | "exit" | "dump-env";
  /** Probability that a `tools/call` makes the process exit with code 3. */
  readonly crashRate?: number;
  /** Extra env entries for the caller's env spec (`NAME` or `KEY=VALUE`). */
  readonly env?: readonly string[];
  /** Extra argv after the script path. */
  readonly args?: readonly string[];
}

/** One entry of the wire log. */
export interface WireEntry {
  readonly pid: number;
  readonly event: "start" | "in" | "bad-line";
  readonly msg?: {
    readonly id?: string | number;
    readonly method?: string;
    readonly params?: Record<string, unknown>;
    readonly [k: string]: unknown;
  };
  readonly argv?: readonly string[];
  readonly line?: string;
}

/** A configured scripted server: spread `command`, `args` and `env` into `createStdioCaller`. */
export interface ScriptedServer {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: readonly string[];
  readonly wireLogPath: string;
  /** Every wire entry so far, across restarts. */
  wire(): WireEntry[];
  /** Every pid that started (one per spawn). */
  pids(): number[];
  /** Inbound messages with this method. */
  received(method: string): WireEntry[];
  /** Removes the temporary directory. */
  dispose(): void;
}

/** Prepares a scripted server with its own wire log in a fresh temporary directory. */
export function scriptedServer(options: ScriptedServerOptions = {}): ScriptedServer {
  const dir = mkdtempSync(join(tmpdir(), "tw-scripted-"));
  const wireLogPath = join(dir, "wire.jsonl");
  const env = [`SCRIPTED_WIRE_LOG=${wireLogPath}`, ...(options.env ?? [])];
  if (options.init && options.init !== "normal") env.push(`SCRIPTED_INIT=${options.init}`);
  if (options.crashRate) env.push(`SCRIPTED_CRASH_RATE=${options.crashRate}`);
  const wire = (): WireEntry[] => {
    let raw = "";
    try {
      raw = readFileSync(wireLogPath, "utf8");
    } catch {
      return [];
    }
    return raw
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as WireEntry);
  };
  return {
    command: process.execPath,
    args: [SCRIPTED_STDIO_SERVER, ...(options.args ?? [])],
    env,
    wireLogPath,
    wire,
    pids: () => wire().flatMap((e) => (e.event === "start" ? [e.pid] : [])),
    received: (method) => wire().filter((e) => e.event === "in" && e.msg?.method === method),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
