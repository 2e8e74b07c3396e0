/**
 * Server side of the 2025-11-25 experimental tasks: a `tools/call` carrying `task: { ttl }` for a
 * tool whose `execution.taskSupport` allows it answers a `CreateTaskResult` (`{ task }`) at once
 * and runs on. `tasks/get` reports it, `tasks/result` blocks until it ends and answers exactly
 * what the call would have (tagged with `io.modelcontextprotocol/related-task`), `tasks/cancel`
 * stops it, `tasks/list` pages through the session's tasks. A handler that asks the client for
 * input moves its task to `input_required`; the question goes out on the stream of the client's
 * `tasks/result` request (the spec's side channel), so it reaches the client over HTTP too.
 * Tasks are scoped to their session and kept for their ttl in a bounded, prototype-free Map.
 */

import type { RpcId } from "../protocol/json-rpc.js";
import type { CallToolResult } from "../protocol/mcp-types.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { versionHasTasks } from "../revisions/legacy/versions.js";
import { LEGACY_NAME, type Revision, revisionNamed, type TaskRecord } from "../revisions/registry.js";
import { requestClient, type SessionState } from "./session.js";
import { createTaskTable, terminalStatus as terminal } from "./task-table.js";
import { decodeCursor, encodeCursor } from "./tool-catalog.js";

/** `_meta` key tying messages to their task. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";
const DEFAULT_TTL_MS = 600_000;
const MAX_TTL_MS = 3_600_000;
const MAX_TASKS = 1000;
const PAGE_SIZE = 100;

/** The `tasks` capability of a 2025-11-25 server that runs tool calls as tasks. */
export const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;

export { versionHasTasks };

/** What a running task gives its handler. */
export interface LegacyTaskRun {
  readonly taskId: string;
  readonly signal: AbortSignal;
  /** Asks the client (elicitation, sampling, roots) on a `tasks/result` stream; the task is `input_required` meanwhile. */
  ask(method: string, params: { readonly [key: string]: unknown } | undefined, timeoutMs: number): Promise<unknown>;
}

/** The server's task record, plus what this flow needs to hand questions to `tasks/result` streams. */
interface Task extends TaskRecord {
  /** Settles when the task reaches a terminal status. */
  readonly done: Promise<void>;
  /** Questions waiting for a `tasks/result` stream to go out on. */
  readonly waiting: (() => void)[];
  /** Open asks; the task is `input_required` while any is open. */
  asks: number;
}

/** The experimental tasks of one session. */
export interface LegacyTaskStore {
  /** Creates a task running `run`; answers its `CreateTaskResult`. */
  start(ttl: unknown, run: (task: LegacyTaskRun) => Promise<CallToolResult>): { readonly task: { readonly [key: string]: unknown } };
  get(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
  /** Blocks until the task ends; `requestId` is the `tasks/result` request whose stream carries the task's questions. */
  result(params: { readonly [key: string]: unknown }, requestId: RpcId): Promise<unknown>;
  cancel(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
  list(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
  /** Aborts every running task (the session ended). */
  close(): void;
}

/** Creates the task store of `state`'s session; `capabilities` are the client's, for its questions. */
export function createLegacyTaskStore(
  state: SessionState,
  capabilities: () => { readonly [key: string]: unknown },
  report: (error: unknown) => void,
): LegacyTaskStore {
  const tasks = createTaskTable<Task>();
  // The legacy revision gives a task its 2025-11-25 wire shape.
  const legacy = revisionNamed(LEGACY_NAME) as Revision;
  const view = (task: Task) => legacy.taskStatus(task);
  /** Open `tasks/result` requests, newest last: where a task's questions go. */
  const streams: { readonly taskId: string; readonly id: RpcId }[] = [];
  const find = (params: { readonly [key: string]: unknown }): Task => {
    const task = tasks.get(params.taskId);
    if (!task) throw new RpcHandlerError(-32602, `Failed to retrieve task: task ${JSON.stringify(params.taskId)} not found`);
    return task;
  };
  const set = (task: Task, status: Task["status"], message?: string) => {
    if (terminal(task.status)) return; // terminal statuses never change (a cancelled task stays cancelled)
    task.status = status;
    if (message !== undefined) task.statusMessage = message;
    task.lastUpdatedAt = new Date().toISOString();
  };
  /** The id of an open `tasks/result` request for `taskId` (any task's will do), newest first. */
  // Any task's stream will do: every tasks/result response of this session reaches the same client.
  const streamFor = (taskId: string) => ([...streams].reverse().find((s) => s.taskId === taskId) ?? streams[streams.length - 1])?.id;

  return {
    start(ttl, run) {
      if (tasks.size >= MAX_TASKS) throw new RpcHandlerError(-32603, `Too many tasks in this session (${MAX_TASKS})`);
      let settle: () => void = () => {};
      // The receiver may override the requested ttl (spec); capped so a client cannot pin a task and its result for good.
      const ttlMs = typeof ttl === "number" && ttl > 0 ? Math.min(Math.floor(ttl), MAX_TTL_MS) : DEFAULT_TTL_MS;
      const done = new Promise<void>((resolve) => {
        settle = resolve;
      });
      const task = tasks.add(ttlMs, { done, waiting: [], asks: 0 }, (t) => t.controller.abort(new Error("task expired")));
      const ask: LegacyTaskRun["ask"] = async (method, params, timeoutMs) => {
        task.asks++;
        set(task, "input_required");
        try {
          let related = streamFor(task.taskId);
          while (related === undefined) {
            // No tasks/result stream open yet: the client opens one once it sees input_required.
            await new Promise<void>((resolve) => task.waiting.push(resolve));
            if (task.controller.signal.aborted) throw new RpcHandlerError(-32800, "Task cancelled");
            related = streamFor(task.taskId);
          }
          // related-task tells the client which task is asking.
          const meta = { ...((params?._meta as object | undefined) ?? {}), [RELATED_TASK]: { taskId: task.taskId } };
          return await requestClient(state, capabilities(), related, task.controller.signal, method, { ...params, _meta: meta }, timeoutMs);
        } finally {
          task.asks--;
          // Back to working only when no other question is open; set() leaves a terminal status alone.
          if (task.asks === 0 && task.status === "input_required") set(task, "working");
        }
      };
      void run({ taskId: task.taskId, signal: task.controller.signal, ask })
        .then(
          (result) => {
            task.result = result;
            // 2025-11-25: a tool result with isError is a failed task; tasks/result still returns it.
            set(task, result.isError === true ? "failed" : "completed", result.isError === true ? "The tool reported an error" : undefined);
          },
          (error: unknown) => {
            // As for a plain tools/call: only a deliberate RpcHandlerError reaches the client. Anything
            // else goes to onError, because its message may carry internals or secrets.
            if (!(error instanceof RpcHandlerError)) report(error);
            task.error =
              error instanceof RpcHandlerError
                ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
                : { code: -32603, message: "Internal error" };
            set(task, "failed", task.error.message);
          },
        )
        .finally(() => {
          // A question still waiting for a stream wakes and sees the task ended, instead of waiting forever.
          for (const wake of task.waiting.splice(0)) wake();
          settle();
        });
      return { task: view(task) };
    },
    get: (params) => view(find(params)),
    async result(params, requestId) {
      const task = find(params);
      const stream = { taskId: task.taskId, id: requestId };
      streams.push(stream);
      // Questions waiting for a stream can go out now.
      for (const t of tasks.values()) for (const wake of t.waiting.splice(0)) wake();
      try {
        await task.done;
      } finally {
        // Removed however the wait ends, so no question is sent on a response that already finished.
        streams.splice(streams.indexOf(stream), 1);
      }
      if (task.status === "cancelled") throw new RpcHandlerError(-32603, `Task ${task.taskId} was cancelled`);
      if (task.error) throw new RpcHandlerError(task.error.code, task.error.message, task.error.data);
      const result = task.result as CallToolResult;
      // The tool result itself names no task: related-task in _meta ties it to the one asked for (spec).
      return { ...result, _meta: { ...result._meta, [RELATED_TASK]: { taskId: task.taskId } } };
    },
    cancel(params) {
      const task = find(params);
      // 2025-11-25: cancelling a task already in a terminal status MUST be rejected with -32602.
      if (terminal(task.status)) throw new RpcHandlerError(-32602, `Cannot cancel task ${task.taskId}: it is already ${task.status}`);
      set(task, "cancelled", "The task was cancelled by request.");
      task.controller.abort(new Error("task cancelled"));
      for (const wake of task.waiting.splice(0)) wake();
      return view(task);
    },
    list(params) {
      const all = [...tasks.values()];
      const offset = params.cursor === undefined ? 0 : decodeCursor(params.cursor, all.length);
      const next = offset + PAGE_SIZE < all.length ? { nextCursor: encodeCursor(offset + PAGE_SIZE) } : {};
      return { tasks: all.slice(offset, offset + PAGE_SIZE).map(view), ...next };
    },
    close() {
      for (const task of tasks.values()) {
        task.controller.abort(new Error("session closed"));
        for (const wake of task.waiting.splice(0)) wake();
      }
    },
  };
}
