/**
 * Server side of the 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a
 * task-supporting tool called by a client that declared the extension answers a flat
 * `CreateTaskResult` (`resultType: "task"`) and runs on; `tasks/get` reports it (result or error
 * inlined once terminal, pending `inputRequests` while it waits), `tasks/update` delivers input
 * responses, `tasks/cancel` aborts it. Tasks live for their ttl in a bounded, prototype-free store.
 */
import type { CallToolResult } from "../protocol/mcp-types.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { TASKS_EXTENSION } from "../protocol/task-call.js";
import type { Revision, TaskRecord } from "../revisions/registry.js";
import type { InputRequest } from "./input-required.js";
import { MISSING_CAPABILITY } from "./modern.js";
import { createTaskTable } from "./task-table.js";

const DEFAULT_TTL_MS = 600_000;
// Bounds what a client can pin in memory by starting tasks it never reads; each lives at most its ttl.
const MAX_TASKS = 1000;

/** True when the request's client capabilities declare the tasks extension. */
export function declaresTasks(capabilities: { readonly [key: string]: unknown }): boolean {
  const extensions = capabilities.extensions as { readonly [key: string]: unknown } | undefined;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

/** -32021 for a client that did not declare the extension. */
export function tasksExtensionRequired(what: string): RpcHandlerError {
  return new RpcHandlerError(
    MISSING_CAPABILITY,
    `${what} needs the ${TASKS_EXTENSION} extension; declare it in clientCapabilities.extensions`,
    {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  );
}

/** The server's task record, plus the input this flow collects through `tasks/update`. */
interface Task extends TaskRecord {
  /** The revision the task was created in: it shapes every status of the task. */
  readonly revision: Revision;
  readonly pending: Map<string, { readonly request: InputRequest; readonly resolve: (value: unknown) => void }>;
  readonly answers: Map<string, unknown>;
}

/** What a running task gives its handler. */
export interface TaskRun {
  readonly signal: AbortSignal;
  /** Resolves with the client's answer for `key`; until then the task is `input_required`. */
  ask(key: string, request: InputRequest): Promise<unknown>;
}

/** The task store of one server. */
export interface TaskStore {
  /** Creates a task running `run` in `revision`; answers its `CreateTaskResult`. */
  start(revision: Revision, run: (task: TaskRun) => Promise<CallToolResult>): { readonly [key: string]: unknown };
  get(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
  update(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
  cancel(params: { readonly [key: string]: unknown }): { readonly [key: string]: unknown };
}

/**
 * Creates a task store. `onChange` gets each task's `DetailedTask` (what `tasks/get` would answer)
 * after every status change, for `notifications/tasks` on `subscriptions/listen` streams.
 */
export function createTaskStore(
  onError: (error: unknown) => void,
  onChange: (taskId: string, task: { readonly [key: string]: unknown }) => void = () => {},
): TaskStore {
  const tasks = createTaskTable<Task>();
  const touch = (task: Task) => {
    task.lastUpdatedAt = new Date().toISOString();
    onChange(task.taskId, detailed(task));
  };
  /** The task with its status payload inlined: result, error or pending input requests. */
  const detailed = (task: Task) => {
    const inputRequests: { [key: string]: unknown } = {};
    for (const [key, { request }] of task.pending) inputRequests[key] = request;
    return {
      ...task.revision.taskStatus(task),
      ...(task.status === "completed" && task.result ? { result: task.result } : {}),
      ...(task.status === "failed" && task.error ? { error: task.error } : {}),
      ...(task.status === "input_required" ? { inputRequests } : {}),
    };
  };
  const find = (params: { readonly [key: string]: unknown }): Task => {
    const task = tasks.get(params.taskId);
    if (!task) throw new RpcHandlerError(-32602, `Unknown task: ${JSON.stringify(params.taskId)}`);
    return task;
  };

  return {
    start(revision, run) {
      if (tasks.size >= MAX_TASKS) throw new RpcHandlerError(-32603, `Too many tasks in flight (${MAX_TASKS})`);
      // At the ttl the task is aborted and forgotten: its result is gone, and tasks/get answers unknown task.
      const task = tasks.add(DEFAULT_TTL_MS, { revision, pending: new Map(), answers: new Map() }, (t) => t.controller.abort());
      const ask = (key: string, request: InputRequest) => {
        // A key already answered resolves at once, so a handler that asks again does not wait forever.
        if (task.answers.has(key)) return Promise.resolve(task.answers.get(key));
        return new Promise((resolve) => {
          task.pending.set(key, { request, resolve });
          if (task.status === "working") task.status = "input_required";
          touch(task);
        });
      };
      void run({ signal: task.controller.signal, ask }).then(
        (result) => {
          // Cancelled is terminal: a handler that finishes anyway must not flip it to completed.
          if (task.status === "cancelled") return;
          // The v1 related-task key must not ride on the inlined result.
          const { _meta, ...rest } = result;
          const meta = _meta
            ? Object.fromEntries(Object.entries(_meta).filter(([k]) => k !== "io.modelcontextprotocol/related-task"))
            : undefined;
          task.result = meta && Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
          task.status = "completed";
          touch(task);
        },
        (error: unknown) => {
          if (task.status === "cancelled") return;
          // Only deliberate RpcHandlerErrors reach the client; anything else is reported and answered -32603,
          // so a handler's internal message (paths, secrets) stays on the server.
          if (!(error instanceof RpcHandlerError)) onError(error);
          task.error =
            error instanceof RpcHandlerError
              ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
              : { code: -32603, message: "Internal error" };
          task.status = "failed";
          task.statusMessage = task.error.message;
          touch(task);
        },
      );
      return { resultType: "task", ...revision.taskStatus(task) };
    },
    get(params) {
      return detailed(find(params));
    },
    update(params) {
      const task = find(params);
      const responses = params.inputResponses;
      if (typeof responses !== "object" || responses === null || Array.isArray(responses))
        throw new RpcHandlerError(-32602, "tasks/update needs inputResponses keyed by input request");
      for (const [key, value] of Object.entries(responses)) {
        const waiting = task.pending.get(key);
        if (!waiting) continue; // unknown or already answered keys are ignored
        task.pending.delete(key);
        task.answers.set(key, value);
        waiting.resolve(value);
      }
      // Back to working only once every open question is answered; a partial update stays input_required.
      if (task.status === "input_required" && task.pending.size === 0) task.status = "working";
      touch(task);
      return {};
    },
    cancel(params) {
      const task = find(params);
      // Cancelling a terminal task changes nothing: its result or error stays readable until the ttl.
      if (task.status === "working" || task.status === "input_required") {
        task.status = "cancelled";
        task.pending.clear();
        task.controller.abort(new Error("task cancelled"));
        touch(task);
      }
      return {};
    },
  };
}
