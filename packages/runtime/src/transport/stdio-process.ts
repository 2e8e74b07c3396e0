/**
 * One child process speaking newline-delimited JSON-RPC. Spawned without a shell, in its own
 * process group, with an allowlisted environment. stderr is kept in a bounded ring.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { WireFault } from "../failure/wire-fault.js";
import type { RpcMessage } from "../protocol/json-rpc.js";
import { buildChildEnv, type EnvSpec } from "./environment.js";
import { createLineReader } from "./line-reader.js";
import { collectDescendants, type ProcessTree, signalTree } from "./process-tree.js";

/** How to start a stdio server. */
export interface StdioProcessOptions {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: EnvSpec;
  readonly cwd?: string;
  /** Largest inbound message, in bytes. Default 16 MiB. */
  readonly maxMessageBytes?: number;
  /** How much stderr to keep, in bytes. Default 8 KiB. */
  readonly stderrBytes?: number;
  /** Grace periods for close: after stdin ends, then after SIGTERM. Default 1000 ms each. */
  readonly closeGraceMs?: number;
}

/** Callbacks from the process. */
export interface StdioProcessEvents {
  readonly onMessage: (value: unknown) => void;
  readonly onNoise: (reason: string, kind: "garbage" | "oversize") => void;
  /** An oversized line ended; `id` is the request it answered, when it could be found. */
  readonly onOversizeEnd?: (info: { readonly bytes: number; readonly id?: string | number }) => void;
  /** The process is gone (exit, spawn error). Called once. */
  readonly onExit: (fault: WireFault) => void;
  /**
   * `send` found stdin gone before the exit was seen (EPIPE after a crash); called before it throws.
   * `onMessage` and this are read when each event happens, so they may be set after the start.
   */
  readonly onUnwritable?: () => void;
}

/** A running child. */
export interface StdioProcess {
  readonly pid: number | undefined;
  /** Queues one message; throws (with a `fault`) when the process cannot take it. Needs no `this`. */
  send(message: RpcMessage): void;
  stderrTail(): string;
  /**
   * stdin, then SIGTERM, then SIGKILL, for the whole process group and (Linux) every descendant
   * seen while the server lived, even in its own session. Resolves when the server is gone.
   */
  close(): Promise<void>;
}

/**
 * The last `limit` bytes of stderr: what a failure shows of why a server died. Bounded, because a
 * chatty server would otherwise grow it for as long as it runs.
 */
// A class: its methods live on the prototype, not in closures of every child (docs/performance.md, "Heap").
class StderrRing {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  push(chunk: Buffer): void {
    const { limit } = this;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > limit && this.chunks.length > 1) this.size -= (this.chunks.shift() as Buffer).length;
    if (this.size > limit) {
      const only = this.chunks[0] as Buffer;
      this.chunks = [only.subarray(only.length - limit)];
      this.size = limit;
    }
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** One listener for every child's stdin errors (they surface through "close"). */
const ignore = (): void => {};

/** Signals the child's whole process group (a negative pid), falling back to the child alone when there is no group. */
function killGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Spawns a stdio MCP server. Spawn failures are reported through `onExit`, never thrown. */
export function startStdioProcess(options: StdioProcessOptions, events: StdioProcessEvents): StdioProcess {
  const stderr = new StderrRing(options.stderrBytes ?? 8192);
  const grace = options.closeGraceMs ?? 1000;
  const child = spawn(options.command, [...(options.args ?? [])], {
    env: buildChildEnv(options.env),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: ["pipe", "pipe", "pipe"],
    // No shell: arguments from a config file are never parsed as shell syntax.
    shell: false,
    // Its own process group, so close() can signal the server and everything it started at once
    // (npx and uvx wrappers start the real server as a grandchild).
    detached: true,
    windowsHide: true,
  });
  let exited = false;
  let spawnError: NodeJS.ErrnoException | undefined;
  const gone = new Promise<void>((resolve) => {
    const finish = (fault: WireFault) => {
      if (exited) return;
      exited = true;
      resolve();
      events.onExit(fault);
    };
    child.once("error", (error: NodeJS.ErrnoException) => {
      spawnError = error;
      // A spawn failure emits "error" and no "close"; a later error (EPIPE) comes with a close.
      if (child.pid === undefined) {
        finish({
          type: "transport",
          code: error.code ?? "ESPAWN",
          message: `cannot start ${options.command}: ${error.message}`,
          stderrTail: stderr.text(),
        });
      }
    });
    child.once("close", (code, signal) => {
      finish({
        type: "transport",
        code: "EXIT",
        message: `server process exited (${signal ? `signal ${signal}` : `code ${code}`})${stdoutEnded && signal === "SIGKILL" ? " after it closed stdout" : ""}`,
        exitCode: code,
        signal,
        stderrTail: stderr.text(),
      });
    });
  });
  // Descendants noted by close(). When the leader exits, what is left of its group and its noted
  // helpers is killed at once: they may hold its stdout open, which would delay "close".
  // Made by the first close(): a server that is never closed by us never needs it.
  let tree: ProcessTree | undefined;
  child.once("exit", () => {
    killGroup(child, "SIGKILL");
    if (tree) signalTree(tree, "SIGKILL");
  });
  const reader = createLineReader(options.maxMessageBytes ?? 16 * 1024 * 1024, events);
  // The reader is the listener itself (its push needs no `this`): one frame less per answer.
  child.stdout.on("data", reader.push);
  // A server that closed stdout can never answer again: give it the grace period to exit on its own,
  // then stop it, so in-flight calls fail and the next call restarts it instead of timing out forever.
  let stdoutEnded = false;
  child.stdout.once("end", () => {
    stdoutEnded = true;
    const timer = setTimeout(() => {
      if (!exited) killGroup(child, "SIGKILL");
    }, grace);
    void gone.then(() => clearTimeout(timer));
  });
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  // Write errors (EPIPE after a crash) surface through "close"; never let them throw.
  child.stdin.on("error", ignore);
  // Messages sent in the same tick are joined and leave in one write on the next tick: far fewer
  // syscalls and stream calls under concurrent load, same bytes in the same order.
  let outbox = "";
  let flushQueued = false;
  const flush = () => {
    flushQueued = false;
    if (outbox === "") return;
    const data = outbox;
    outbox = "";
    child.stdin.write(data);
  };

  return {
    // A data property, not a getter: the pid is set at spawn and never changes, and an object literal
    // with a getter is kept in dictionary mode (about 450 bytes per child).
    pid: child.pid,
    send(message) {
      if (exited || spawnError || !child.stdin.writable) {
        events.onUnwritable?.();
        const error = new Error("server process is not running") as Error & { fault: WireFault };
        error.fault = { type: "transport", code: "ECLOSED", message: "server process is not running", stderrTail: stderr.text() };
        throw error;
      }
      outbox += `${JSON.stringify(message)}\n`;
      if (!flushQueued) {
        flushQueued = true;
        process.nextTick(flush);
      }
    },
    stderrTail: () => stderr.text(),
    async close() {
      if (exited) return;
      // Helpers the server started in their own session escape the group kill: note them now,
      // while they are still its descendants, and again at each step (they may start late).
      tree ??= new Map();
      const noted = tree;
      collectDescendants(child.pid, noted);
      // The MCP lifecycle's stdio shutdown: close its stdin and let it exit, then SIGTERM, then SIGKILL.
      flush();
      child.stdin.end();
      const step = (signal: NodeJS.Signals) => {
        collectDescendants(child.pid, noted);
        killGroup(child, signal);
        signalTree(noted, signal);
      };
      const timers: ReturnType<typeof setTimeout>[] = [];
      timers.push(setTimeout(() => step("SIGTERM"), grace));
      timers.push(setTimeout(() => step("SIGKILL"), grace * 2));
      await gone;
      for (const t of timers) clearTimeout(t);
      // The leader is gone; make sure no grandchild of its group, nor one it detached, survives it.
      killGroup(child, "SIGKILL");
      signalTree(noted, "SIGKILL");
    },
  };
}
