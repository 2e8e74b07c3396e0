/**
 * The session-caller core that the stdio, HTTP and in-memory callers share, as every protocol's
 * transport in connect-es shares `protocol/run-call.ts`. It owns what a caller does once a
 * connection exists and how one comes to exist: the shared connect (a call's abort stops only that
 * call's wait), the `tools/call` hot path, the tool-list bookkeeping, redaction of configured
 * secrets in every failure, the method shells, notify, close and the restart backoff. A transport
 * supplies only a connector: open a connection with a live session, dispose one, and report one lost.
 */

import { connectionOf } from "../core/telemetry.js";
import { redactFailureValues, redactValues, registerSecretValues, type ToolFailure } from "../failure/failure.js";
import { callContext, type FailureContext, failureFromFault, failureFromLocal } from "../failure/failure-mapping.js";
import type { WireFault } from "../failure/wire-fault.js";
import { withClientTasks, withTaskCapabilities } from "../protocol/client-tasks.js";
import {
  type ClientIdentity,
  capabilitiesFromHandlers,
  listToolsPaged,
  openListen,
  type RequestContext,
  type Session,
  sendRequest,
  traceMeta,
} from "../protocol/mcp-client.js";
import { DEFAULT_CLIENT_INFO, type Outcome } from "../protocol/mcp-session.js";
import type { ServerHandshake, ToolDescriptor } from "../protocol/mcp-types.js";
import { type PeerRequestOptions, watchAbort } from "../protocol/rpc-peer.js";
import { callToolTasked, startToolTask, taskSupportOf } from "../protocol/task-call.js";
import { revisionOf } from "../revisions/registry.js";
import { createRestartBackoff } from "./backoff.js";
import { CallerClosedError, type CallOptions, type CallRequest, type CallResponse, type SessionCaller } from "./caller.js";
import { LIVE, PLAIN_CALLER } from "./caller-prototype.js";
import type { ConnectorLink, SessionConnection, SessionConnector, SessionCoreSpec } from "./connector.js";
import { createSessionClock } from "./session-clock.js";
import { createSurface } from "./surface.js";
import { toolTask } from "./tool-task.js";

/** The core's handle: the live connection, for the transport's own getters, and the finished caller. */
export interface SessionCore<C extends SessionConnection> {
  /** The live connection, if any. */
  live(): C | undefined;
  /** Removes the configured secrets from a text. */
  scrub(text: string): string;
  /** The caller: the shared methods plus the transport's own (data properties; getters go in `spec.prototype`). */
  caller<X extends object>(extra: X): SessionCaller & X;
}

type Failed = { readonly ok: false; readonly failure: ToolFailure };

const NO_OPTIONS: CallOptions = Object.freeze({});
const closedFault: WireFault = { type: "transport", code: "ECLOSED", message: "the caller is closed" };

/** Creates the core of one caller; `connect` builds the transport's connector on the link it is given. */
export function createSessionCore<C extends SessionConnection>(
  spec: SessionCoreSpec,
  connect: (link: ConnectorLink<C>) => SessionConnector<C>,
): SessionCore<C> {
  // Read out of the spec here, so no closure below keeps the spec object itself.
  const { server, options, secrets, warn, listen: listenOnConnect, prototype = PLAIN_CALLER } = spec;
  const tasks = options.tasks !== false;
  const handlers = tasks ? withClientTasks(options.handlers) : options.handlers;
  const declared = options.capabilities ?? capabilitiesFromHandlers(options.handlers);
  const identity: ClientIdentity = {
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    capabilities: tasks ? withTaskCapabilities(declared, options.handlers) : declared,
    protocolVersion: options.protocolVersion,
  };
  const backoff = spec.restart ? createRestartBackoff(spec.restart) : undefined;
  const timeoutMs = options.timeoutMs ?? 60_000;
  // Calls without options (the common case) share one peer-options object.
  const defaultPeerOptions: PeerRequestOptions = { timeoutMs };
  // Every failure built while this caller is open is scrubbed of the secrets, whatever path builds it.
  const releaseSecrets = registerSecretValues(secrets);
  /** Aborted by close(): ends a connect (or a backoff wait) in progress. */
  const life = new AbortController();
  let current: C | undefined;
  let connecting: Promise<Outcome<C>> | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  /** Resources subscribed to; the 2026-07-28 `subscriptions/listen` carries them. */
  let listenUris: readonly string[] = [];
  const live = () => current;
  /** The finished caller (set by caller()), read for the session metric's attributes. */
  let made: object | undefined;
  const clock = createSessionClock(options.meter);
  const connector = connect({
    identity,
    era: spec.era,
    handlers,
    notification(conn, notification) {
      if (notification.method === "notifications/tools/list_changed") {
        // Forget what the old list said, so the next call lists again and sees changed task support
        // or a tool that came back.
        conn.taskSupport = undefined;
        conn.dropped = undefined;
      }
      handle.observe(notification);
      options.onNotification?.(notification);
    },
    lost(conn) {
      clock.end(conn, "connection_lost");
      conn.alive = false;
      if (current === conn) current = undefined;
    },
    crashed() {
      if (!closed) backoff?.failed();
    },
  });

  // A call's failures are built with its context (the arguments sent, the facts handed down);
  // other requests name the method. Built on the failure path only, never on the hot path.
  const fail = (fault: WireFault, at: string | FailureContext): Failed => ({
    ok: false,
    failure: redactFailureValues(failureFromFault(fault, typeof at === "string" ? { tool: at, server } : at), secrets),
  });
  const callAt = (request: CallRequest, callOptions: CallOptions) => callContext(server, request, callOptions.facts);

  function peerOptions(o: CallOptions): PeerRequestOptions {
    if (o === NO_OPTIONS) return defaultPeerOptions;
    const { timeoutMs: ms, signal, onProgress, resetTimeoutOnProgress: reset, maxTotalTimeoutMs: max, onRequestId } = o;
    // Options with nothing for the peer (the manager's facts, a task's settings) share it as well.
    if (ms === undefined && signal === undefined && onProgress === undefined && reset === undefined && max === undefined && !onRequestId)
      return defaultPeerOptions;
    return { timeoutMs: ms ?? timeoutMs, signal, onProgress, resetTimeoutOnProgress: reset, maxTotalTimeoutMs: max, onRequestId };
  }

  function contextOf(conn: C): RequestContext {
    conn.context ??= {
      session: conn.session as Session,
      identity,
      handlers,
      maxInputRounds: options.maxInputRounds,
      ...(connector.plansFromToolList
        ? {
            onHeaderMismatch: async () => {
              await listInto(conn, NO_OPTIONS);
            },
          }
        : {}),
    };
    return conn.context;
  }

  async function open(): Promise<Outcome<C>> {
    if (backoff) await backoff.wait(life.signal);
    if (life.signal.aborted) return { ok: false, fault: { type: "canceled", message: "the caller was closed while connecting" } };
    const outcome = await connector.open(life.signal);
    if (!outcome.ok) {
      // A crash is counted when the process exits; a server that answers badly or not at all, here.
      if (outcome.fault.type === "timeout" || outcome.fault.type === "rpc") backoff?.failed();
      return outcome;
    }
    const conn = outcome.value;
    // close() ran while this connect was in flight: dispose it now, or its child process would outlive the caller.
    if (closed) {
      await connector.dispose(conn);
      return { ok: false, fault: closedFault };
    }
    // A server that came up again starts from the first restart delay next time it fails.
    backoff?.reset();
    current = conn;
    clock.start(conn, () => connectionOf(made));
    // A listen lives on one connection; a new connection opens it again with the subscribed URIs.
    if (listensFor(conn) && (listenOnConnect || listenUris.length > 0)) listen(conn);
    return outcome;
  }

  /**
   * The live connection, connecting if needed. The connect is shared by every waiting call, so it
   * runs on the caller's own life signal; a call's signal only stops that call's wait.
   */
  function ensure(signal: AbortSignal | undefined): Promise<Outcome<C>> {
    // Using a caller after close() is a programmer error, the one case that throws. Calls already
    // in flight when close() runs still resolve as failure values.
    if (closed) return Promise.reject(new CallerClosedError(server));
    if (current?.alive) return Promise.resolve({ ok: true, value: current });
    connecting ??= open().finally(() => {
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

  /** Drops a connection the server forgot, so the retry opens a new one. */
  function drop(conn: C): void {
    clock.end(conn, "session_expired");
    conn.alive = false;
    if (current === conn) current = undefined;
    void connector.dispose(conn);
  }

  /** Runs `fn` on a live connection; a lost session is opened again once and `fn` retried. */
  async function run<R extends { readonly ok: true } | { readonly ok: false; readonly fault: WireFault }>(
    signal: AbortSignal | undefined,
    fn: (conn: C) => Promise<R>,
  ): Promise<R | { readonly ok: false; readonly fault: WireFault }> {
    for (let attempt = 0; ; attempt++) {
      const opened = await ensure(signal);
      if (!opened.ok) return opened;
      const outcome = await fn(opened.value);
      // Only the first attempt retries: a server that forgets every new session fails instead of looping.
      if (!outcome.ok && attempt === 0 && connector.sessionLost?.(opened.value, outcome.fault)) {
        drop(opened.value);
        continue;
      }
      return outcome;
    }
  }

  /** Lists every tool; keeps each one's task support, and what the connector plans from the list. */
  async function listInto(conn: C, callOptions: CallOptions): Promise<Outcome<ToolDescriptor[]>> {
    const outcome = await listToolsPaged(conn.peer, contextOf(conn), peerOptions(callOptions));
    if (!outcome.ok) return outcome;
    conn.taskSupport = taskSupportOf(outcome.value);
    return connector.planTools ? { ok: true, value: connector.planTools(conn, outcome.value) } : outcome;
  }

  /** Whether a call must list tools first: header plans (2026-07-28 over HTTP), or a task-capable legacy server. */
  function needsList(conn: C): boolean {
    const session = conn.session as Session;
    return revisionOf(session).needsToolList(session.handshake.capabilities, connector.plansFromToolList === true);
  }

  /** Whether the connection's revision delivers subscriptions through `subscriptions/listen`. */
  function listensFor(conn: C): boolean {
    return conn.session !== undefined && revisionOf(conn.session).subscriptions === "listen";
  }

  function listen(conn: C): void {
    conn.listen?.abort();
    conn.listen = openListen(
      conn.peer,
      contextOf(conn),
      (fault) => {
        // A listen that ends with its connection is expected; only one lost on a live connection is worth a warning.
        if (conn.alive) warn(`subscriptions/listen ended: ${fault.message}`);
      },
      {},
      listenUris,
    );
  }

  /**
   * The hot path: a live connection that needs no tool list first and a tool it did not drop is
   * one call. Anything else goes through `callToolOpening`, and so does the one retry of a lost session.
   */
  function callTool(request: CallRequest, callOptions: CallOptions = NO_OPTIONS): Promise<CallResponse> {
    const conn = closed ? undefined : current?.alive ? current : undefined;
    if (conn === undefined || (conn.taskSupport === undefined && needsList(conn)) || conn.dropped?.has(request.name))
      return callToolOpening(request, callOptions, 0);
    return callOn(conn, request, callOptions, 0);
  }

  /**
   * The `tools/call` of attempt `attempt` (0, or 1 for the retry) on `conn`, its outcome mapped in
   * the answer's own promise step: no async frame, and no closure but the one mapping the answer.
   */
  function callOn(conn: C, request: CallRequest, callOptions: CallOptions, attempt: number): Promise<CallResponse> {
    try {
      return callToolTasked(
        conn.peer,
        conn.context ?? contextOf(conn),
        request,
        options.traceContext ? traceMeta(options.traceContext) : undefined,
        callOptions === NO_OPTIONS ? defaultPeerOptions : peerOptions(callOptions),
        conn.taskSupport?.get(request.name),
        callOptions.task,
        (outcome): CallResponse | Promise<CallResponse> =>
          outcome.ok ? outcome : afterFailure(conn, outcome.fault, request, callOptions, attempt),
      );
    } catch (error) {
      // A throwing traceContext function fails this call's promise, as it did inside an async function.
      return Promise.reject(error);
    }
  }

  function afterFailure(conn: C, fault: WireFault, request: CallRequest, callOptions: CallOptions, attempt: number) {
    // Only the first attempt retries: a server that forgets every new session fails instead of looping.
    if (attempt === 0 && connector.sessionLost?.(conn, fault)) {
      drop(conn);
      return callToolOpening(request, callOptions, 1);
    }
    return fail(fault, callAt(request, callOptions));
  }

  async function callToolOpening(request: CallRequest, callOptions: CallOptions, attempt: number): Promise<CallResponse> {
    let conn = closed ? undefined : current?.alive ? current : undefined;
    if (conn === undefined) {
      const opened = await ensure(callOptions.signal);
      if (!opened.ok) return fail(opened.fault, callAt(request, callOptions));
      conn = opened.value;
    }
    if (conn.taskSupport === undefined && needsList(conn)) await listInto(conn, callOptions);
    // A tool left out of the list is not callable (its parameter headers cannot be built).
    const dropped = conn.dropped?.get(request.name);
    if (dropped !== undefined) {
      // Nothing was sent and no arguments can fix it: a local reason, so the planner replans.
      const message = `${server}: tool ${request.name} is unavailable: ${dropped}`;
      return { ok: false, failure: failureFromLocal("tool_unavailable", message, callAt(request, callOptions)) };
    }
    return callOn(conn, request, callOptions, attempt);
  }

  async function request(method: string, params: { readonly [key: string]: unknown } = {}, callOptions: CallOptions = NO_OPTIONS) {
    const outcome = await run(callOptions.signal, async (conn) => {
      const result = await sendRequest(conn.peer, contextOf(conn), method, params, peerOptions(callOptions));
      return result.ok ? { ok: true as const, value: result.result } : result;
    });
    return outcome.ok ? ({ ok: true, value: outcome.value } as const) : fail(outcome.fault, method);
  }

  const handle = createSurface({
    server,
    request,
    live,
    async connect(callOptions) {
      const outcome = await ensure(callOptions.signal);
      return outcome.ok ? { ok: true, value: undefined } : fail(outcome.fault, "connect");
    },
    listenTo(uris) {
      listenUris = uris;
      const conn = current;
      if (conn?.alive) {
        if (listensFor(conn)) listen(conn);
        else connector.openNotificationStream?.(conn);
      }
      return { ok: true, value: undefined };
    },
    onListChanged: options.onListChanged,
  });

  // Made once, by caller(): a const holding it would keep a second copy alive in this scope.
  const own = (): Omit<SessionCaller, "handshake"> => ({
    ...handle.methods(),
    server,
    async connect(connectOptions = {}) {
      const outcome = await ensure(connectOptions.signal);
      return outcome.ok ? { ok: true, value: outcome.value.session?.handshake as ServerHandshake } : fail(outcome.fault, "initialize");
    },
    callTool,
    async startToolTask(call: CallRequest, callOptions: CallOptions = NO_OPTIONS) {
      const outcome = await run(callOptions.signal, async (conn) => {
        // Always lists first (not only when needsList): whether the tool may run as a task decides the request.
        if (conn.taskSupport === undefined) await listInto(conn, callOptions);
        const support = conn.taskSupport?.get(call.name);
        return startToolTask(
          conn.peer,
          contextOf(conn),
          call,
          traceMeta(options.traceContext),
          peerOptions(callOptions),
          support,
          callOptions.task,
        );
      });
      const at = callAt(call, callOptions);
      if (!outcome.ok) return fail(outcome.fault, at);
      return { ok: true as const, value: toolTask(outcome.value, (fault) => fail(fault, at)) };
    },
    async listTools(callOptions: CallOptions = NO_OPTIONS) {
      const outcome = await run(callOptions.signal, (conn) => listInto(conn, callOptions));
      return outcome.ok ? { ok: true, value: outcome.value } : fail(outcome.fault, "tools/list");
    },
    request,
    async ping(callOptions: CallOptions = NO_OPTIONS) {
      const outcome = await run(callOptions.signal, (conn) =>
        // The revision names its liveness request (2026-07-28 has no ping).
        conn.session !== undefined && revisionOf(conn.session).liveness === "server/discover"
          ? sendRequest(conn.peer, contextOf(conn), "server/discover", {}, peerOptions(callOptions))
          : conn.peer.request("ping", undefined, peerOptions(callOptions)),
      );
      return outcome.ok ? { ok: true, value: undefined } : fail(outcome.fault, "ping");
    },
    async notify(method, params) {
      // A notification never opens a connection: sent before any session, it has nothing to belong to.
      const conn = current;
      if (!conn?.alive) return false;
      return conn.peer.notify(method, params).then(
        () => true,
        () => false,
      );
    },
    close() {
      if (!closed) {
        closed = true;
        life.abort();
      }
      // A second close() waits for the same work instead of starting it again.
      closing ??= (async () => {
        const pending = connecting;
        if (pending) await pending.catch(() => undefined);
        const conn = current;
        current = undefined;
        if (conn) {
          clock.end(conn, undefined); // before dispose, whose process exit would report it lost
          await connector.dispose(conn);
        }
        await connector.close?.();
        // Released last, so failures built while disposing are still scrubbed of this caller's secrets.
        releaseSecrets();
      })();
      return closing;
    },
  });
  return {
    live,
    scrub: (text) => redactValues(text, secrets),
    caller<X extends object>(extra: X) {
      // One literal, then its prototype (caller-prototype.ts): a hidden class shared by every caller.
      made = Object.setPrototypeOf({ ...own(), ...extra, [LIVE]: live }, prototype) as SessionCaller & X;
      return made as SessionCaller & X;
    },
  };
}
