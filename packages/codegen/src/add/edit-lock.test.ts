/**
 * The design edit lock: runs take turns, a lock left by a dead process or too old is taken over,
 * a held lock ends the wait with a line naming the owner and the lock file, and release removes
 * only the run's own lock.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireEditLock, editLockPath } from "./edit-lock.js";

const repo = fileURLToPath(new URL("../../../..", import.meta.url));
let dir = "";
let design = "";

beforeEach(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "edit-lock-"));
  design = join(dir, "design.ts");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const owner = (pid: number, at = Date.now()) => JSON.stringify({ pid, host: hostname(), at, token: "someone-else" });

describe("design edit lock", () => {
  it("makes a second run wait until the first releases", async () => {
    const releaseA = await acquireEditLock(design, "design.ts");
    let bHolds = false;
    const b = acquireEditLock(design, "design.ts").then((release) => {
      bHolds = true;
      return release;
    });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(bHolds).toBe(false);
    releaseA();
    const releaseB = await b;
    expect(bHolds).toBe(true);
    releaseB();
    expect(existsSync(editLockPath(design))).toBe(false);
  });

  it("takes over a lock whose process is gone", async () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(editLockPath(design), owner(Number(dead.stdout)));
    const release = await acquireEditLock(design, "design.ts", { waitMs: 60_000 });
    expect(JSON.parse(readFileSync(editLockPath(design), "utf8")).pid).toBe(process.pid);
    release();
    expect(existsSync(editLockPath(design))).toBe(false);
  });

  it("takes over a lock older than staleMs even when its process lives", async () => {
    writeFileSync(editLockPath(design), owner(process.ppid, Date.now() - 11 * 60_000));
    const release = await acquireEditLock(design, "design.ts", { waitMs: 60_000 });
    release();
  });

  it("gives up on a live owner's lock with one line naming the owner and the lock file, and leaves that lock", async () => {
    writeFileSync(editLockPath(design), owner(process.ppid));
    await expect(acquireEditLock(design, "design.ts", { waitMs: 50 })).rejects.toThrow(
      `design.ts: another toolwright run is editing it (pid ${process.ppid}) and did not finish within 0 s; nothing was written. If no other run is going on, delete ${editLockPath(design)}`,
    );
    expect(JSON.parse(readFileSync(editLockPath(design), "utf8")).token).toBe("someone-else");
  });

  it("release leaves a lock that another run took over", async () => {
    const release = await acquireEditLock(design, "design.ts");
    writeFileSync(editLockPath(design), owner(process.ppid));
    release();
    expect(existsSync(editLockPath(design))).toBe(true);
  });
});
