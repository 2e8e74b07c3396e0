/**
 * Leak checks for fault suites: child processes (by pid and by process group, read from /proc),
 * active handles (`process.getActiveResourcesInfo()` against a baseline), `process` listeners
 * left behind, and MaxListenersExceeded warnings.
 */
import { readdirSync, readFileSync } from "node:fs";

/** What is still alive after a suite. Every list must be empty. */
export interface LeakReport {
  /** Tracked processes (or members of their process groups) still running, as `pid (state) cmd`. */
  readonly processes: readonly string[];
  /** Handle types with more live instances than at the baseline, as `Type +n`. */
  readonly handles: readonly string[];
  /** MaxListenersExceeded and other listener-leak warnings seen since the check started. */
  readonly warnings: readonly string[];
  /** `process` events with more listeners than at the baseline (exit hooks left behind), as `event +n`. */
  readonly listeners: readonly string[];
}

/** A leak check started before a suite. */
export interface LeakCheck {
  /** Pids of children the suite started; their process groups are checked too. */
  track(pids: Iterable<number | undefined>): void;
  /** Waits (bounded) for things to settle, then reports what is still alive. */
  check(): Promise<LeakReport>;
  /** Stops listening for warnings. */
  dispose(): void;
}

interface ProcInfo {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly name: string;
}

function readProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    const [state = "?", ppid = "0", pgrp = "0"] = stat
      .slice(close + 2)
      .split(" ")
      .slice(0, 3);
    out.push({ pid: Number(entry), state, ppid: Number(ppid), pgrp: Number(pgrp), name });
  }
  return out;
}

function countListeners(): Map<string | symbol, number> {
  return new Map(process.eventNames().map((name) => [name, process.listenerCount(name)]));
}

function countHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Live processes that are tracked, in a tracked process group, or children of this process. */
export function liveProcesses(pids: ReadonlySet<number>): string[] {
  return readProcs()
    .filter((p) => p.state !== "Z" && p.pid !== process.pid)
    .filter((p) => pids.has(p.pid) || pids.has(p.pgrp) || p.ppid === process.pid)
    .map((p) => `${p.pid} (${p.state}) ${p.name}`);
}

/** True when the pid is running (zombies count as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Starts a leak check: call in `beforeAll`, then `check()` in `afterAll` after closing everything. */
export function createLeakCheck(): LeakCheck {
  const baseline = countHandles();
  const baselineListeners = countListeners();
  const pids = new Set<number>();
  const warnings: string[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === "MaxListenersExceededWarning" || /listener/i.test(warning.message))
      warnings.push(`${warning.name}: ${warning.message}`);
  };
  process.on("warning", onWarning);

  function report(): LeakReport {
    const handles: string[] = [];
    for (const [type, count] of countHandles()) {
      const extra = count - (baseline.get(type) ?? 0);
      if (extra > 0) handles.push(`${type} +${extra}`);
    }
    const listeners: string[] = [];
    for (const [name, count] of countListeners()) {
      // Our own warning listener is the one expected extra.
      const extra = count - (baselineListeners.get(name) ?? 0) - (name === "warning" ? 1 : 0);
      if (extra > 0) listeners.push(`${String(name)} +${extra}`);
    }
    return { processes: liveProcesses(pids), handles, warnings: [...warnings], listeners };
  }

  return {
    track(more) {
      for (const pid of more) if (pid !== undefined) pids.add(pid);
    },
    async check() {
      // Give exit events and socket closes a bounded moment to land.
      let last = report();
      for (let i = 0; i < 500 && (last.processes.length > 0 || last.handles.length > 0 || last.listeners.length > 0); i++) {
        await sleep(20);
        last = report();
      }
      return last;
    },
    dispose() {
      process.off("warning", onWarning);
    },
  };
}
