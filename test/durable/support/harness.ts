/**
 * Helpers for the durable crash tests: worker processes (real DBOS, real PostgreSQL, a real stdio
 * MCP server each), the ledger of side effects the servers wrote, and bounded waits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isAlive } from "../../support/leak-check.js";

const workerScript = fileURLToPath(new URL("./worker.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** A spawned worker process. */
export interface WorkerProcess {
  readonly executorId: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves once DBOS launched and the worker heartbeats. */
  readonly ready: Promise<void>;
  /** Resolves with the exit code (or signal name). */
  readonly exited: Promise<number | string>;
  /** Executor ids this worker took over. */
  readonly takeovers: string[];
  output(): string;
  kill(signal?: NodeJS.Signals): void;
}

/** Options of `spawnWorker`. */
export interface SpawnWorkerOptions {
  readonly databaseUrl: string;
  readonly executorId: string;
  readonly ledgerFile: string;
  /** The worker script. Default `./worker.ts` (the scripted ledger agents). */
  readonly script?: string;
  readonly env?: { readonly [key: string]: string };
}

/** Starts a worker; its environment is only what it needs (plus PATH and HOME). */
export function spawnWorker(options: SpawnWorkerOptions): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", options.script ?? workerScript], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      TW_DB_URL: options.databaseUrl,
      TW_EXECUTOR: options.executorId,
      LEDGER_FILE: options.ledgerFile,
      ...options.env,
    },
  });
  let out = "";
  const takeovers: string[] = [];
  let markReady: () => void = () => undefined;
  let failReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  const onLine = (line: string) => {
    if (!line.startsWith("{")) return;
    try {
      const message = JSON.parse(line) as { ready?: string; takeover?: string };
      if (message.ready) markReady();
      if (message.takeover) takeovers.push(message.takeover);
    } catch {
      // a log line
    }
  };
  let pending = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    pending += chunk;
    for (let at = pending.indexOf("\n"); at >= 0; at = pending.indexOf("\n")) {
      onLine(pending.slice(0, at).trim());
      pending = pending.slice(at + 1);
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    if (out.length > 200_000) out = out.slice(-100_000);
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      failReady(new Error(`worker ${options.executorId} exited (${code ?? signal}) before it was ready:\n${out.slice(-4000)}`));
      resolve(code ?? signal ?? "unknown");
    });
  });
  ready.catch(() => undefined);
  return {
    executorId: options.executorId,
    child,
    pid: child.pid ?? -1,
    ready,
    exited,
    takeovers,
    output: () => out,
    kill: (signal = "SIGKILL") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Stops workers: closes stdin (graceful), then SIGKILL after `graceMs`; waits for every exit. */
export async function stopWorkers(workers: readonly WorkerProcess[], graceMs = 10_000): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return;
      w.child.stdin?.end();
      const timer = setTimeout(() => w.kill("SIGKILL"), graceMs);
      await w.exited;
      clearTimeout(timer);
    }),
  );
}

/** One line of a ledger file. */
export interface LedgerEntry {
  readonly kind: "started" | "call" | "answered" | "paused" | "approval-requested";
  readonly pid?: number;
  readonly owner?: string;
  /** LEDGER_CREDENTIAL of the server that wrote it: `cred:<agent>` of the agent whose caller started it. */
  readonly cred?: string;
  readonly tool?: string;
  readonly text?: string;
  readonly key?: string | null;
  readonly run?: string;
  /** Epoch ms when the server received it (this machine's clock). */
  readonly at?: number;
}

/** Reads a ledger (an unfinished last line, from a process killed mid-write, is ignored). */
export function readLedger(file: string): LedgerEntry[] {
  if (!existsSync(file)) return [];
  const out: LedgerEntry[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as LedgerEntry);
    } catch {
      // torn final line
    }
  }
  return out;
}

const SIDE_EFFECTING = new Set(["append", "wipe"]);

/** Counts side effects per idempotency key and the duplicates among non-idempotent tools. */
export function tally(entries: readonly LedgerEntry[]) {
  const perKey = new Map<string, { tool: string; count: number }>();
  for (const e of entries) {
    if (e.kind !== "call" || !e.key || !e.tool) continue;
    const slot = perKey.get(e.key) ?? { tool: e.tool, count: 0 };
    slot.count++;
    perKey.set(e.key, slot);
  }
  const duplicated = [...perKey]
    .filter(([, v]) => SIDE_EFFECTING.has(v.tool) && v.count > 1)
    .map(([k, v]) => `${k} (${v.tool} ×${v.count})`);
  const serverPids = entries.filter((e) => e.kind === "started" && e.pid !== undefined).map((e) => e.pid as number);
  return { perKey, duplicated, serverPids };
}

/** Polls `check` every 25 ms until it returns a value other than undefined/false; throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => T | undefined | false | Promise<T | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Pids among `pids` still running. */
export function stillRunning(pids: Iterable<number>): number[] {
  return [...pids].filter((pid) => pid > 0 && isAlive(pid));
}
