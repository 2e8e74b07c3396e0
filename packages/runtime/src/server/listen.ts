/**
 * `subscriptions/listen` (2026-07-28, SEP-2575): the stateless era's only channel for unsolicited
 * notifications. A listen request stays open; the server first acknowledges it with the filter it
 * agreed to honour, then tags every notification with the listen request's id
 * (`_meta["io.modelcontextprotocol/subscriptionId"]`). The hub keeps the open listens of every
 * session, so a list change or a task status reaches exactly the streams that asked for it.
 */
import type { RpcId } from "../protocol/json-rpc.js";
import { META } from "../protocol/modern.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { type SessionState, sendTo } from "./session.js";
import { declaresTasks, tasksExtensionRequired } from "./task-server.js";

/** The notification kinds a listen filter can ask for (base protocol plus the tasks extension). */
export interface ListenFilter {
  readonly toolsListChanged?: boolean;
  readonly promptsListChanged?: boolean;
  readonly resourcesListChanged?: boolean;
  readonly resourceSubscriptions?: readonly string[];
  readonly taskIds?: readonly string[];
}

/** What this server can ever notify about; kinds it cannot are left out of the acknowledgement. */
export interface ListenOffer {
  readonly prompts: boolean;
  readonly resources: boolean;
  readonly tasks: boolean;
}

/** One notification to fan out, with what a filter must hold to receive it. */
export type ListenEvent =
  | { readonly kind: "toolsListChanged" | "promptsListChanged" | "resourcesListChanged" }
  | { readonly kind: "resourceUpdated"; readonly uri: string }
  | { readonly kind: "task"; readonly taskId: string; readonly task: { readonly [key: string]: unknown } };

/** Open listens of every session. */
export interface ListenHub {
  /**
   * Opens a listen for a request: throws -32602 for a malformed filter and -32021 for task ids
   * without the tasks extension; sends the acknowledgement; resolves with the graceful-end result
   * when the server ends it (`endAll`), rejects with `cancelled` when the client or session ends it.
   */
  open(
    state: SessionState,
    id: RpcId,
    params: { readonly [key: string]: unknown },
    capabilities: { readonly [key: string]: unknown },
    cancelled: unknown,
  ): Promise<unknown>;
  /** Sends `event` to every listen whose filter asked for it. */
  publish(event: ListenEvent): void;
  /** Ends every open listen gracefully: each gets its empty result (server shutdown). */
  endAll(): void;
  /** Number of open listens (tests, diagnostics). */
  readonly size: number;
}

interface Listen {
  readonly state: SessionState;
  readonly id: RpcId;
  readonly filter: ListenFilter;
  readonly end: () => void;
}

const LIST_METHOD = {
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
} as const;

function strings(value: unknown, field: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new RpcHandlerError(-32602, `Invalid params: notifications.${field} must be an array of strings`);
  return value;
}

/** The part of a requested filter this server honours; throws for malformed fields. */
export function agreedFilter(requested: unknown, offer: ListenOffer, capabilities: { readonly [key: string]: unknown }): ListenFilter {
  if (typeof requested !== "object" || requested === null || Array.isArray(requested))
    throw new RpcHandlerError(-32602, "Invalid params: subscriptions/listen needs a notifications object");
  const r = requested as { readonly [key: string]: unknown };
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const)
    if (r[key] !== undefined && typeof r[key] !== "boolean")
      throw new RpcHandlerError(-32602, `Invalid params: notifications.${key} must be a boolean`);
  const uris = strings(r.resourceSubscriptions, "resourceSubscriptions");
  const taskIds = strings(r.taskIds, "taskIds");
  // Tasks extension: asking for task notifications without declaring the extension is -32021.
  if (taskIds !== undefined && !declaresTasks(capabilities)) throw tasksExtensionRequired("subscriptions/listen with taskIds");
  return {
    // Tool list changes are always on offer: this server declares tools.listChanged unconditionally.
    ...(r.toolsListChanged === true ? { toolsListChanged: true } : {}),
    ...(r.promptsListChanged === true && offer.prompts ? { promptsListChanged: true } : {}),
    ...(r.resourcesListChanged === true && offer.resources ? { resourcesListChanged: true } : {}),
    // Deduplicated, so the acknowledgement states each URI once.
    ...(uris !== undefined && offer.resources ? { resourceSubscriptions: [...new Set(uris)] } : {}),
    ...(taskIds !== undefined && offer.tasks ? { taskIds: [...new Set(taskIds)] } : {}),
  };
}

function wants(filter: ListenFilter, event: ListenEvent): boolean {
  switch (event.kind) {
    case "resourceUpdated":
      return filter.resourceSubscriptions?.includes(event.uri) === true;
    case "task":
      return filter.taskIds?.includes(event.taskId) === true;
    default:
      return filter[event.kind] === true;
  }
}

function messageFor(event: ListenEvent): { method: string; params: { [key: string]: unknown } } {
  switch (event.kind) {
    case "resourceUpdated":
      return { method: "notifications/resources/updated", params: { uri: event.uri } };
    case "task":
      return { method: "notifications/tasks", params: { ...event.task } };
    default:
      return { method: LIST_METHOD[event.kind], params: {} };
  }
}

/** Creates the hub of one server. */
export function createListenHub(offer: ListenOffer): ListenHub {
  const listens = new Set<Listen>();
  return {
    open(state, id, params, capabilities, cancelled) {
      const filter = agreedFilter(params.notifications, offer, capabilities);
      const controller = new AbortController();
      // Kept with the session's in-flight calls, so cancellation and session close reach it the same way.
      state.calls.set(id, controller);
      return new Promise((resolve, reject) => {
        const listen: Listen = {
          state,
          id,
          filter,
          end: () => {
            finish();
            resolve({ _meta: { [META.subscriptionId]: id } });
          },
        };
        const finish = () => {
          listens.delete(listen);
          state.calls.delete(id);
          controller.signal.removeEventListener("abort", onAbort);
        };
        // notifications/cancelled (stdio) or the session closing (HTTP: the stream closed) ends it unanswered.
        const onAbort = () => {
          finish();
          reject(cancelled);
        };
        controller.signal.addEventListener("abort", onAbort, { once: true });
        const ack = { _meta: { [META.subscriptionId]: id }, notifications: filter };
        if (!sendTo(state, { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: ack }, id)) {
          // E.g. an HTTP client that accepts only JSON: there is no stream to keep open.
          finish();
          reject(new RpcHandlerError(-32600, "subscriptions/listen needs a stream: accept text/event-stream"));
          return;
        }
        listens.add(listen);
      });
    },
    publish(event) {
      const { method, params } = messageFor(event);
      for (const listen of [...listens]) {
        if (!wants(listen.filter, event)) continue;
        const tagged = { ...params, _meta: { ...(params._meta as object | undefined), [META.subscriptionId]: listen.id } };
        sendTo(listen.state, { jsonrpc: "2.0", method, params: tagged }, listen.id);
      }
    },
    endAll() {
      for (const listen of [...listens]) listen.end();
    },
    get size() {
      return listens.size;
    },
  };
}
