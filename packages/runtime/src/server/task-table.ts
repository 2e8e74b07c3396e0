/**
 * The one table of server tasks, whatever the revision: a bounded, prototype-free Map of
 * `TaskRecord`s, each forgotten (and aborted) at its ttl. The two task flows — 2025-11-25
 * (legacy-tasks.ts, per session) and the 2026-07-28 extension (task-server.ts, per server) — keep
 * their tasks here; the revision folders give a record its wire shape (`Revision.taskStatus`).
 */
import type { TaskRecord } from "../revisions/registry.js";

/** Poll interval suggested to clients, ms. */
const POLL_INTERVAL_MS = 250;

/** A table of task records of type `T` (a `TaskRecord` plus a flow's own bookkeeping). */
export interface TaskTable<T extends TaskRecord> {
  /** Makes a record from `fields` and keeps it for `ttlMs`; at the ttl, `expire(task)` runs and the task is forgotten. */
  add(ttlMs: number, fields: Omit<T, keyof TaskRecord>, expire: (task: T) => void): T;
  get(taskId: unknown): T | undefined;
  values(): IterableIterator<T>;
  readonly size: number;
}

/** True for the statuses a task never leaves. */
export function terminalStatus(status: TaskRecord["status"]): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** Creates an empty task table. */
export function createTaskTable<T extends TaskRecord>(): TaskTable<T> {
  const tasks = new Map<string, T>();
  return {
    add(ttlMs, fields, expire) {
      const now = new Date().toISOString();
      const task = {
        ...fields,
        taskId: globalThis.crypto.randomUUID(),
        status: "working",
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs,
        pollIntervalMs: POLL_INTERVAL_MS,
        controller: new AbortController(),
      } as T;
      tasks.set(task.taskId, task);
      const expiry = setTimeout(() => {
        expire(task);
        tasks.delete(task.taskId);
      }, ttlMs);
      // A pending expiry must not keep the process alive after the server closes.
      expiry.unref?.();
      return task;
    },
    get: (taskId) => (typeof taskId === "string" ? tasks.get(taskId) : undefined),
    values: () => tasks.values(),
    get size() {
      return tasks.size;
    },
  };
}
