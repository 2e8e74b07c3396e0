/**
 * Server-to-client task requests (2025-11-25): a `sampling/createMessage` or `elicitation/create`
 * that carries `task` runs the same handler in the background and answers at once with a
 * `CreateTaskResult`; the server then polls `tasks/get`, fetches `tasks/result`, may `tasks/cancel`
 * or `tasks/list`. Tasks are kept for their ttl (bounded count), in a prototype-free Map.
 */
import { type RequestHandler, RpcHandlerError } from "./rpc-peer.js";
import { TASKS_EXTENSION } from "./task-call.js";

/** Methods a server may ask the client to run as a task. */
const TASKABLE = ["sampling/createMessage", "elicitation/create"] as const;
/** A server cannot make us hold unbounded work: beyond this many live tasks a new one is refused. */
const MAX_TASKS = 256;
/** Kept this long when the server asks for no ttl (five minutes: a poller has time to come back). */
const DEFAULT_TTL_MS = 300_000;

interface ClientTask {
  readonly taskId: string;
  status: "working" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  readonly createdAt: string;
  lastUpdatedAt: string;
  readonly ttl: number;
  readonly done: Promise<unknown>;
  result?: unknown;
  error?: RpcHandlerError;
  timer?: ReturnType<typeof setTimeout>;
}

/** The client's capabilities plus what tasks add: the 2025-11-25 `tasks` entry and the 2026-07-28 extension. */
export function withTaskCapabilities(
  capabilities: { readonly [key: string]: unknown },
  handlers: ReadonlyMap<string, RequestHandler> | undefined,
): { [key: string]: unknown } {
  // Both announcements: a 2025-11-25 server reads `tasks`, a 2026-07-28 one the extension entry.
  // What the caller already declared is kept as it is.
  const out: { [key: string]: unknown } = { ...capabilities };
  const extensions = (capabilities.extensions ?? {}) as { readonly [key: string]: unknown };
  if (extensions[TASKS_EXTENSION] === undefined) out.extensions = { ...extensions, [TASKS_EXTENSION]: {} };
  if (out.tasks !== undefined) return out;
  const requests: { [key: string]: unknown } = {};
  if (handlers?.has("sampling/createMessage")) requests.sampling = { createMessage: {} };
  if (handlers?.has("elicitation/create")) requests.elicitation = { create: {} };
  if (Object.keys(requests).length > 0) out.tasks = { list: {}, cancel: {}, requests };
  return out;
}

/** The task as `tasks/get` and `CreateTaskResult` show it (never its result or error: those come from `tasks/result`). */
function view(task: ClientTask) {
  return {
    taskId: task.taskId,
    status: task.status,
    ttl: task.ttl,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    pollInterval: 500,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
  };
}

/** Wraps the client's handlers so task-augmented server requests run as tasks, and adds the `tasks/*` handlers. */
export function withClientTasks(
  handlers: ReadonlyMap<string, RequestHandler> | undefined,
): ReadonlyMap<string, RequestHandler> | undefined {
  if (!handlers || !TASKABLE.some((m) => handlers.has(m))) return handlers;
  const tasks = new Map<string, ClientTask>();
  const out = new Map(handlers);
  const find = (params: { readonly [key: string]: unknown } | undefined): ClientTask => {
    const task = typeof params?.taskId === "string" ? tasks.get(params.taskId) : undefined;
    if (!task) throw new RpcHandlerError(-32602, `unknown task ${JSON.stringify(params?.taskId)}`);
    return task;
  };
  for (const method of TASKABLE) {
    const handler = handlers.get(method);
    if (!handler) continue;
    out.set(method, (params, request) => {
      // Without `task` the request is an ordinary one: answered inline by the same handler.
      const asked = params?.task as { ttl?: unknown } | undefined;
      if (asked === undefined) return handler(params, request);
      if (tasks.size >= MAX_TASKS) throw new RpcHandlerError(-32603, `too many client tasks (${MAX_TASKS})`);
      const { task: _, ...rest } = params as { [key: string]: unknown };
      const now = new Date().toISOString();
      // The server proposes a ttl, the receiver decides: at most an hour here.
      const ttl = typeof asked.ttl === "number" && asked.ttl > 0 ? Math.min(asked.ttl, 3_600_000) : DEFAULT_TTL_MS;
      // Unguessable: another party on the session must not poll or cancel our task by counting.
      const taskId = globalThis.crypto.randomUUID();
      const done = Promise.resolve()
        .then(() => handler(rest, request))
        .then(
          (result) => {
            // A cancelled task stays cancelled: a late result is dropped, not resurrected.
            if (entry.status !== "working") return;
            entry.result = result ?? {};
            entry.status = "completed";
            entry.lastUpdatedAt = new Date().toISOString();
          },
          (error: unknown) => {
            if (entry.status !== "working") return;
            entry.error =
              error instanceof RpcHandlerError
                ? error
                : new RpcHandlerError(-32603, error instanceof Error ? error.message : String(error));
            entry.status = "failed";
            entry.statusMessage = entry.error.message;
            entry.lastUpdatedAt = new Date().toISOString();
          },
        );
      const entry: ClientTask = { taskId, status: "working", createdAt: now, lastUpdatedAt: now, ttl, done };
      // Forgotten after its ttl, finished or not; unref'd so a pending task never keeps the process up.
      entry.timer = setTimeout(() => tasks.delete(taskId), ttl);
      entry.timer.unref?.();
      tasks.set(taskId, entry);
      return { task: view(entry) };
    });
  }
  out.set("tasks/get", (params) => view(find(params)));
  // tasks/result waits until the task ends, so a server can wait on it in one request, then answers
  // as the original request would have.
  out.set("tasks/result", async (params) => {
    const task = find(params);
    await task.done;
    if (task.status === "cancelled") throw new RpcHandlerError(-32603, `task ${task.taskId} was cancelled`);
    if (task.error) throw task.error;
    return task.result;
  });
  out.set("tasks/cancel", (params) => {
    const task = find(params);
    if (task.status === "working") {
      task.status = "cancelled";
      task.lastUpdatedAt = new Date().toISOString();
    }
    return view(task);
  });
  out.set("tasks/list", () => ({ tasks: [...tasks.values()].map(view) }));
  return out;
}
