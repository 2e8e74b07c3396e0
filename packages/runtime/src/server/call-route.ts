/**
 * Routes one `tools/call` of a session to its handler, in whichever shape the era and the tool
 * call for: a plain call (legacy: input through server-to-client requests), a 2026-07-28 call whose
 * missing inputs end the round with `input_required`, or a task (2026-07-28 tasks extension; the
 * call answers a `CreateTaskResult` at once, or after its input rounds for "after-input" tools).
 */
import type { RpcRequest } from "../protocol/json-rpc.js";
import type { CallToolResult } from "../protocol/mcp-types.js";
import type { ParamHeader } from "../protocol/modern.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { openRound, type StateCodec } from "./input-required.js";
import { LazyAbortController } from "./lazy-abort.js";
import { type LegacyTaskStore, RELATED_TASK } from "./legacy-tasks.js";
import { checkParamHeaders, HEADER_MISMATCH, MISSING_CAPABILITY } from "./modern.js";
import { type RequestScope, requestClient, type SessionState, sendTo } from "./session.js";
import { declaresTasks, type TaskStore, tasksExtensionRequired } from "./task-server.js";
import { runToolCall } from "./tool-call.js";
import { CAPABILITY_FOR } from "./tool-catalog.js";
import { createToolContext } from "./tool-context.js";
import type { ServerTool } from "./types.js";

/** What the router needs from its server. */
export interface CallRouteDeps {
  readonly tools: ReadonlyMap<string, ServerTool<unknown>>;
  /** Tools whose arguments are mirrored into `Mcp-Param-*` headers. */
  readonly headerPlans: ReadonlyMap<string, readonly ParamHeader[]>;
  readonly stateCodec: StateCodec;
  /** The 2026-07-28 task store. */
  readonly tasks: TaskStore;
  /** The 2025-11-25 task store of a session, when the session negotiated a version with tasks and the server offers them. */
  readonly legacyTasks: (state: SessionState, scope: RequestScope) => LegacyTaskStore | undefined;
  readonly report: (error: unknown, where: string) => void;
}

/** Thrown (and swallowed by the session) for a call the client cancelled: MCP says not to answer it. */
export const CANCELLED = Symbol("cancelled");
const RUNNING = Symbol("running");
const INPUT_REQUIRED = Symbol("input required");
/** Two turns of the event loop: a handler's first missing input (signalled on the next turn) is seen first. */
const twoTicks = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** The request's `_meta`, or an empty one. */
const metaOf = (params: { readonly [key: string]: unknown }) =>
  (params._meta && typeof params._meta === "object" ? params._meta : {}) as { [key: string]: unknown };

/** The context parts every call shares: the request's era fields and its `_meta`. */
const scopeParts = (scope: RequestScope, params: { readonly [key: string]: unknown }) => ({
  protocolVersion: scope.version,
  clientInfo: scope.clientInfo,
  clientCapabilities: scope.capabilities,
  meta: metaOf(params),
});

/** Looks up the named tool; -32602 for an unknown or missing name. */
export function findTool(deps: CallRouteDeps, params: { readonly [key: string]: unknown }): ServerTool<unknown> {
  const name = params.name;
  const tool = typeof name === "string" ? deps.tools.get(name) : undefined;
  if (!tool) throw new RpcHandlerError(-32602, typeof name === "string" ? `Unknown tool: ${name}` : "tools/call needs a tool name");
  return tool;
}

/** Runs `tools/call` for a session; resolves with the result to answer (or throws `CANCELLED`). */
export function routeToolCall(deps: CallRouteDeps, state: SessionState, request: RpcRequest, scope: RequestScope): Promise<unknown> {
  const params = request.params ?? {};
  const tool = findTool(deps, params);
  const plan = deps.headerPlans.get(tool.name);
  if (scope.modern && plan && state.options.httpHeaders) {
    // Intermediaries route on the Mcp-Param-* headers: a body that says otherwise would run one value
    // where the headers promised another, so the call is refused.
    const mismatch = checkParamHeaders(plan, params.arguments, state.options.httpHeaders);
    if (mismatch) throw new RpcHandlerError(HEADER_MISMATCH, mismatch);
  }
  const support = tool.execution?.taskSupport;
  // The revision says how tasks come about: asked for by the client, or decided by the server.
  const legacy = scope.revision.tasks === "client-augmented" ? deps.legacyTasks(state, scope) : undefined;
  if (legacy) {
    // 2025-11-25: the client asks for a task with `task`; the tool's taskSupport says whether it may or must.
    const taskable = support === "optional" || support === "required";
    if (params.task !== undefined && !taskable)
      throw new RpcHandlerError(
        -32601,
        `Tool ${tool.name} cannot be called as a task (execution.taskSupport is "${support ?? "forbidden"}")`,
      );
    if (params.task === undefined && support === "required")
      throw new RpcHandlerError(-32601, `Tool ${tool.name} must be called as a task (execution.taskSupport is "required")`);
    if (params.task !== undefined) return Promise.resolve(startLegacyTask(deps, legacy, state, tool, request, scope, params));
  }
  // 2026-07-28 tasks extension: a task-supporting tool becomes a task for a client that declared it.
  const taskTool = scope.revision.tasks === "server-decided" && (support === "optional" || support === "required");
  if (taskTool && !declaresTasks(scope.capabilities) && support === "required") throw tasksExtensionRequired(`tool ${tool.name}`);
  const asTask = taskTool && declaresTasks(scope.capabilities);
  if (asTask && tool.taskStart !== "after-input") return Promise.resolve(startModernTask(deps, tool, request, scope, params));
  // 2026-07-28: inputs come from requestState/inputResponses; missing ones end the round.
  const round = scope.modern ? openRound(deps.stateCodec, tool.name, params) : undefined;
  const controller = new LazyAbortController();
  const ask = (key: string, method: string, body: { readonly [key: string]: unknown } | undefined, timeoutMs: number) => {
    if (!round) return requestClient(state, scope.capabilities, request.id, controller.signal, method, body, timeoutMs);
    const capability = CAPABILITY_FOR[method];
    if (capability !== undefined && scope.capabilities[capability] === undefined) {
      const data = { requiredCapabilities: { [capability]: {} } };
      return Promise.reject(new RpcHandlerError(MISSING_CAPABILITY, `Missing required client capability: ${capability}`, data));
    }
    return round.ask(key, { method, ...(body ? { params: body } : {}) });
  };
  // Registered by request id, so notifications/cancelled and session close can abort it.
  state.calls.set(request.id, controller);
  const ctx = createToolContext({
    // Read lazily: the AbortController is only made for a handler that looks at its signal.
    abort: controller,
    requestId: request.id,
    sessionId: state.options.id,
    // Spelt out rather than spread from `scopeParts`: this literal is made once per call.
    protocolVersion: scope.version,
    clientInfo: scope.clientInfo,
    clientCapabilities: scope.capabilities,
    meta: metaOf(params),
    logFloor: () => (scope.modern ? scope.logLevel : state.logLevel),
    notify: (method, body) => sendTo(state, { jsonrpc: "2.0", method, params: body }, request.id),
    ask,
    closeSseStream: () => state.options.closeStream?.(request.id),
  });
  const run = inRevisionShape(
    scope,
    runToolCall(tool, params.arguments, ctx, (error) => deps.report(error, `tool ${tool.name}`)),
  );
  // A replayed handler that waits for a missing input is abandoned; the round's result goes out.
  // An "after-input" task tool: once no input is missing and it still runs, the call becomes a task.
  // Not a task: a promise that never settles, so it never wins the race below.
  const outcome: Promise<unknown> = round
    ? Promise.race([
        run,
        round.blocked.then(() => INPUT_REQUIRED),
        asTask ? twoTicks().then(() => RUNNING) : new Promise<never>(() => {}),
      ]).then((value) => {
        if (value === RUNNING) return deps.tasks.start(scope.revision, () => run);
        if (value !== INPUT_REQUIRED) return asTask ? deps.tasks.start(scope.revision, async () => value as CallToolResult) : value;
        controller.abort(INPUT_REQUIRED);
        return round.result();
      })
    : run;
  const settle = () => {
    state.calls.delete(request.id);
    // A cancelled call is not answered (MCP: the receiver SHOULD NOT respond).
    if (controller.aborted && controller.signal.reason !== INPUT_REQUIRED) throw CANCELLED;
  };
  // `finally` spelt as one `then`: one promise step per call instead of finally's three.
  return outcome.then(
    (value) => {
      settle();
      return value;
    },
    (error: unknown) => {
      settle();
      throw error;
    },
  );
}

/** Answers a `CreateTaskResult` and runs the handler as that task; its input requests wait on `tasks/update`. */
function startModernTask(
  deps: CallRouteDeps,
  tool: ServerTool<unknown>,
  request: RpcRequest,
  scope: RequestScope,
  params: { readonly [key: string]: unknown },
) {
  return deps.tasks.start(scope.revision, (task) => {
    const ctx = createToolContext({
      abort: task,
      requestId: request.id,
      sessionId: undefined,
      ...scopeParts(scope, params),
      // The call's response is gone: notifications have nowhere to go (clients poll tasks/get).
      logFloor: () => undefined,
      notify: () => {},
      ask: (key, method, body) => task.ask(key, { method, ...(body ? { params: body } : {}) }),
      closeSseStream: () => {},
    });
    return inRevisionShape(
      scope,
      runToolCall(tool, params.arguments, ctx, (error) => deps.report(error, `task ${tool.name}`)),
    );
  });
}

/** A tool's result in the shape of the request's revision (no step at all when the revision keeps the handler's shape). */
function inRevisionShape(scope: RequestScope, run: Promise<CallToolResult>): Promise<CallToolResult> {
  const encode = scope.revision.encodeToolResult;
  return encode === undefined ? run : run.then(encode);
}

/**
 * Answers a 2025-11-25 `CreateTaskResult` and runs the handler as that task. Its notifications
 * (progress keeps the call's token for the task's life) carry the related-task key and go out
 * unrelated to any request (HTTP: the GET stream), since the call's own response is already sent.
 */
function startLegacyTask(
  deps: CallRouteDeps,
  store: LegacyTaskStore,
  state: SessionState,
  tool: ServerTool<unknown>,
  request: RpcRequest,
  scope: RequestScope,
  params: { readonly [key: string]: unknown },
) {
  const ttl = (params.task as { ttl?: unknown } | null)?.ttl;
  return store.start(ttl, (task) => {
    const related = { [RELATED_TASK]: { taskId: task.taskId } };
    const ctx = createToolContext({
      abort: task,
      requestId: request.id,
      sessionId: state.options.id,
      ...scopeParts(scope, params),
      logFloor: () => state.logLevel,
      notify: (method, body) => sendTo(state, { jsonrpc: "2.0", method, params: { ...body, _meta: related } }, undefined),
      ask: (_key, method, body, timeoutMs) => task.ask(method, body, timeoutMs),
      closeSseStream: () => {},
    });
    return inRevisionShape(
      scope,
      runToolCall(tool, params.arguments, ctx, (error) => deps.report(error, `task ${tool.name}`)),
    );
  });
}
