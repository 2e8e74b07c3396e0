/**
 * `createToolServer`: a transport-agnostic MCP server for tools. A transport opens one session per
 * connection (stdio: one; HTTP: one per `Mcp-Session-Id`), feeds it parsed JSON-RPC values and
 * writes what it sends. Every outbound message names the inbound request it belongs to, so the HTTP
 * transport can put it on that request's response stream.
 */
import { classify, type RpcId, type RpcMessage, type RpcNotification, type RpcRequest } from "../protocol/json-rpc.js";
import { type CallToolResult, type Implementation, LEGACY_PROTOCOL_VERSIONS } from "../protocol/mcp-types.js";
import { META, MODERN_PROTOCOL_VERSIONS, type ParamHeader, planToolHeaders } from "../protocol/modern.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { TASKS_EXTENSION } from "../protocol/task-call.js";
import { createStateCodec, openRound } from "./input-required.js";
import { checkParamHeaders, HEADER_MISMATCH, isModernRequest, MISSING_CAPABILITY, modernScope } from "./modern.js";
import { createSurfaceServer, NOT_SURFACE } from "./surface-server.js";
import { createTaskStore, declaresTasks, tasksExtensionRequired } from "./task-server.js";
import { runToolCall } from "./tool-call.js";
import { CAPABILITY_FOR, checkTools, decodeCursor, descriptor, encodeCursor, LOG_LEVELS, REMOVED_IN_MODERN } from "./tool-catalog.js";
import { createToolContext } from "./tool-context.js";
import type { LogLevel, ServerTool, ToolServerOptions } from "./types.js";

/** Options for one session. */
export interface SessionOptions {
  /** Session id (HTTP); shown to handlers as `ctx.sessionId`. */
  readonly id?: string;
  /**
   * Writes one outbound message; `related` is the id of the inbound request it belongs to.
   * Returning `false` means the message cannot reach the client (a server-to-client request then fails at once).
   */
  readonly send: (message: RpcMessage, related: RpcId | undefined) => undefined | boolean;
  /** HTTP request headers of a stateless 2026-07-28 request, for `Mcp-Param-*` checks. */
  readonly httpHeaders?: { readonly [name: string]: string | string[] | undefined };
  /** Ends the response stream of request `related` early (HTTP SSE polling); absent elsewhere. */
  readonly closeStream?: (related: RpcId) => void;
  /**
   * "auto" (default): legacy after `initialize`, stateless 2026-07-28 for requests whose `_meta`
   * names a protocol version. "modern": every request must carry the 2026-07-28 `_meta` (HTTP
   * without a session).
   */
  readonly era?: "auto" | "modern";
}

/** One client connection's state: negotiated version, log level, in-flight calls. */
export interface ServerSession {
  readonly id: string | undefined;
  /** The negotiated version, once `initialize` was answered. */
  readonly protocolVersion: string | undefined;
  readonly closed: boolean;
  /** Feeds one parsed inbound value (a message, or a 2025-03-26 batch array). */
  receive(value: unknown): void;
  /** Aborts in-flight handlers and pending server-to-client requests. */
  close(): void;
}

/** A tool server; serve it with `serveStdio` or `serveHttp`. */
export interface ToolServer {
  readonly info: Implementation;
  /** Protocol versions this server accepts, newest first. */
  readonly protocolVersions: readonly string[];
  /** Opens a session for one connection. */
  openSession(options: SessionOptions): ServerSession;
  /** Sends `notifications/tools/list_changed` to every open session. */
  notifyToolListChanged(): void;
  /** Sends `notifications/resources/updated` to every session subscribed to `uri`. */
  notifyResourceUpdated(uri: string): void;
}

/** What one request runs under: the session's negotiated state, or its own modern `_meta`. */
interface Scope {
  readonly modern: boolean;
  readonly version: string;
  readonly capabilities: { readonly [key: string]: unknown };
  readonly clientInfo: Implementation | undefined;
  /** Minimum level to send; undefined sends no log messages. */
  readonly logLevel: LogLevel | undefined;
}

/** Creates a tool server. Throws a `TypeError` for duplicate names or a non-object input schema. */
export function createToolServer(options: ToolServerOptions): ToolServer {
  const tools = checkTools(options.tools);
  const newest = options.protocolVersion ?? LEGACY_PROTOCOL_VERSIONS[0];
  const start = (LEGACY_PROTOCOL_VERSIONS as readonly string[]).indexOf(newest);
  if (start < 0)
    throw new TypeError(`createToolServer: protocolVersion ${newest} is not supported (${LEGACY_PROTOCOL_VERSIONS.join(", ")})`);
  const versions: readonly string[] = LEGACY_PROTOCOL_VERSIONS.slice(start);
  if (options.pageSize !== undefined && !(Number.isInteger(options.pageSize) && options.pageSize > 0)) {
    throw new TypeError("createToolServer: pageSize must be a positive integer");
  }
  const info: Implementation = { name: options.name, version: options.version, ...(options.title ? { title: options.title } : {}) };
  const list = [...tools.values()].map(descriptor);
  // Tools whose arguments are mirrored into Mcp-Param-* headers (x-mcp-header), checked per call.
  const headerPlans = new Map<string, readonly ParamHeader[]>();
  for (const tool of tools.values()) {
    const plan = planToolHeaders(tool.inputSchema);
    if (!plan.ok) throw new TypeError(`createToolServer: tool "${tool.name}": ${plan.reason}`);
    if (plan.params.length > 0) headerPlans.set(tool.name, plan.params);
  }
  const sessions = new Set<SessionState>();
  const stateCodec = createStateCodec(options.stateSecret);
  const surface = createSurfaceServer(options, stateCodec);
  const tasks = createTaskStore((error) => report(error, "task"));
  const offersTasks = [...tools.values()].some((t) => t.execution?.taskSupport === "optional" || t.execution?.taskSupport === "required");
  const cacheHints = { ttlMs: options.cacheTtlMs ?? 0, cacheScope: "public" };
  const report = (error: unknown, where: string) => {
    try {
      options.onError?.(error, where);
    } catch {
      // A throwing logger must not break the session.
    }
  };

  interface SessionState {
    readonly options: SessionOptions;
    protocolVersion: string | undefined;
    clientInfo: Implementation | undefined;
    clientCapabilities: { readonly [key: string]: unknown };
    logLevel: LogLevel;
    closed: boolean;
    readonly calls: Map<RpcId, AbortController>;
    readonly outgoing: Map<RpcId, { resolve: (v: unknown) => void; reject: (e: Error) => void; cleanup: () => void }>;
    nextId: number;
    /** Resource URIs this session subscribed to (`resources/subscribe`). */
    readonly subscriptions: Set<string>;
  }

  function send(state: SessionState, message: RpcMessage, related: RpcId | undefined): boolean {
    if (state.closed) return false;
    try {
      return state.options.send(message, related) !== false;
    } catch (error) {
      report(error, "send");
      return false;
    }
  }

  function initialize(state: SessionState, params: RpcRequest["params"]): unknown {
    if (state.protocolVersion !== undefined) throw new RpcHandlerError(-32600, "Session already initialized");
    const requested = params?.protocolVersion;
    const version = typeof requested === "string" && versions.includes(requested) ? requested : newest;
    state.protocolVersion = version;
    const client = params?.clientInfo as Implementation | undefined;
    state.clientInfo = client && typeof client === "object" ? client : undefined;
    const caps = params?.capabilities;
    state.clientCapabilities = caps && typeof caps === "object" ? (caps as { [key: string]: unknown }) : {};
    return {
      protocolVersion: version,
      capabilities: { tools: { listChanged: true }, logging: {}, ...surface.capabilities },
      serverInfo: info,
      ...(options.instructions ? { instructions: options.instructions } : {}),
    };
  }

  function listTools(params: RpcRequest["params"], scope: Scope): unknown {
    const size = options.pageSize ?? list.length;
    const offset = params?.cursor === undefined ? 0 : decodeCursor(params.cursor, list.length);
    const page = list.slice(offset, offset + size);
    const next = offset + size < list.length ? { nextCursor: encodeCursor(offset + size) } : {};
    // 2026-07-28 lists carry caching hints; 0 ms by default because the list may change without a subscription.
    return { tools: page, ...next, ...(scope.modern ? cacheHints : {}) };
  }

  function discover(): unknown {
    return {
      supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
      capabilities: { tools: {}, ...surface.modernCapabilities, ...(offersTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
      ...(options.instructions ? { instructions: options.instructions } : {}),
      ttlMs: 0,
      cacheScope: "public",
      _meta: { [META.serverInfo]: info },
    };
  }

  function scopeFor(state: SessionState, request: RpcRequest): Scope {
    const modern = state.options.era === "modern" || (state.protocolVersion === undefined && isModernRequest(request.params));
    if (!modern) {
      return {
        modern: false,
        version: state.protocolVersion ?? newest,
        capabilities: state.clientCapabilities,
        clientInfo: state.clientInfo,
        logLevel: state.logLevel,
      };
    }
    const m = modernScope(request.params, LOG_LEVELS);
    return { modern: true, version: m.version, capabilities: m.capabilities, clientInfo: m.clientInfo, logLevel: m.logLevel };
  }

  function clientRequest(
    state: SessionState,
    scope: Scope,
    related: RpcId,
    signal: AbortSignal,
    method: string,
    params: { readonly [key: string]: unknown } | undefined,
    timeoutMs: number,
  ): Promise<unknown> {
    const capability = CAPABILITY_FOR[method];
    if (capability !== undefined && scope.capabilities[capability] === undefined) {
      return Promise.reject(new RpcHandlerError(-32601, `The client did not declare the "${capability}" capability needed for ${method}`));
    }
    if (signal.aborted) return Promise.reject(new RpcHandlerError(-32800, "Request cancelled"));
    const id = `s${state.nextId++}`;
    return new Promise((resolve, reject) => {
      const onAbort = () => finish(new RpcHandlerError(-32800, "Request cancelled"));
      const timer = setTimeout(() => finish(new RpcHandlerError(-32001, `No answer to ${method} within ${timeoutMs} ms`)), timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        state.outgoing.delete(id);
      };
      const finish = (error: Error) => {
        if (!state.outgoing.has(id)) return;
        cleanup();
        send(
          state,
          { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "request abandoned by server" } },
          related,
        );
        reject(error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      state.outgoing.set(id, { resolve, reject, cleanup });
      if (!send(state, { jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, related)) {
        cleanup();
        reject(new RpcHandlerError(-32603, `Cannot send ${method} to the client on this connection (no response stream open)`));
      }
    });
  }

  function callTool(state: SessionState, request: RpcRequest, scope: Scope): Promise<unknown> | undefined {
    const params = request.params ?? {};
    const name = params.name;
    const tool = typeof name === "string" ? tools.get(name) : undefined;
    if (!tool) throw new RpcHandlerError(-32602, typeof name === "string" ? `Unknown tool: ${name}` : "tools/call needs a tool name");
    const plan = headerPlans.get(tool.name);
    if (scope.modern && plan && state.options.httpHeaders) {
      const mismatch = checkParamHeaders(plan, params.arguments, state.options.httpHeaders);
      if (mismatch) throw new RpcHandlerError(HEADER_MISMATCH, mismatch);
    }
    // 2026-07-28 tasks extension: a task-supporting tool becomes a task for a client that declared it.
    const support = tool.execution?.taskSupport;
    const taskTool = scope.modern && (support === "optional" || support === "required");
    if (taskTool && !declaresTasks(scope.capabilities) && support === "required") throw tasksExtensionRequired(`tool ${tool.name}`);
    const asTask = taskTool && declaresTasks(scope.capabilities);
    if (asTask && tool.taskStart !== "after-input") return Promise.resolve(startTask(tool, request, scope, params));
    // 2026-07-28: inputs come from requestState/inputResponses; missing ones end the round.
    const round = scope.modern ? openRound(stateCodec, tool.name, params) : undefined;
    const controller = new AbortController();
    const ask = (key: string, method: string, body: { readonly [key: string]: unknown } | undefined, timeoutMs: number) => {
      if (!round) return clientRequest(state, scope, request.id, controller.signal, method, body, timeoutMs);
      const capability = CAPABILITY_FOR[method];
      if (capability !== undefined && scope.capabilities[capability] === undefined) {
        const data = { requiredCapabilities: { [capability]: {} } };
        return Promise.reject(new RpcHandlerError(MISSING_CAPABILITY, `Missing required client capability: ${capability}`, data));
      }
      return round.ask(key, { method, ...(body ? { params: body } : {}) });
    };
    state.calls.set(request.id, controller);
    const ctx = createToolContext({
      signal: controller.signal,
      requestId: request.id,
      sessionId: state.options.id,
      protocolVersion: scope.version,
      clientInfo: scope.clientInfo,
      clientCapabilities: scope.capabilities,
      meta: (params._meta && typeof params._meta === "object" ? params._meta : {}) as { [key: string]: unknown },
      logFloor: () => (scope.modern ? scope.logLevel : state.logLevel),
      notify: (method, body) => send(state, { jsonrpc: "2.0", method, params: body }, request.id),
      ask,
      closeSseStream: () => state.options.closeStream?.(request.id),
    });
    const run = runToolCall(tool, params.arguments, ctx, (error) => report(error, `tool ${tool.name}`));
    // A replayed handler that waits for a missing input is abandoned; the round's result goes out.
    // An "after-input" task tool: once no input is missing and it still runs, the call becomes a task.
    const running = asTask ? twoTicks().then(() => RUNNING) : new Promise<never>(() => {});
    const outcome: Promise<unknown> = round
      ? Promise.race([run, round.blocked.then(() => INPUT_REQUIRED), running]).then((value) => {
          if (value === RUNNING) return tasks.start(() => run);
          if (value !== INPUT_REQUIRED) return asTask ? tasks.start(async () => value as CallToolResult) : value;
          controller.abort(INPUT_REQUIRED);
          return round.result();
        })
      : run;
    return outcome.finally(() => {
      state.calls.delete(request.id);
      // A cancelled call is not answered (MCP: the receiver SHOULD NOT respond).
      if (controller.signal.aborted && controller.signal.reason !== INPUT_REQUIRED) throw CANCELLED;
    });
  }

  /** Answers a `CreateTaskResult` and runs the handler as that task; its input requests wait on `tasks/update`. */
  function startTask(tool: ServerTool<unknown>, request: RpcRequest, scope: Scope, params: { readonly [key: string]: unknown }) {
    return tasks.start((task) => {
      const ctx = createToolContext({
        signal: task.signal,
        requestId: request.id,
        sessionId: undefined,
        protocolVersion: scope.version,
        clientInfo: scope.clientInfo,
        clientCapabilities: scope.capabilities,
        meta: (params._meta && typeof params._meta === "object" ? params._meta : {}) as { [key: string]: unknown },
        // The call's response is gone: notifications have nowhere to go (clients poll tasks/get).
        logFloor: () => undefined,
        notify: () => {},
        ask: (key, method, body) => task.ask(key, { method, ...(body ? { params: body } : {}) }),
        closeSseStream: () => {},
      });
      return runToolCall(tool, params.arguments, ctx, (error) => report(error, `task ${tool.name}`));
    });
  }

  function dispatch(state: SessionState, request: RpcRequest, scope: Scope): unknown {
    if (scope.modern) {
      if (REMOVED_IN_MODERN.has(request.method))
        throw new RpcHandlerError(-32601, `Method not found: ${request.method} (removed in ${scope.version})`);
      if (request.method === "server/discover") return discover();
    }
    if (scope.modern && (request.method === "tasks/get" || request.method === "tasks/update" || request.method === "tasks/cancel")) {
      if (!declaresTasks(scope.capabilities)) throw tasksExtensionRequired(request.method);
      const params = request.params ?? {};
      return request.method === "tasks/get"
        ? tasks.get(params)
        : request.method === "tasks/update"
          ? tasks.update(params)
          : tasks.cancel(params);
    }
    switch (request.method) {
      case "initialize":
        return initialize(state, request.params);
      case "ping":
        return {};
      case "tools/list":
        return listTools(request.params, scope);
      case "tools/call":
        return callTool(state, request, scope);
      case "logging/setLevel": {
        const level = request.params?.level;
        if (!LOG_LEVELS.includes(level as LogLevel))
          throw new RpcHandlerError(-32602, `Invalid log level: ${String(level)} (use ${LOG_LEVELS.join(", ")})`);
        state.logLevel = level as LogLevel;
        return {};
      }
      default: {
        const handled = surface.dispatch(request.method, request.params ?? {}, {
          modern: scope.modern,
          version: scope.version,
          capabilities: scope.capabilities,
          sessionId: state.options.id,
          subscriptions: state.subscriptions,
          request: (method, params, signal) => clientRequest(state, scope, request.id, signal, method, params, 60_000),
        });
        if (handled !== NOT_SURFACE) return handled;
        throw new RpcHandlerError(-32601, `Method not found: ${request.method}`);
      }
    }
  }

  function handleRequest(state: SessionState, request: RpcRequest): void {
    const answer = (body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) =>
      send(state, { jsonrpc: "2.0", id: request.id, ...body }, request.id);
    const fail = (error: unknown) => {
      if (error === CANCELLED) return;
      if (error instanceof RpcHandlerError) {
        answer({ error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } });
      } else {
        report(error, request.method);
        answer({ error: { code: -32603, message: "Internal error" } });
      }
    };
    try {
      const scope = scopeFor(state, request);
      // 2026-07-28 results say whether they are complete (MRTR); this server's always are.
      const shape = (value: unknown) =>
        scope.modern && typeof value === "object" && value !== null && !("resultType" in value)
          ? { ...value, resultType: "complete" }
          : value;
      const result = dispatch(state, request, scope);
      if (result instanceof Promise) result.then((value) => answer({ result: shape(value) }), fail);
      else answer({ result: shape(result) });
    } catch (error) {
      fail(error);
    }
  }

  function handleNotification(state: SessionState, message: RpcNotification): void {
    if (message.method === "notifications/cancelled") {
      const id = message.params?.requestId as RpcId | undefined;
      if (id !== undefined) state.calls.get(id)?.abort(new Error(String(message.params?.reason ?? "cancelled by client")));
    }
    // notifications/initialized and others need no action.
  }

  function receiveOne(state: SessionState, value: unknown): void {
    const c = classify(value);
    switch (c.type) {
      case "request":
        handleRequest(state, c.message);
        return;
      case "notification":
        handleNotification(state, c.message);
        return;
      case "response": {
        const pending = c.message.id === null ? undefined : state.outgoing.get(c.message.id);
        if (!pending) {
          report(new Error(`response for unknown id ${JSON.stringify(c.message.id)}`), "receive");
          return;
        }
        pending.cleanup();
        const err = c.message.error;
        if (err) pending.reject(new RpcHandlerError(err.code, String(err.message ?? ""), err.data));
        else pending.resolve(c.message.result);
        return;
      }
      default: {
        const id = (value as { id?: unknown } | null)?.id;
        const related = typeof id === "string" || typeof id === "number" ? id : null;
        send(
          state,
          { jsonrpc: "2.0", id: related, error: { code: -32600, message: `Invalid request: ${c.reason}` } },
          related ?? undefined,
        );
      }
    }
  }

  return {
    info,
    protocolVersions: versions,
    notifyToolListChanged() {
      for (const state of sessions)
        if (state.protocolVersion !== undefined) send(state, { jsonrpc: "2.0", method: "notifications/tools/list_changed" }, undefined);
    },
    notifyResourceUpdated(uri) {
      for (const state of sessions)
        if (state.subscriptions.has(uri))
          send(state, { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } }, undefined);
    },
    openSession(sessionOptions) {
      const state: SessionState = {
        options: sessionOptions,
        protocolVersion: undefined,
        clientInfo: undefined,
        clientCapabilities: {},
        logLevel: "debug",
        closed: false,
        calls: new Map(),
        outgoing: new Map(),
        nextId: 1,
        subscriptions: new Set(),
      };
      sessions.add(state);
      const session: ServerSession = {
        id: sessionOptions.id,
        get protocolVersion() {
          return state.protocolVersion;
        },
        get closed() {
          return state.closed;
        },
        receive(value) {
          if (state.closed) return;
          if (Array.isArray(value)) {
            if (value.length === 0)
              send(state, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: empty batch" } }, undefined);
            for (const item of value) receiveOne(state, item);
          } else {
            receiveOne(state, value);
          }
        },
        close() {
          if (state.closed) return;
          for (const controller of state.calls.values()) controller.abort(new Error("session closed"));
          for (const pending of [...state.outgoing.values()]) {
            pending.cleanup();
            pending.reject(new RpcHandlerError(-32000, "Session closed"));
          }
          state.closed = true;
          sessions.delete(state);
        },
      };
      return session;
    },
  };
}

const CANCELLED = Symbol("cancelled");
const RUNNING = Symbol("running");
/** Two turns of the event loop: a handler's first missing input (signalled on the next turn) is seen first. */
const twoTicks = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
const INPUT_REQUIRED = Symbol("input required");
