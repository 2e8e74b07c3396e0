/**
 * `createStdioCaller`: an MCP caller for a server started as a child process. Connects lazily,
 * restarts a crashed server with backoff on the next call, and fails in-flight calls as values.
 */

import { redactFailureValues, redactValues, registerSecretValues, type ToolFailure } from "../failure/failure.js";
import { failureFromFault } from "../failure/failure-mapping.js";
import { withClientTasks, withTaskCapabilities } from "../protocol/client-tasks.js";
import {
  type ClientIdentity,
  capabilitiesFromHandlers,
  createConnectBudget,
  type EraPreference,
  effectiveEra,
  listToolsPaged,
  openListen,
  openSession,
  type RequestContext,
  type Session,
  sendRequest,
  traceMeta,
} from "../protocol/mcp-client.js";
import { DEFAULT_CLIENT_INFO, type Outcome } from "../protocol/mcp-session.js";
import type { ServerHandshake } from "../protocol/mcp-types.js";
import { createRpcPeer, type RpcPeer, watchAbort } from "../protocol/rpc-peer.js";
import { callToolTasked, serverRunsToolTasks, startToolTask, taskSupportOf } from "../protocol/task-call.js";
import type { WireFault } from "../protocol/wire-fault.js";
import { configuredEnvValues, type EnvSpec, redactFaultValues } from "../transport/environment.js";
import { type StdioProcess, startStdioProcess } from "../transport/stdio-process.js";
import {
  CallerClosedError,
  type CallOptions,
  type CallRequest,
  type CallResponse,
  type SessionCaller,
  type SessionCallerOptions,
} from "./caller.js";
import { createSurface } from "./surface.js";
import { toolTask } from "./tool-task.js";

/** Options for `createStdioCaller`. */
export interface StdioCallerOptions extends SessionCallerOptions {
  /** Server name used in failures. Defaults to the command's base name. */
  readonly name?: string;
  readonly command: string;
  readonly args?: readonly string[];
  /** `NAME` entries pass the parent's value through; `KEY=VALUE` entries are literals. */
  readonly env?: EnvSpec;
  readonly cwd?: string;
  /** `legacy` (default): `initialize`. `auto`: `server/discover` probe, then `initialize`. `modern`: 2026-07-28 only. */
  readonly era?: EraPreference;
  /** Time allowed for the `server/discover` probe in `auto` mode. Default min(connect timeout, 3 s). */
  readonly probeTimeoutMs?: number;
  /** Lines on stdout that are not JSON-RPC. */
  readonly onNoise?: (reason: string) => void;
  readonly maxMessageBytes?: number;
  readonly stderrBytes?: number;
  readonly closeGraceMs?: number;
  /** First restart delay after a crash; doubles per consecutive failure up to `maxRestartDelayMs`. */
  readonly restartDelayMs?: number;
  readonly maxRestartDelayMs?: number;
}

/** A stdio caller. */
export interface StdioCaller extends SessionCaller {
  /** pid of the live child, if any. */
  readonly pid: number | undefined;
  /** stderr kept from the current or last child. */
  stderrTail(): string;
  close(): Promise<void>;
}

interface Connection {
  readonly process: StdioProcess;
  readonly peer: RpcPeer;
  handshake: ServerHandshake | undefined;
  session: Session | undefined;
  alive: boolean;
  /** Modern era: the open `subscriptions/listen` request. */
  listen?: AbortController | undefined;
  /** Each listed tool's `execution.taskSupport`, once tools were listed (dropped on tools/list_changed). */
  taskSupport?: Map<string, string> | undefined;
}

/** Waits `ms`, or less when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    const stop = watchAbort(signal, done);
    function done() {
      clearTimeout(timer);
      stop();
      resolve();
    }
  });
}

/** Creates a caller for a stdio MCP server. Nothing is spawned until the first call or `connect()`. */
export function createStdioCaller(options: StdioCallerOptions): StdioCaller {
  const server = options.name ?? options.command.split(/[\\/]/).pop() ?? options.command;
  const tasks = options.tasks !== false;
  const handlers = tasks ? withClientTasks(options.handlers) : options.handlers;
  const declared = options.capabilities ?? capabilitiesFromHandlers(options.handlers);
  const identity: ClientIdentity = {
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    capabilities: tasks ? withTaskCapabilities(declared, options.handlers) : declared,
    protocolVersion: options.protocolVersion,
  };
  // stdio defaults to the legacy handshake: probing costs a round trip on every spawn.
  const era = effectiveEra(options.era ?? (options.protocolVersion ? "auto" : "legacy"), options.protocolVersion);
  const sessionContext = (conn: Connection): RequestContext => ({
    session: conn.session as Session,
    identity,
    handlers,
    maxInputRounds: options.maxInputRounds,
  });
  let current: Connection | undefined;
  /** Resources subscribed to; the modern `subscriptions/listen` carries them. */
  let listenUris: readonly string[] = [];
  let connecting: Promise<Outcome<Connection>> | undefined;
  let failures = 0;
  let lastFailureAt = 0;
  let lastStderr = "";
  let closed = false;
  const life = new AbortController();
  // Configured env values are secrets: a server may echo them to stderr before it dies.
  const secrets = configuredEnvValues(options.env);
  // Every failure built while this caller is open is scrubbed of them, whatever path builds it.
  const releaseSecrets = registerSecretValues(secrets);
  const scrub = (text: string) => redactValues(text, secrets);
  const fail = (fault: WireFault, context: { tool: string; server: string }): ToolFailure =>
    redactFailureValues(failureFromFault(fault, context), secrets);

  /** Processes being stopped after a failed connect; close() waits for every one of them. */
  const stopping = new Set<Promise<void>>();
  function stopInBackground(conn: Connection): void {
    const done = conn.process.close().finally(() => stopping.delete(done));
    stopping.add(done);
  }

  function spawnConnection(): Connection {
    let conn: Connection | undefined;
    const proc = startStdioProcess(
      {
        command: options.command,
        ...(options.args ? { args: options.args } : {}),
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
        ...(options.stderrBytes ? { stderrBytes: options.stderrBytes } : {}),
        ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
      },
      {
        onMessage: (value) => peer.receive(value),
        onNoise: (reason) => options.onNoise?.(reason),
        onOversizeEnd: ({ bytes, id }) => {
          const limit = options.maxMessageBytes ?? 16 * 1024 * 1024;
          const message = `answer of ${bytes} bytes exceeds the ${limit}-byte message size limit`;
          if (id !== undefined) peer.fail(id, { type: "transport", code: "EOVERSIZE", message });
        },
        onExit: (fault: WireFault) => {
          if (fault.type === "transport" && fault.stderrTail) lastStderr = fault.stderrTail;
          if (conn) {
            conn.alive = false;
            conn.listen?.abort();
          }
          if (current === conn) current = undefined;
          if (!closed) {
            failures++;
            lastFailureAt = Date.now();
          }
          peer.failAll(fault);
        },
      },
    );
    const peer = createRpcPeer({
      send: (message) => {
        try {
          proc.send(message);
        } catch (error) {
          // stdin is gone before "close" arrived (EPIPE after a crash): the connection is dead now.
          // Keeping it current would fail every retry at once, in microtasks that never let "close" run.
          if (conn) conn.alive = false;
          if (current === conn) current = undefined;
          throw error;
        }
      },
      onNotification: (notification) => {
        if (conn && notification.method === "notifications/tools/list_changed") conn.taskSupport = undefined;
        handle.observe(notification);
        options.onNotification?.(notification);
      },
      ...(handlers ? { handlers } : {}),
      ...(options.onNoise ? { onProtocolNoise: options.onNoise } : {}),
    });
    conn = { process: proc, peer, handshake: undefined, session: undefined, alive: true };
    return conn;
  }

  async function open(signal: AbortSignal): Promise<Outcome<Connection>> {
    if (failures > 0) {
      const delay = Math.min((options.restartDelayMs ?? 100) * 2 ** (failures - 1), options.maxRestartDelayMs ?? 5000);
      const wait = lastFailureAt + delay - Date.now();
      if (wait > 0) await sleep(wait, signal);
    }
    if (signal.aborted) return { ok: false, fault: { type: "canceled", message: "the caller was closed while connecting" } };
    const conn = spawnConnection();
    const outcome = await openSession(conn.peer, identity, era, {
      budget: createConnectBudget(options.connectTimeoutMs ?? 10_000),
      probeTimeoutMs: options.probeTimeoutMs ?? 3000,
      signal,
    });
    if (!outcome.ok) {
      conn.alive = false;
      // The failure answers now, at its deadline; stopping the process (stdin, SIGTERM, SIGKILL with
      // their grace periods) goes on in the background, and close() waits for it.
      stopInBackground(conn);
      lastStderr = conn.process.stderrTail() || lastStderr;
      const fault = outcome.fault;
      if (fault.type === "timeout" || fault.type === "rpc") {
        failures++;
        lastFailureAt = Date.now();
      }
      if (fault.type === "transport" || fault.type === "timeout") {
        return { ok: false, fault: { ...fault, ...(lastStderr ? { stderrTail: lastStderr } : {}) } as WireFault };
      }
      return outcome;
    }
    conn.session = outcome.value;
    conn.handshake = outcome.value.handshake;
    if (!conn.alive)
      return { ok: false, fault: { type: "transport", code: "EXIT", message: "server exited during initialize", stderrTail: lastStderr } };
    failures = 0;
    current = conn;
    if (outcome.value.era === "modern" && (options.onNotification || options.onListChanged || listenUris.length > 0)) listen(conn);
    return { ok: true, value: conn };
  }

  /** Modern era: a `subscriptions/listen` carrying the list filters and the subscribed resources. */
  function listen(conn: Connection): void {
    conn.listen?.abort();
    conn.listen = openListen(
      conn.peer,
      sessionContext(conn),
      (fault) => options.onNoise?.(`subscriptions/listen ended: ${fault.message}`),
      {},
      listenUris,
    );
  }

  function ensure(signal: AbortSignal | undefined): Promise<Outcome<Connection>> {
    // Using a caller after close() is a programmer error, the one case that throws. Calls already
    // in flight when close() runs still resolve as failure values.
    if (closed) return Promise.reject(new CallerClosedError(server));
    if (current?.alive) return Promise.resolve({ ok: true, value: current });
    // The connect is shared by every waiting call, so it runs on the caller's own life signal
    // (aborted by close()); a call's signal only stops that call's wait.
    connecting ??= open(life.signal).finally(() => {
      connecting = undefined;
    });
    const shared = connecting;
    if (!signal) return shared;
    if (signal.aborted) return Promise.resolve({ ok: false, fault: { type: "canceled", message: "aborted before connecting" } });
    return new Promise((resolve) => {
      const stop = watchAbort(signal, () => resolve({ ok: false, fault: { type: "canceled", message: "aborted while connecting" } }));
      void shared.then((outcome) => {
        stop();
        resolve(outcome);
      });
    });
  }

  const peerOptions = (o: CallOptions) => ({
    timeoutMs: o.timeoutMs ?? options.timeoutMs ?? 60_000,
    signal: o.signal,
    onProgress: o.onProgress,
    resetTimeoutOnProgress: o.resetTimeoutOnProgress,
    maxTotalTimeoutMs: o.maxTotalTimeoutMs,
  });

  /** Lists every tool and keeps each one's taskSupport on the connection. */
  async function listInto(conn: Connection, callOptions: CallOptions) {
    const outcome = await listToolsPaged(conn.peer, sessionContext(conn), peerOptions(callOptions));
    if (outcome.ok) conn.taskSupport = taskSupportOf(outcome.value);
    return outcome;
  }

  async function request(method: string, params: { readonly [key: string]: unknown } = {}, callOptions: CallOptions = {}) {
    const context = { tool: method, server };
    const conn = await ensure(callOptions.signal);
    if (!conn.ok) return { ok: false, failure: fail(conn.fault, context) } as const;
    const outcome = await sendRequest(conn.value.peer, sessionContext(conn.value), method, params, peerOptions(callOptions));
    return outcome.ok ? ({ ok: true, result: outcome.result } as const) : ({ ok: false, failure: fail(outcome.fault, context) } as const);
  }

  const handle = createSurface({
    server,
    request,
    era: () => current?.session?.era,
    serverCapabilities: () => current?.handshake?.capabilities,
    async connect(callOptions) {
      const conn = await ensure(callOptions.signal);
      return conn.ok ? { ok: true, value: undefined } : { ok: false, failure: fail(conn.fault, { tool: "connect", server }) };
    },
    listenTo(uris) {
      listenUris = uris;
      if (current?.alive && current.session?.era === "modern") listen(current);
      return { ok: true, value: undefined };
    },
    onListChanged: options.onListChanged,
  });

  return {
    ...handle.surface,
    server,
    get handshake() {
      return current?.handshake;
    },
    get pid() {
      return current?.process.pid;
    },
    stderrTail: () => scrub(current?.process.stderrTail() ?? lastStderr),
    async connect(connectOptions = {}) {
      const outcome = await ensure(connectOptions.signal);
      return outcome.ok
        ? { ok: true, value: outcome.value.handshake as ServerHandshake }
        : { ok: false, fault: redactFaultValues(outcome.fault, secrets) };
    },
    async callTool(request: CallRequest, callOptions: CallOptions = {}): Promise<CallResponse> {
      const context = { tool: request.name, server };
      // Live connection: skip ensure()'s promise and its extra await (the hot path).
      let live = closed ? undefined : current?.alive ? current : undefined;
      if (!live) {
        const conn = await ensure(callOptions.signal);
        if (!conn.ok) return { ok: false, failure: fail(conn.fault, context) };
        live = conn.value;
      }
      // A task-capable legacy server: learn each tool's taskSupport once, from the tool list.
      if (live.taskSupport === undefined && live.session?.era === "legacy" && serverRunsToolTasks(live.session.handshake.capabilities))
        await listInto(live, callOptions);
      const outcome = await callToolTasked(
        live.peer,
        sessionContext(live),
        request,
        traceMeta(options.traceContext),
        peerOptions(callOptions),
        live.taskSupport?.get(request.name),
        callOptions.task,
      );
      return outcome.ok ? { ok: true, result: outcome.value } : { ok: false, failure: fail(outcome.fault, context) };
    },
    async startToolTask(request: CallRequest, callOptions: CallOptions = {}) {
      const context = { tool: request.name, server };
      const conn = await ensure(callOptions.signal);
      if (!conn.ok) return { ok: false, failure: fail(conn.fault, context) };
      if (conn.value.taskSupport === undefined) await listInto(conn.value, callOptions);
      const live = conn.value;
      const started = await startToolTask(
        live.peer,
        sessionContext(live),
        request,
        traceMeta(options.traceContext),
        peerOptions(callOptions),
        live.taskSupport?.get(request.name),
        callOptions.task,
      );
      if (!started.ok) return { ok: false, failure: fail(started.fault, context) };
      return { ok: true, task: toolTask(started.value, (fault) => ({ ok: false, failure: fail(fault, context) })) };
    },
    async listTools(callOptions: CallOptions = {}) {
      const context = { tool: "tools/list", server };
      const conn = await ensure(callOptions.signal);
      if (!conn.ok) return { ok: false, failure: fail(conn.fault, context) };
      const outcome = await listInto(conn.value, callOptions);
      return outcome.ok ? { ok: true, tools: outcome.value } : { ok: false, failure: fail(outcome.fault, context) };
    },
    request,
    async ping(callOptions: CallOptions = {}) {
      const context = { tool: "ping", server };
      const conn = await ensure(callOptions.signal);
      if (!conn.ok) return { ok: false, failure: fail(conn.fault, context) };
      // 2026-07-28 has no ping; server/discover is the cheapest liveness request there.
      const outcome =
        conn.value.session?.era === "modern"
          ? await sendRequest(conn.value.peer, sessionContext(conn.value), "server/discover", {}, peerOptions(callOptions))
          : await conn.value.peer.request("ping", undefined, peerOptions(callOptions));
      return outcome.ok ? { ok: true } : { ok: false, failure: fail(outcome.fault, context) };
    },
    async notify(method: string, params?: { readonly [key: string]: unknown }) {
      const conn = current;
      if (!conn?.alive) return false;
      return conn.peer.notify(method, params).then(
        () => true,
        () => false,
      );
    },
    async close() {
      closed = true;
      life.abort();
      const pendingConnect = connecting;
      if (pendingConnect) await pendingConnect.catch(() => undefined);
      const conn = current;
      current = undefined;
      if (conn?.listen) {
        conn.listen.abort();
        // Let the peer write notifications/cancelled for the listen request before stdin ends.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (conn) await conn.process.close();
      while (stopping.size > 0) await Promise.all([...stopping]);
      releaseSecrets();
    },
  };
}
