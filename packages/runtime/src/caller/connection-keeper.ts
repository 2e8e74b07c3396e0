/**
 * The connection half of the session-caller core (session-core.ts): it keeps the one live
 * connection, opens it (shared by every waiting call, behind the restart backoff), drops one the
 * server forgot, retries a request once on a new session, lists tools into a connection, opens the
 * 2026-07-28 `subscriptions/listen`, and runs the `tools/call` hot path. The caller's methods in
 * session-core.ts are thin shells over it.
 *
 * A class, not a factory of closures: the caller's state and helpers live on one object whose
 * methods sit on the prototype, so holding a caller costs no more heap than the single closure scope
 * it replaced (docs/performance.md, "Heap per connection"), and the core's factory stays short.
 */

import { redactFailureValues, registerSecretValues, type ToolFailure } from "../failure/failure.js";
import { callContext, type FailureContext, failureFromFault, failureFromLocal } from "../failure/failure-mapping.js";
import type { WireFault } from "../failure/wire-fault.js";
import type { RpcNotification } from "../protocol/json-rpc.js";
import { type ClientIdentity, listToolsPaged, openListen, type RequestContext, type Session, traceMeta } from "../protocol/mcp-client.js";
import type { Outcome } from "../protocol/mcp-session.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import { type PeerRequestOptions, type RequestHandler, watchAbort } from "../protocol/rpc-peer.js";
import { callToolTasked, taskSupportOf } from "../protocol/task-call.js";
import { revisionOf } from "../revisions/registry.js";
import { createRestartBackoff, type RestartBackoff } from "./backoff.js";
import { CallerClosedError, type CallOptions, type CallRequest, type CallResponse, type SessionCallerOptions } from "./caller.js";
import type { ConnectorLink, SessionConnection, SessionConnector, SessionCoreSpec } from "./connector.js";
import { createSessionClock, type SessionClock } from "./session-clock.js";
import { connectionOf } from "./telemetry-facts.js";

/** A failed answer carrying its (scrubbed) failure. */
export type Failed = { readonly ok: false; readonly failure: ToolFailure };

/** The options object of calls made without options: compared by identity on the hot path. */
export const NO_OPTIONS: CallOptions = Object.freeze({});

const closedFault: WireFault = { type: "transport", code: "ECLOSED", message: "the caller is closed" };

/** The caller's connection state and the requests that need it; see the file comment. */
export class ConnectionKeeper<C extends SessionConnection> {
  readonly server: string;
  readonly options: SessionCallerOptions;
  readonly secrets: readonly string[];
  readonly connector: SessionConnector<C>;
  /** Calls without options (the common case) share one peer-options object. */
  readonly defaultPeerOptions: PeerRequestOptions;
  /** Aborted by close(): ends a connect (or a backoff wait) in progress. */
  readonly life = new AbortController();
  /** Ends the scrubbing of this caller's secrets from every failure (called last by close()). */
  readonly releaseSecrets: () => void;
  current: C | undefined = undefined;
  connecting: Promise<Outcome<C>> | undefined = undefined;
  closed = false;
  closing: Promise<void> | undefined = undefined;
  /** Resources subscribed to; the 2026-07-28 `subscriptions/listen` carries them. */
  listenUris: readonly string[] = [];
  /** The finished caller (set by the core's caller()), read for the session metric's attributes. */
  made: object | undefined = undefined;
  /** Records `mcp.client.session.duration` per connection, when the options carry a meter. */
  readonly clock: SessionClock;
  /** Told every server notification (the surface's list caches and subscriptions); set by the core. */
  observe: ((notification: RpcNotification) => void) | undefined = undefined;
  private readonly identity: ClientIdentity;
  private readonly handlers: ReadonlyMap<string, RequestHandler> | undefined;
  private readonly backoff: RestartBackoff | undefined;
  private readonly timeoutMs: number;
  private readonly warn: (message: string) => void;
  private readonly listenOnConnect: boolean;

  constructor(
    spec: SessionCoreSpec,
    identity: ClientIdentity,
    handlers: ReadonlyMap<string, RequestHandler> | undefined,
    connect: (link: ConnectorLink<C>) => SessionConnector<C>,
  ) {
    // Read out of the spec here, so nothing below keeps the spec object itself.
    this.server = spec.server;
    this.options = spec.options;
    this.secrets = spec.secrets;
    this.warn = spec.warn;
    this.listenOnConnect = spec.listen;
    this.identity = identity;
    this.handlers = handlers;
    this.backoff = spec.restart ? createRestartBackoff(spec.restart) : undefined;
    this.timeoutMs = spec.options.timeoutMs ?? 60_000;
    this.defaultPeerOptions = { timeoutMs: this.timeoutMs };
    // Every failure built while this caller is open is scrubbed of the secrets, whatever path builds it.
    this.releaseSecrets = registerSecretValues(spec.secrets);
    this.clock = createSessionClock(spec.options.meter);
    this.connector = connect({
      identity,
      era: spec.era,
      handlers,
      notification: (conn, notification) => {
        if (notification.method === "notifications/tools/list_changed") {
          // Forget what the old list said, so the next call lists again and sees changed task support
          // or a tool that came back.
          conn.taskSupport = undefined;
          conn.dropped = undefined;
        }
        this.observe?.(notification);
        this.options.onNotification?.(notification);
      },
      lost: (conn) => {
        this.clock.end(conn, "connection_lost");
        conn.alive = false;
        if (this.current === conn) this.current = undefined;
      },
      crashed: () => {
        if (!this.closed) this.backoff?.failed();
      },
    });
  }

  // A call's failures are built with its context (the arguments sent, the facts handed down);
  // other requests name the method. Built on the failure path only, never on the hot path.
  fail(fault: WireFault, at: string | FailureContext): Failed {
    return {
      ok: false,
      failure: redactFailureValues(failureFromFault(fault, typeof at === "string" ? { tool: at, server: this.server } : at), this.secrets),
    };
  }

  callAt(request: CallRequest, callOptions: CallOptions): FailureContext {
    return callContext(this.server, request, callOptions.facts);
  }

  peerOptions(o: CallOptions): PeerRequestOptions {
    if (o === NO_OPTIONS) return this.defaultPeerOptions;
    const { timeoutMs: ms, signal, onProgress, resetTimeoutOnProgress: reset, maxTotalTimeoutMs: max, onRequestId } = o;
    // Options with nothing for the peer (the manager's facts, a task's settings) share it as well.
    if (ms === undefined && signal === undefined && onProgress === undefined && reset === undefined && max === undefined && !onRequestId)
      return this.defaultPeerOptions;
    return { timeoutMs: ms ?? this.timeoutMs, signal, onProgress, resetTimeoutOnProgress: reset, maxTotalTimeoutMs: max, onRequestId };
  }

  contextOf(conn: C): RequestContext {
    conn.context ??= {
      session: conn.session as Session,
      identity: this.identity,
      handlers: this.handlers,
      maxInputRounds: this.options.maxInputRounds,
      ...(this.connector.plansFromToolList
        ? {
            onHeaderMismatch: async () => {
              await this.listInto(conn, NO_OPTIONS);
            },
          }
        : {}),
    };
    return conn.context;
  }

  private async open(): Promise<Outcome<C>> {
    const { backoff, connector } = this;
    if (backoff) await backoff.wait(this.life.signal);
    if (this.life.signal.aborted) return { ok: false, fault: { type: "canceled", message: "the caller was closed while connecting" } };
    const outcome = await connector.open(this.life.signal);
    if (!outcome.ok) {
      // A crash is counted when the process exits; a server that answers badly or not at all, here.
      if (outcome.fault.type === "timeout" || outcome.fault.type === "rpc") backoff?.failed();
      return outcome;
    }
    const conn = outcome.value;
    // close() ran while this connect was in flight: dispose it now, or its child process would outlive the caller.
    if (this.closed) {
      await connector.dispose(conn);
      return { ok: false, fault: closedFault };
    }
    // A server that came up again starts from the first restart delay next time it fails.
    backoff?.reset();
    this.current = conn;
    this.clock.start(conn, () => connectionOf(this.made));
    // A listen lives on one connection; a new connection opens it again with the subscribed URIs.
    if (this.listensFor(conn) && (this.listenOnConnect || this.listenUris.length > 0)) this.listen(conn);
    return outcome;
  }

  /**
   * The live connection, connecting if needed. The connect is shared by every waiting call, so it
   * runs on the caller's own life signal; a call's signal only stops that call's wait.
   */
  ensure(signal: AbortSignal | undefined): Promise<Outcome<C>> {
    // Using a caller after close() is a programmer error, the one case that throws. Calls already
    // in flight when close() runs still resolve as failure values.
    if (this.closed) return Promise.reject(new CallerClosedError(this.server));
    const current = this.current;
    if (current?.alive) return Promise.resolve({ ok: true, value: current });
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    const shared = this.connecting;
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
  private drop(conn: C): void {
    this.clock.end(conn, "session_expired");
    conn.alive = false;
    if (this.current === conn) this.current = undefined;
    void this.connector.dispose(conn);
  }

  /** Runs `fn` on a live connection; a lost session is opened again once and `fn` retried. */
  async run<R extends { readonly ok: true } | { readonly ok: false; readonly fault: WireFault }>(
    signal: AbortSignal | undefined,
    fn: (conn: C) => Promise<R>,
  ): Promise<R | { readonly ok: false; readonly fault: WireFault }> {
    for (let attempt = 0; ; attempt++) {
      const opened = await this.ensure(signal);
      if (!opened.ok) return opened;
      const outcome = await fn(opened.value);
      // Only the first attempt retries: a server that forgets every new session fails instead of looping.
      if (!outcome.ok && attempt === 0 && this.connector.sessionLost?.(opened.value, outcome.fault)) {
        this.drop(opened.value);
        continue;
      }
      return outcome;
    }
  }

  /** Lists every tool; keeps each one's task support, and what the connector plans from the list. */
  async listInto(conn: C, callOptions: CallOptions): Promise<Outcome<ToolDescriptor[]>> {
    const outcome = await listToolsPaged(conn.peer, this.contextOf(conn), this.peerOptions(callOptions));
    if (!outcome.ok) return outcome;
    conn.taskSupport = taskSupportOf(outcome.value);
    return this.connector.planTools ? { ok: true, value: this.connector.planTools(conn, outcome.value) } : outcome;
  }

  /** Whether a call must list tools first: header plans (2026-07-28 over HTTP), or a task-capable legacy server. */
  private needsList(conn: C): boolean {
    const session = conn.session as Session;
    return revisionOf(session).needsToolList(session.handshake.capabilities, this.connector.plansFromToolList === true);
  }

  /** Whether the connection's revision delivers subscriptions through `subscriptions/listen`. */
  listensFor(conn: C): boolean {
    return conn.session !== undefined && revisionOf(conn.session).subscriptions === "listen";
  }

  listen(conn: C): void {
    conn.listen?.abort();
    conn.listen = openListen(
      conn.peer,
      this.contextOf(conn),
      (fault) => {
        // A listen that ends with its connection is expected; only one lost on a live connection is worth a warning.
        if (conn.alive) this.warn(`subscriptions/listen ended: ${fault.message}`);
      },
      {},
      this.listenUris,
    );
  }

  /**
   * The hot path: a live connection that needs no tool list first and a tool it did not drop is
   * one call. Anything else goes through `callToolOpening`, and so does the one retry of a lost session.
   */
  callTool(request: CallRequest, callOptions: CallOptions): Promise<CallResponse> {
    const current = this.current;
    const conn = this.closed ? undefined : current?.alive ? current : undefined;
    if (conn === undefined || (conn.taskSupport === undefined && this.needsList(conn)) || conn.dropped?.has(request.name))
      return this.callToolOpening(request, callOptions, 0);
    return this.callOn(conn, request, callOptions, 0);
  }

  /**
   * The `tools/call` of attempt `attempt` (0, or 1 for the retry) on `conn`, its outcome mapped in
   * the answer's own promise step: no async frame, and no closure but the one mapping the answer.
   */
  private callOn(conn: C, request: CallRequest, callOptions: CallOptions, attempt: number): Promise<CallResponse> {
    try {
      return callToolTasked(
        conn.peer,
        conn.context ?? this.contextOf(conn),
        request,
        this.options.traceContext ? traceMeta(this.options.traceContext) : undefined,
        callOptions === NO_OPTIONS ? this.defaultPeerOptions : this.peerOptions(callOptions),
        conn.taskSupport?.get(request.name),
        callOptions.task,
        (outcome): CallResponse | Promise<CallResponse> =>
          outcome.ok ? outcome : this.afterFailure(conn, outcome.fault, request, callOptions, attempt),
      );
    } catch (error) {
      // A throwing traceContext function fails this call's promise, as it did inside an async function.
      return Promise.reject(error);
    }
  }

  private afterFailure(conn: C, fault: WireFault, request: CallRequest, callOptions: CallOptions, attempt: number) {
    // Only the first attempt retries: a server that forgets every new session fails instead of looping.
    if (attempt === 0 && this.connector.sessionLost?.(conn, fault)) {
      this.drop(conn);
      return this.callToolOpening(request, callOptions, 1);
    }
    return this.fail(fault, this.callAt(request, callOptions));
  }

  private async callToolOpening(request: CallRequest, callOptions: CallOptions, attempt: number): Promise<CallResponse> {
    const current = this.current;
    let conn = this.closed ? undefined : current?.alive ? current : undefined;
    if (conn === undefined) {
      const opened = await this.ensure(callOptions.signal);
      if (!opened.ok) return this.fail(opened.fault, this.callAt(request, callOptions));
      conn = opened.value;
    }
    if (conn.taskSupport === undefined && this.needsList(conn)) await this.listInto(conn, callOptions);
    // A tool left out of the list is not callable (its parameter headers cannot be built).
    const dropped = conn.dropped?.get(request.name);
    if (dropped !== undefined) {
      // Nothing was sent and no arguments can fix it: a local reason, so the planner replans.
      const message = `${this.server}: tool ${request.name} is unavailable: ${dropped}`;
      return { ok: false, failure: failureFromLocal("tool_unavailable", message, this.callAt(request, callOptions)) };
    }
    return this.callOn(conn, request, callOptions, attempt);
  }
}
