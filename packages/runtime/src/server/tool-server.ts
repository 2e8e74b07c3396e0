/**
 * `createToolServer`: a transport-agnostic MCP server for tools. A transport opens one session per
 * connection (stdio: one; HTTP: one per `Mcp-Session-Id`, or one per stateless 2026-07-28
 * request), feeds it parsed JSON-RPC values and writes what it sends. Every outbound message names
 * the inbound request it belongs to, so the HTTP transport can put it on that request's stream.
 * This file is the dispatcher: which method goes where, per era. The session's wire side lives in
 * session.ts, `tools/call` in call-route.ts, the surface in surface-server.ts, tasks in
 * task-server.ts (2026-07-28) and legacy-tasks.ts (2025-11-25), listens in listen.ts.
 */
import type { RpcRequest } from "../protocol/json-rpc.js";
import { type Implementation, LEGACY_PROTOCOL_VERSIONS } from "../protocol/mcp-types.js";
import { META, type ParamHeader, planToolHeaders } from "../protocol/modern.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { SKILLS_EXTENSION } from "../protocol/skills.js";
import { TASKS_EXTENSION } from "../protocol/task-call.js";
import { discoverVersions, LEGACY_NAME, type Revision, revisionNamed } from "../revisions/registry.js";
import { CANCELLED, type CallRouteDeps, routeToolCall } from "./call-route.js";
import { createStateCodec } from "./input-required.js";
import { createLegacyTaskStore, LEGACY_TASKS_CAPABILITY, type LegacyTaskStore, versionHasTasks } from "./legacy-tasks.js";
import { createListenHub, type ListenEvent } from "./listen.js";
import { closeSessionState, createSessionState, type RequestScope, type SessionOptions, type SessionState } from "./session.js";
import {
  dispatchSurface,
  notifyLegacySessions,
  type RequestHandling,
  type ServerSession,
  scopeFor,
  serverSession,
} from "./session-requests.js";
import { createSkillsServer } from "./skills-server.js";
import { createSurfaceServer, NOT_SURFACE } from "./surface-server.js";
import { createTaskStore, declaresTasks, tasksExtensionRequired } from "./task-server.js";
import { checkTools, decodeCursor, descriptor, encodeCursor, LOG_LEVELS, REMOVED_IN_MODERN } from "./tool-catalog.js";
import type { LogLevel, ToolServerOptions } from "./types.js";

export type { SessionOptions } from "./session.js";
export type { ServerSession } from "./session-requests.js";

/** A tool server; serve it with `serveStdio` or `serveHttp`. */
export interface ToolServer {
  readonly info: Implementation;
  /** Protocol versions this server accepts, newest first. */
  readonly protocolVersions: readonly string[];
  /** Opens a session for one connection. */
  openSession(options: SessionOptions): ServerSession;
  /** Sends `notifications/tools/list_changed` to every legacy session and every 2026-07-28 listen that asked for it. */
  notifyToolListChanged(): void;
  /** The same for `notifications/prompts/list_changed`. */
  notifyPromptListChanged(): void;
  /** The same for `notifications/resources/list_changed`. */
  notifyResourceListChanged(): void;
  /** Sends `notifications/resources/updated` to every session and listen subscribed to `uri`. */
  notifyResourceUpdated(uri: string): void;
  /** Ends every open `subscriptions/listen` gracefully (its empty result); transports call it when they close. */
  endSubscriptions(): void;
}

const MODERN_TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/update", "tasks/cancel"]);
const LEGACY_TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/result", "tasks/cancel", "tasks/list"]);

/** The options' versions and header plans, checked: throws the `TypeError` `createToolServer` documents. */
function checkServerOptions(options: ToolServerOptions, tools: ReturnType<typeof checkTools>) {
  const newest = options.protocolVersion ?? LEGACY_PROTOCOL_VERSIONS[0];
  const start = (LEGACY_PROTOCOL_VERSIONS as readonly string[]).indexOf(newest);
  if (start < 0)
    throw new TypeError(`createToolServer: protocolVersion ${newest} is not supported (${LEGACY_PROTOCOL_VERSIONS.join(", ")})`);
  // Pinning a newest version keeps every older one: a client asking for an older version still connects.
  const versions: readonly string[] = LEGACY_PROTOCOL_VERSIONS.slice(start);
  if (options.pageSize !== undefined && !(Number.isInteger(options.pageSize) && options.pageSize > 0)) {
    throw new TypeError("createToolServer: pageSize must be a positive integer");
  }
  // Tools whose arguments are mirrored into Mcp-Param-* headers (x-mcp-header), checked per call.
  const headerPlans = new Map<string, readonly ParamHeader[]>();
  for (const tool of tools.values()) {
    const plan = planToolHeaders(tool.inputSchema);
    if (!plan.ok) throw new TypeError(`createToolServer: tool "${tool.name}": ${plan.reason}`);
    if (plan.params.length > 0) headerPlans.set(tool.name, plan.params);
  }
  return { newest, versions, headerPlans };
}

/** What `initialize` answers with, besides the negotiated version. */
interface InitializeFacts {
  readonly versions: readonly string[];
  readonly newest: string;
  readonly offersTasks: boolean;
  readonly capabilities: { readonly [key: string]: unknown };
  readonly info: Implementation;
  /** Read per initialize, as `instructions` always was. */
  readonly options: ToolServerOptions;
}

function initialize(facts: InitializeFacts, state: SessionState, params: RpcRequest["params"]): unknown {
  // A second initialize would renegotiate a live session under its in-flight calls.
  if (state.protocolVersion !== undefined) throw new RpcHandlerError(-32600, "Session already initialized");
  const requested = params?.protocolVersion;
  // Lifecycle spec: answer the requested version when supported, else another one (SHOULD be the latest);
  // the client then decides whether it can go on.
  const version = typeof requested === "string" && facts.versions.includes(requested) ? requested : facts.newest;
  state.protocolVersion = version;
  const client = params?.clientInfo as Implementation | undefined;
  // Client-sent: kept only when it is an object, so later capability checks cannot throw on a bad initialize.
  state.clientInfo = client && typeof client === "object" ? client : undefined;
  const caps = params?.capabilities;
  state.clientCapabilities = caps && typeof caps === "object" ? (caps as { [key: string]: unknown }) : {};
  const taskCapability = facts.offersTasks && versionHasTasks(version) ? { tasks: LEGACY_TASKS_CAPABILITY } : {};
  return {
    protocolVersion: version,
    capabilities: { ...facts.capabilities, logging: {}, ...taskCapability },
    serverInfo: facts.info,
    ...(facts.options.instructions ? { instructions: facts.options.instructions } : {}),
  };
}

/** One page of `tools/list`; `hints` are the 2026-07-28 caching hints, undefined for a legacy request. */
function listTools(
  list: readonly unknown[],
  pageSize: number | undefined,
  params: RpcRequest["params"],
  hints: object | undefined,
): unknown {
  const size = pageSize ?? list.length;
  // A cursor this server did not issue is -32602 (spec: invalid cursors are invalid params).
  const offset = params?.cursor === undefined ? 0 : decodeCursor(params.cursor, list.length);
  const page = list.slice(offset, offset + size);
  const next = offset + size < list.length ? { nextCursor: encodeCursor(offset + size) } : {};
  // 2026-07-28 lists carry caching hints; 0 ms by default because the list may change without a subscription.
  return { tools: page, ...next, ...(hints ?? {}) };
}

/** Creates a tool server. Throws a `TypeError` for duplicate names or a non-object input schema. */
export function createToolServer(options: ToolServerOptions): ToolServer {
  const tools = checkTools(options.tools);
  const { newest, versions, headerPlans } = checkServerOptions(options, tools);
  // A request that is not stateless speaks the legacy family, negotiated by `initialize`.
  const legacy = revisionNamed(LEGACY_NAME) as Revision;
  const info: Implementation = { name: options.name, version: options.version, ...(options.title ? { title: options.title } : {}) };
  const list = [...tools.values()].map(descriptor);
  const report = (error: unknown, where: string) => {
    try {
      options.onError?.(error, where);
    } catch {
      // A throwing logger must not break the session.
    }
  };
  const sessions = new Set<SessionState>();
  const stateCodec = createStateCodec(options.stateSecret);
  const skills = options.skills && options.skills.length > 0 ? createSkillsServer(options.skills) : undefined;
  const surface = createSurfaceServer(options, stateCodec, skills);
  const offersTasks = [...tools.values()].some((t) => t.execution?.taskSupport === "optional" || t.execution?.taskSupport === "required");
  const listens = createListenHub({
    prompts: "prompts" in surface.capabilities,
    resources: "resources" in surface.capabilities,
    tasks: offersTasks,
  });
  const tasks = createTaskStore(
    (error) => report(error, "task"),
    (taskId, task) => listens.publish({ kind: "task", taskId, task }),
  );
  // 2025-11-25 tasks are scoped to their session; a session gets its store on first use.
  const legacyStores = new WeakMap<SessionState, LegacyTaskStore>();
  const legacyTasks = (state: SessionState, scope: RequestScope): LegacyTaskStore | undefined => {
    if (!offersTasks || scope.revision.tasks !== "client-augmented" || !versionHasTasks(scope.version)) return undefined;
    let store = legacyStores.get(state);
    if (!store) {
      store = createLegacyTaskStore(
        state,
        () => state.clientCapabilities,
        (error) => report(error, "task"),
      );
      legacyStores.set(state, store);
    }
    return store;
  };
  const calls: CallRouteDeps = { tools, headerPlans, stateCodec, tasks, legacyTasks, report };
  const cacheHints = { ttlMs: options.cacheTtlMs ?? 0, cacheScope: "public" };
  // List changes and resource updates reach both eras: legacy sessions directly, modern listens by filter.
  const capabilities = { tools: { listChanged: true }, ...surface.capabilities };
  const extensions: { [id: string]: unknown } = {
    ...(offersTasks ? { [TASKS_EXTENSION]: {} } : {}),
    ...(skills ? { [SKILLS_EXTENSION]: {} } : {}),
  };

  const initFacts: InitializeFacts = { versions, newest, offersTasks, capabilities, info, options };

  function discover(): unknown {
    return {
      supportedVersions: [...discoverVersions()],
      capabilities: { ...capabilities, ...(Object.keys(extensions).length > 0 ? { extensions } : {}) },
      ...(options.instructions ? { instructions: options.instructions } : {}),
      ttlMs: 0,
      cacheScope: "public",
      _meta: { [META.serverInfo]: info },
    };
  }

  /** The 2026-07-28 methods that have no legacy counterpart: discover, listen, the tasks extension. */
  function dispatchModern(state: SessionState, request: RpcRequest, scope: RequestScope): unknown {
    const params = request.params ?? {};
    if (REMOVED_IN_MODERN.has(request.method))
      throw new RpcHandlerError(-32601, `Method not found: ${request.method} (removed in ${scope.version})`);
    if (request.method === "server/discover") return discover();
    if (request.method === "subscriptions/listen") return listens.open(state, request.id, params, scope.capabilities, CANCELLED);
    if (!MODERN_TASK_METHODS.has(request.method)) return NOT_SURFACE;
    if (!declaresTasks(scope.capabilities)) throw tasksExtensionRequired(request.method);
    if (request.method === "tasks/get") return tasks.get(params);
    return request.method === "tasks/update" ? tasks.update(params) : tasks.cancel(params);
  }

  function dispatch(state: SessionState, request: RpcRequest, scope: RequestScope): unknown {
    if (scope.modern) {
      const handled = dispatchModern(state, request, scope);
      if (handled !== NOT_SURFACE) return handled;
    } else if (LEGACY_TASK_METHODS.has(request.method)) {
      const store = legacyTasks(state, scope);
      // No tasks in this version, or no tool offers them: the methods do not exist for this session.
      if (!store) throw new RpcHandlerError(-32601, `Method not found: ${request.method}`);
      const params = request.params ?? {};
      if (request.method === "tasks/result") return store.result(params, request.id);
      if (request.method === "tasks/get") return store.get(params);
      return request.method === "tasks/cancel" ? store.cancel(params) : store.list(params);
    }
    // Skills are specified against 2026-07-28; older sessions see the files as plain resources.
    if (skills && scope.modern && (request.method === "skills/list" || request.method === "skills/get"))
      return request.method === "skills/list" ? skills.list(request.params ?? {}) : skills.get(request.params ?? {});
    switch (request.method) {
      case "initialize":
        return initialize(initFacts, state, request.params);
      case "ping":
        return {};
      case "tools/list":
        return listTools(list, options.pageSize, request.params, scope.modern ? cacheHints : undefined);
      case "tools/call":
        return routeToolCall(calls, state, request, scope);
      case "logging/setLevel": {
        const level = request.params?.level;
        if (!LOG_LEVELS.includes(level as LogLevel))
          throw new RpcHandlerError(-32602, `Invalid log level: ${String(level)} (use ${LOG_LEVELS.join(", ")})`);
        state.logLevel = level as LogLevel;
        return {};
      }
      default:
        return dispatchSurface(surface, state, request, scope);
    }
  }

  const handling: RequestHandling = { scopeFor: (state, request) => scopeFor(state, request, legacy, newest), dispatch, report };

  /** Fans a change out to legacy sessions (after `initialize`) and to the listens that asked for it. */
  function notify(event: ListenEvent): void {
    notifyLegacySessions(sessions, event);
    listens.publish(event);
  }

  return {
    info,
    protocolVersions: versions,
    notifyToolListChanged: () => notify({ kind: "toolsListChanged" }),
    notifyPromptListChanged: () => notify({ kind: "promptsListChanged" }),
    notifyResourceListChanged: () => notify({ kind: "resourcesListChanged" }),
    notifyResourceUpdated: (uri) => notify({ kind: "resourceUpdated", uri }),
    endSubscriptions: () => listens.endAll(),
    openSession(sessionOptions) {
      const state = createSessionState(sessionOptions, report);
      sessions.add(state);
      return serverSession(handling, state, () => {
        legacyStores.get(state)?.close();
        closeSessionState(state);
        sessions.delete(state);
      });
    },
  };
}
