/**
 * The session-caller core that the stdio, HTTP and in-memory callers share, as every protocol's
 * transport in connect-es shares `protocol/run-call.ts`. It owns what a caller does once a
 * connection exists and how one comes to exist: the shared connect (a call's abort stops only that
 * call's wait), the `tools/call` hot path, the tool-list bookkeeping, redaction of configured
 * secrets in every failure, the method shells, notify, close and the restart backoff. A transport
 * supplies only a connector: open a connection with a live session, dispose one, and report one lost.
 *
 * The connection state and the requests that need it live in `ConnectionKeeper`
 * (connection-keeper.ts); this file builds the identity, wires the surface, and shapes the caller.
 */

import { redactValues } from "../failure/failure.js";
import { withClientTasks, withTaskCapabilities } from "../protocol/client-tasks.js";
import { type ClientIdentity, capabilitiesFromHandlers, sendRequest, traceMeta } from "../protocol/mcp-client.js";
import { DEFAULT_CLIENT_INFO } from "../protocol/mcp-session.js";
import type { ServerHandshake } from "../protocol/mcp-types.js";
import { startToolTask } from "../protocol/task-call.js";
import { revisionOf } from "../revisions/registry.js";
import type { CallOptions, CallRequest, SessionCaller } from "./caller.js";
import { LIVE, PLAIN_CALLER } from "./caller-prototype.js";
import { ConnectionKeeper, NO_OPTIONS } from "./connection-keeper.js";
import type { ConnectorLink, SessionConnection, SessionConnector, SessionCoreSpec } from "./connector.js";
import { createSurface, type SurfaceHandle } from "./surface.js";
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

/** Creates the core of one caller; `connect` builds the transport's connector on the link it is given. */
export function createSessionCore<C extends SessionConnection>(
  spec: SessionCoreSpec,
  connect: (link: ConnectorLink<C>) => SessionConnector<C>,
): SessionCore<C> {
  // Read out of the spec here, so no closure below keeps the spec object itself.
  const { server, options, secrets, prototype = PLAIN_CALLER } = spec;
  const tasks = options.tasks !== false;
  const handlers = tasks ? withClientTasks(options.handlers) : options.handlers;
  const declared = options.capabilities ?? capabilitiesFromHandlers(options.handlers);
  const identity: ClientIdentity = {
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    capabilities: tasks ? withTaskCapabilities(declared, options.handlers) : declared,
    protocolVersion: options.protocolVersion,
  };
  const keeper = new ConnectionKeeper<C>(spec, identity, handlers, connect);
  const live = () => keeper.current;

  async function request(method: string, params: { readonly [key: string]: unknown } = {}, callOptions: CallOptions = NO_OPTIONS) {
    const outcome = await keeper.run(callOptions.signal, async (conn) => {
      const result = await sendRequest(conn.peer, keeper.contextOf(conn), method, params, keeper.peerOptions(callOptions));
      return result.ok ? { ok: true as const, value: result.result } : result;
    });
    return outcome.ok ? ({ ok: true, value: outcome.value } as const) : keeper.fail(outcome.fault, method);
  }

  const handle = createSurface({
    server,
    request,
    live,
    async connect(callOptions) {
      const outcome = await keeper.ensure(callOptions.signal);
      return outcome.ok ? { ok: true, value: undefined } : keeper.fail(outcome.fault, "connect");
    },
    listenTo(uris) {
      keeper.listenUris = uris;
      const conn = keeper.current;
      if (conn?.alive) {
        if (keeper.listensFor(conn)) keeper.listen(conn);
        else keeper.connector.openNotificationStream?.(conn);
      }
      return { ok: true, value: undefined };
    },
    onListChanged: options.onListChanged,
  });
  // Every server notification reaches the surface (its list caches, its subscriptions).
  keeper.observe = (notification) => handle.observe(notification);

  return {
    live,
    scrub: (text) => redactValues(text, secrets),
    caller<X extends object>(extra: X) {
      // One literal, then its prototype (caller-prototype.ts): a hidden class shared by every caller.
      const made = Object.setPrototypeOf(
        { ...callerMethods(keeper, handle, request), ...extra, [LIVE]: live },
        prototype,
      ) as SessionCaller & X;
      keeper.made = made;
      return made;
    },
  };
}

/**
 * The caller's own methods, shells over the keeper. Made once per caller, by `caller()`: a const
 * holding them in the core would keep a second copy alive.
 */
function callerMethods<C extends SessionConnection>(
  keeper: ConnectionKeeper<C>,
  handle: SurfaceHandle,
  request: SessionCaller["request"],
): Omit<SessionCaller, "handshake"> {
  const { server, options, connector } = keeper;
  return {
    ...handle.methods(),
    server,
    async connect(connectOptions = {}) {
      const outcome = await keeper.ensure(connectOptions.signal);
      return outcome.ok
        ? { ok: true, value: outcome.value.session?.handshake as ServerHandshake }
        : keeper.fail(outcome.fault, "initialize");
    },
    callTool: (call, callOptions = NO_OPTIONS) => keeper.callTool(call, callOptions),
    async startToolTask(call: CallRequest, callOptions: CallOptions = NO_OPTIONS) {
      const outcome = await keeper.run(callOptions.signal, async (conn) => {
        // Always lists first (not only when needsList): whether the tool may run as a task decides the request.
        if (conn.taskSupport === undefined) await keeper.listInto(conn, callOptions);
        const support = conn.taskSupport?.get(call.name);
        return startToolTask(
          conn.peer,
          keeper.contextOf(conn),
          call,
          traceMeta(options.traceContext),
          keeper.peerOptions(callOptions),
          support,
          callOptions.task,
        );
      });
      const at = keeper.callAt(call, callOptions);
      if (!outcome.ok) return keeper.fail(outcome.fault, at);
      return { ok: true as const, value: toolTask(outcome.value, (fault) => keeper.fail(fault, at)) };
    },
    async listTools(callOptions: CallOptions = NO_OPTIONS) {
      const outcome = await keeper.run(callOptions.signal, (conn) => keeper.listInto(conn, callOptions));
      return outcome.ok ? { ok: true, value: outcome.value } : keeper.fail(outcome.fault, "tools/list");
    },
    request,
    async ping(callOptions: CallOptions = NO_OPTIONS) {
      const outcome = await keeper.run(callOptions.signal, (conn) =>
        // The revision names its liveness request (2026-07-28 has no ping).
        conn.session !== undefined && revisionOf(conn.session).liveness === "server/discover"
          ? sendRequest(conn.peer, keeper.contextOf(conn), "server/discover", {}, keeper.peerOptions(callOptions))
          : conn.peer.request("ping", undefined, keeper.peerOptions(callOptions)),
      );
      return outcome.ok ? { ok: true, value: undefined } : keeper.fail(outcome.fault, "ping");
    },
    async notify(method, params) {
      // A notification never opens a connection: sent before any session, it has nothing to belong to.
      const conn = keeper.current;
      if (!conn?.alive) return false;
      return conn.peer.notify(method, params).then(
        () => true,
        () => false,
      );
    },
    close() {
      if (!keeper.closed) {
        keeper.closed = true;
        keeper.life.abort();
      }
      // A second close() waits for the same work instead of starting it again.
      keeper.closing ??= (async () => {
        const pending = keeper.connecting;
        if (pending) await pending.catch(() => undefined);
        const conn = keeper.current;
        keeper.current = undefined;
        if (conn) {
          keeper.clock.end(conn, undefined); // before dispose, whose process exit would report it lost
          await connector.dispose(conn);
        }
        await connector.close?.();
        // Released last, so failures built while disposing are still scrubbed of this caller's secrets.
        keeper.releaseSecrets();
      })();
      return keeper.closing;
    },
  };
}
