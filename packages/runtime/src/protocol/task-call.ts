/**
 * Task-augmented tool calls, client side, in both eras:
 *   - 2025-11-25 (experimental tasks): `tools/call` with `task: { ttl }` for tools whose
 *     `execution.taskSupport` allows it, a `CreateTaskResult` `{ task }`, `tasks/get` polls,
 *     `tasks/result` for the payload (it also carries the server's side requests), `tasks/cancel`;
 *   - 2026-07-28 (extension `io.modelcontextprotocol/tasks`): the server alone decides; a
 *     `resultType: "task"` answer, `tasks/get` polls whose terminal answer inlines `result` or
 *     `error`, `inputRequests` answered through `tasks/update`, `tasks/cancel`.
 * Polls honour the server's poll interval; an abort cancels the task; every end without a result
 * is a `task` wire fault, mapped in failure-mapping.ts.
 */

import type { WireFault } from "../failure/wire-fault.js";
import { serverRunsToolTasks } from "../revisions/legacy/tasks.js";
import { revisionOf } from "../revisions/registry.js";
import { callToolInSession, fulfilInputRequests, type RequestContext, sendRequest } from "./mcp-client.js";
import type { Outcome } from "./mcp-session.js";
import type { CallToolResult, ToolDescriptor } from "./mcp-types.js";
import type { PeerRequestOptions, RpcPeer } from "./rpc-peer.js";

/** The extension id of 2026-07-28 tasks. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How a task-augmented call behaves. */
export interface TaskOptions {
  /** Ask for a task even when the tool only allows one (2025-11-25). Tools that require one always get one. */
  readonly augment?: boolean;
  /** Requested time to keep the task, ms (2025-11-25 `ttl`). Default 300,000. */
  readonly ttlMs?: number;
  /** Poll interval when the server suggests none, ms. Default 1000. */
  readonly pollIntervalMs?: number;
  /** Upper bound on polls. Default 3600. */
  readonly maxPolls?: number;
  /** Each status seen while polling. */
  readonly onStatus?: (status: TaskStatus) => void;
}

/** A task's state as `tasks/get` reports it. */
export interface TaskStatus {
  readonly taskId: string;
  readonly status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  readonly statusMessage?: string;
  readonly pollIntervalMs?: number;
}

const DEFAULT_TTL_MS = 300_000;

/** Reads a task out of a `tools/call` answer: the legacy `{ task }` envelope or a modern `resultType: "task"`. */
export function taskOf(result: unknown): TaskStatus | undefined {
  const r = result as { [key: string]: unknown } | null | undefined;
  if (typeof r !== "object" || r === null) return undefined;
  const raw = (r.resultType === "task" ? r : r.task) as { [key: string]: unknown } | undefined;
  if (typeof raw?.taskId !== "string" || typeof raw.status !== "string") return undefined;
  return statusOf(raw);
}

function statusOf(raw: { [key: string]: unknown }): TaskStatus {
  const interval = raw.pollIntervalMs ?? raw.pollInterval;
  return {
    taskId: raw.taskId as string,
    status: raw.status as TaskStatus["status"],
    ...(typeof raw.statusMessage === "string" ? { statusMessage: raw.statusMessage } : {}),
    ...(typeof interval === "number" && interval > 0 ? { pollIntervalMs: interval } : {}),
  };
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stop);
      resolve(ok);
    };
    const stop = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** Each listed tool's `execution.taskSupport` ("forbidden", "optional", "required"), for tools that declare one. */
export function taskSupportOf(tools: readonly ToolDescriptor[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const tool of tools) {
    const support = (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
    if (typeof support === "string") out.set(tool.name, support);
  }
  return out;
}

export { serverRunsToolTasks };

/**
 * `tools/call` through a task when the tool needs (or, with `augment`, allows) one, or when a
 * 2026-07-28 server decides to make one; otherwise a plain call. `support` is the tool's
 * `execution.taskSupport`; `then` maps the final outcome (on a plain call, in the answer's own step).
 */
export function callToolTasked<T>(
  peer: RpcPeer,
  ctx: RequestContext,
  request: Parameters<typeof callToolInSession>[2],
  trace: { readonly [key: string]: unknown } | undefined,
  peerOptions: PeerRequestOptions,
  support: string | undefined,
  options: TaskOptions | undefined,
  then: (outcome: Outcome<CallToolResult>) => T | PromiseLike<T>,
): Promise<T> {
  // Server-decided tasks (2026-07-28): any answer may be a task; client-augmented ones are asked for.
  const modern = revisionOf(ctx.session).tasks === "server-decided";
  const augment =
    !modern &&
    (support === "required" || (support === "optional" && options?.augment === true)) &&
    serverRunsToolTasks(ctx.session.handshake.capabilities);
  // No task asked for and none the server can make: the plain call, with no layer of its own.
  if (!augment && !modern) return callToolInSession(peer, ctx, request, trace, peerOptions, then);
  const taskOptions = options ?? {};
  const sent = augment ? { ...request, task: { ttl: taskOptions.ttlMs ?? DEFAULT_TTL_MS } } : request;
  return followTask(peer, ctx, callToolInSession(peer, ctx, sent, trace, peerOptions), peerOptions, taskOptions).then(then);
}

/** The answer of a call that may have become a task; a task is followed to its end. */
async function followTask(
  peer: RpcPeer,
  ctx: RequestContext,
  call: Promise<Outcome<CallToolResult>>,
  peerOptions: PeerRequestOptions,
  options: TaskOptions,
): Promise<Outcome<CallToolResult>> {
  const outcome = await call;
  if (!outcome.ok) return outcome;
  const task = taskOf(outcome.value);
  return task ? awaitTask(peer, ctx, task, peerOptions, options) : outcome;
}

/**
 * Follows a created task to its end: polls `tasks/get` at the server's interval, answers input
 * requests (modern era), fetches the payload, and cancels the task when `options.signal` aborts.
 */
export async function awaitTask(
  peer: RpcPeer,
  ctx: RequestContext,
  first: TaskStatus,
  peerOptions: PeerRequestOptions,
  options: TaskOptions,
): Promise<Outcome<CallToolResult>> {
  const revision = revisionOf(ctx.session);
  const modern = revision.tasks === "server-decided";
  const { taskId } = first;
  const signal = peerOptions.signal;
  // Each poll is its own request; the caller's signal cancels the task, not just the poll.
  const pollOptions: PeerRequestOptions = { ...peerOptions, signal: undefined, onProgress: undefined };
  let current = first;
  const fault = (status: "failed" | "cancelled" | "expired", message: string): Outcome<CallToolResult> => ({
    ok: false,
    fault: { type: "task", status, taskId, message },
  });
  const maxPolls = options.maxPolls ?? 3600;
  for (let poll = 0; poll < maxPolls; poll++) {
    options.onStatus?.(current);
    peerOptions.onProgress?.({ progress: poll, ...(current.statusMessage ? { message: current.statusMessage } : {}) });
    if (current.status === "failed" || current.status === "cancelled") return fault(current.status, current.statusMessage ?? "no message");
    // 2025-11-25: tasks/result blocks until the end and carries the server's side requests.
    if (!modern && (current.status === "completed" || current.status === "input_required"))
      return taskResult(peer, ctx, taskId, pollOptions, revision.decodeToolResult);
    if (!(await wait(current.pollIntervalMs ?? options.pollIntervalMs ?? 1000, signal))) return cancel(peer, ctx, taskId, pollOptions);
    const got = await sendRequest(peer, ctx, "tasks/get", { taskId }, pollOptions);
    if (!got.ok) return expiredOr(got.fault, taskId);
    const raw = (got.result ?? {}) as { [key: string]: unknown };
    if (typeof raw.status !== "string")
      return { ok: false, fault: { type: "rpc", code: -32603, message: "tasks/get answer has no status" } };
    current = statusOf({ ...raw, taskId });
    if (!modern) continue;
    if (current.status === "completed") return inlined(raw, taskId, revision.decodeToolResult);
    const error = raw.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (current.status === "failed" && typeof error?.code === "number")
      return { ok: false, fault: { type: "rpc", code: error.code, message: String(error.message ?? "task failed"), data: error.data } };
    if (current.status === "input_required" && raw.inputRequests !== undefined) {
      const answered = await fulfilInputRequests(raw.inputRequests, ctx.handlers);
      if (!answered.ok) return answered.outcome as Outcome<CallToolResult>;
      const update = await sendRequest(peer, ctx, "tasks/update", { taskId, inputResponses: answered.responses }, pollOptions);
      if (!update.ok) return expiredOr(update.fault, taskId);
      current = { ...current, status: "working" };
    }
  }
  return fault("expired", `still not finished after ${maxPolls} polls`);
}

type Decode = (raw: unknown) => Outcome<CallToolResult>;

function inlined(raw: { [key: string]: unknown }, taskId: string, decode: Decode): Outcome<CallToolResult> {
  const result = raw.result as Partial<CallToolResult> | undefined;
  if (typeof result !== "object" || result === null)
    return { ok: false, fault: { type: "rpc", code: -32603, message: `tasks/get for completed task ${taskId} inlines no result` } };
  return decode(result);
}

async function taskResult(peer: RpcPeer, ctx: RequestContext, taskId: string, options: PeerRequestOptions, decode: Decode) {
  const payload = await sendRequest(peer, ctx, "tasks/result", { taskId }, options);
  if (!payload.ok) return expiredOr(payload.fault, taskId);
  const result = payload.result as Partial<CallToolResult> | undefined;
  if (typeof result !== "object" || result === null)
    return { ok: false, fault: { type: "rpc", code: -32603, message: "tasks/result answer is not an object" } } as const;
  return decode(result);
}

/** Sends `tasks/cancel` (best effort) and reports the call as canceled. */
async function cancel(peer: RpcPeer, ctx: RequestContext, taskId: string, options: PeerRequestOptions): Promise<Outcome<CallToolResult>> {
  await sendRequest(peer, ctx, "tasks/cancel", { taskId }, { ...options, timeoutMs: Math.min(options.timeoutMs ?? 5000, 5000) });
  return { ok: false, fault: { type: "canceled", message: `aborted by caller; task ${taskId} cancelled` } };
}

/** An unknown task id (-32602) after the task existed means it expired; other faults pass through. */
function expiredOr(fault: WireFault, taskId: string): Outcome<CallToolResult> {
  if (fault.type === "rpc" && fault.code === -32602)
    return { ok: false, fault: { type: "task", status: "expired", taskId, message: fault.message } };
  return { ok: false, fault };
}

/** A task-augmented call the planner holds on to instead of awaiting it. */
export interface TaskHandle {
  /** The task id, or undefined when the server answered at once (no task was made). */
  readonly taskId: string | undefined;
  /** The latest known status (polls `tasks/get`). */
  status(options?: PeerRequestOptions): Promise<Outcome<TaskStatus>>;
  /** Follows the task to its end (polls, answers input, fetches the payload). */
  result(options?: PeerRequestOptions): Promise<Outcome<CallToolResult>>;
  /** Asks the server to cancel the task. */
  cancel(options?: PeerRequestOptions): Promise<Outcome<void>>;
}

/**
 * Starts a call as a task and hands back a handle (the planner's "handle" mode): the tool is
 * augmented when it allows a task (2025-11-25) or the server decides (2026-07-28). A server that
 * answers at once gives a handle whose result is that answer.
 */
export async function startToolTask(
  peer: RpcPeer,
  ctx: RequestContext,
  request: Parameters<typeof callToolInSession>[2],
  trace: { readonly [key: string]: unknown } | undefined,
  peerOptions: PeerRequestOptions,
  support: string | undefined,
  options: TaskOptions = {},
): Promise<Outcome<TaskHandle>> {
  const modern = revisionOf(ctx.session).tasks === "server-decided";
  const augment = !modern && (support === "required" || support === "optional") && serverRunsToolTasks(ctx.session.handshake.capabilities);
  const sent = augment ? { ...request, task: { ttl: options.ttlMs ?? DEFAULT_TTL_MS } } : request;
  const outcome = await callToolInSession(peer, ctx, sent, trace, peerOptions);
  if (!outcome.ok) return outcome;
  const first = taskOf(outcome.value);
  if (!first) {
    const done = outcome;
    return {
      ok: true,
      value: {
        taskId: undefined,
        status: async () => ({ ok: true, value: { taskId: "", status: "completed" } }),
        result: async () => done,
        cancel: async () => ({ ok: true, value: undefined }),
      },
    };
  }
  const { taskId } = first;
  return {
    ok: true,
    value: {
      taskId,
      async status(o = peerOptions) {
        const got = await sendRequest(peer, ctx, "tasks/get", { taskId }, o);
        if (!got.ok) return expiredOr(got.fault, taskId) as Outcome<never>;
        return { ok: true, value: statusOf({ ...((got.result ?? {}) as { [key: string]: unknown }), taskId }) };
      },
      result: (o = peerOptions) => awaitTask(peer, ctx, first, o, options),
      async cancel(o = peerOptions) {
        const sentCancel = await sendRequest(peer, ctx, "tasks/cancel", { taskId }, o);
        return sentCancel.ok ? { ok: true, value: undefined } : (expiredOr(sentCancel.fault, taskId) as Outcome<never>);
      },
    },
  };
}
