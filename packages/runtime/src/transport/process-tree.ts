/**
 * The descendants of a child process, read from Linux `/proc`. A server may start helpers in their
 * own session or process group (`setsid`, `detached`, browsers), which a group kill misses; their
 * pids are collected while the server still lives, then signalled after it is gone. Each pid is
 * kept with its start time, so a pid the kernel reused for another process is never signalled.
 * Elsewhere (no `/proc`) nothing is collected and only the process group is killed.
 */
import { readdirSync, readFileSync } from "node:fs";

/** pid → start time (clock ticks since boot, field 22 of `/proc/<pid>/stat`). */
export type ProcessTree = Map<number, string>;

interface Stat {
  readonly ppid: number;
  readonly start: string;
}

function readStat(pid: number | string): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // gone, or no /proc
  }
  // The command name may hold spaces and parentheses: fields start after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const ppid = Number(fields[1]);
  const start = fields[19];
  return Number.isInteger(ppid) && start !== undefined ? { ppid, start } : undefined;
}

/** Adds every live descendant of `root` (children, grandchildren...) to `into`. Bounded; never throws. */
export function collectDescendants(root: number | undefined, into: ProcessTree): ProcessTree {
  if (root === undefined || process.platform !== "linux") return into;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return into;
  }
  const children = new Map<number, number[]>();
  const stats = new Map<number, Stat>();
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const stat = readStat(entry);
    if (!stat) continue;
    const pid = Number(entry);
    stats.set(pid, stat);
    const list = children.get(stat.ppid);
    if (list) list.push(pid);
    else children.set(stat.ppid, [pid]);
  }
  const queue = [root];
  for (let i = 0; i < queue.length && i < 100_000; i++) {
    for (const pid of children.get(queue[i] as number) ?? []) {
      if (into.has(pid) && into.get(pid) === stats.get(pid)?.start) continue;
      into.set(pid, (stats.get(pid) as Stat).start);
      queue.push(pid);
    }
  }
  return into;
}

/** Sends `signal` to each collected process that still is the process we saw (same start time). */
export function signalTree(tree: ProcessTree, signal: NodeJS.Signals): void {
  for (const [pid, start] of tree) {
    if (readStat(pid)?.start !== start) {
      tree.delete(pid); // exited, or the pid now belongs to someone else
      continue;
    }
    try {
      process.kill(pid, signal);
    } catch {
      tree.delete(pid);
    }
  }
}
