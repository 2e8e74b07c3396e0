/**
 * An exclusive lock for editing one design file, so concurrent `toolwright add` runs take turns
 * instead of overwriting each other's edits. The lock is a file next to the design
 * (`.design.ts.toolwright-lock`) created with `wx` (fails when it exists), holding the owner's
 * pid, host and start time. A lock whose owner is gone (same host, pid not running) or that is
 * older than `staleMs` is taken over. The lock only makes runs take turns; the edit itself is
 * also checked before it is written (see `add.ts`), so a lock taken over by mistake, or an editor
 * that does not take the lock, cannot make an overwritten edit look successful.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { FileError } from "../errors.js";

/** Options for `acquireEditLock`; the defaults suit an interactive `add`. */
export interface EditLockOptions {
  /** Give up after waiting this long for another run's lock (default 120 s). */
  readonly waitMs?: number;
  /** A lock older than this is taken over even when its owner seems alive (default 10 min). */
  readonly staleMs?: number;
}

/** The lock file's content. */
interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly at: number;
  readonly token: string;
}

/** The lock file path for `designPath`: hidden, next to the design, so it is on the same file system. */
export function editLockPath(designPath: string): string {
  return join(dirname(designPath), `.${basename(designPath)}.toolwright-lock`);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readText(path) ?? "") as Partial<LockOwner>;
    if (typeof owner.pid === "number" && typeof owner.host === "string" && typeof owner.at === "number" && typeof owner.token === "string")
      return owner as LockOwner;
  } catch {
    // Being written right now, or not ours: judged by its age below.
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Why the lock at `path` may be taken over, or `undefined` while its owner may still be working. */
function staleReason(path: string, staleMs: number): string | undefined {
  const owner = readOwner(path);
  let at = owner?.at;
  if (at === undefined) {
    try {
      at = statSync(path).mtimeMs;
    } catch {
      return "gone"; // Released meanwhile: just try again.
    }
  }
  if (owner && owner.host === hostname() && owner.pid !== process.pid && !alive(owner.pid)) return `pid ${owner.pid} is not running`;
  if (Date.now() - at > staleMs) return `older than ${Math.round(staleMs / 1000)} s`;
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Takes the edit lock of `designPath`, waiting for another run to release it. Returns the release
 * function (removes the lock only while it is still ours). Throws `FileError` naming the design,
 * the owner and the lock file when the wait runs out.
 */
export async function acquireEditLock(designPath: string, label: string, options: EditLockOptions = {}): Promise<() => void> {
  const path = editLockPath(designPath);
  const waitMs = options.waitMs ?? 120_000;
  const staleMs = options.staleMs ?? 600_000;
  const token = randomBytes(8).toString("hex");
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx");
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), token } satisfies LockOwner));
      } finally {
        closeSync(fd);
      }
      return () => {
        // Only our own lock: after a takeover the file may be another run's.
        if (readOwner(path)?.token === token) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const before = readText(path);
    if (before === undefined) continue; // Released meanwhile.
    if (staleReason(path, staleMs) !== undefined) {
      // Remove it only if it is still the lock judged stale, not one a faster run just created.
      if (readText(path) === before) rmSync(path, { force: true });
      continue;
    }
    if (Date.now() - started > waitMs) {
      const owner = readOwner(path);
      throw new FileError(
        label,
        `another toolwright run is editing it${owner ? ` (pid ${owner.pid})` : ""} and did not finish within ${Math.round(waitMs / 1000)} s; nothing was written. If no other run is going on, delete ${path}`,
      );
    }
    // Jittered, growing pause so waiting runs do not poll in step.
    await sleep(Math.min(250, 10 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random()));
  }
}
