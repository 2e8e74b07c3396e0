/**
 * The contract between the session-caller core and a transport: the connection fields the core
 * keeps, the connector a transport supplies (open, dispose, and a few era hooks), and the link
 * through which the transport reports notifications, a lost connection and a crash.
 */

import type { WireFault } from "../failure/wire-fault.js";
import type { RpcNotification } from "../protocol/json-rpc.js";
import type { ClientIdentity, EraPreference, RequestContext, Session } from "../protocol/mcp-client.js";
import type { Outcome } from "../protocol/mcp-session.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import type { RequestHandler, RpcPeer } from "../protocol/rpc-peer.js";
import type { BackoffPolicy } from "./backoff.js";
import type { SessionCallerOptions } from "./caller.js";

/** What the core keeps on every connection; a connector's own connection type extends it. */
export interface SessionConnection {
  readonly peer: RpcPeer;
  /** Set by the connector once the handshake (or the `server/discover` probe) succeeded. */
  session: Session | undefined;
  /** False once the connection is lost or disposed; the next call opens a new one. */
  alive: boolean;
  /** 2026-07-28: the open `subscriptions/listen` request. */
  listen: AbortController | undefined;
  /** Each listed tool's `execution.taskSupport`, once tools were listed (dropped on tools/list_changed). */
  taskSupport: Map<string, string> | undefined;
  /** Tools the connector left out of the list, with the reason (a call to one fails locally). */
  dropped: Map<string, string> | undefined;
  /** The request context, built once per connection (not once per call). */
  context: RequestContext | undefined;
}

/** A fresh connection on `peer`: the fields every connection starts with, then the transport's own. */
export function connectionOn<X extends object>(peer: RpcPeer, extra: X): SessionConnection & X {
  // Assigned, not spread into a literal by the transport: a spread gave every connection a hidden
  // class of its own (about 0.3 KB each; docs/performance.md, "Heap per connection").
  return Object.assign(
    { peer, session: undefined, alive: true, listen: undefined, taskSupport: undefined, dropped: undefined, context: undefined },
    extra,
  );
}

/** What a transport supplies: how to open and dispose connections, and its few era-specific hooks. */
export interface SessionConnector<C extends SessionConnection> {
  /** Opens a connection with a live session. Runs on the caller's life signal (aborted by close()). */
  open(signal: AbortSignal): Promise<Outcome<C>>;
  /** Releases one connection: stops its process or streams, fails what is still in flight on it. */
  dispose(conn: C): Promise<void>;
  /** After the last connection was disposed at close(): waits for background stops, frees sockets. */
  close?(): Promise<void>;
  /** Legacy era: makes server notifications arrive when a subscription needs them (HTTP's GET stream). */
  openNotificationStream?(conn: C): void;
  /** True when `fault` means the server forgot the session: the request runs once more on a new one. */
  sessionLost?(conn: C, fault: WireFault): boolean;
  /** Keeps the callable part of a fresh tool list; tools left out go into `conn.dropped`. */
  planTools?(conn: C, tools: ToolDescriptor[]): ToolDescriptor[];
  /**
   * 2026-07-28 calls need the tool list first (HTTP builds `Mcp-Param-*` headers from it), and a
   * -32020 header mismatch re-lists before its one retry.
   */
  readonly plansFromToolList?: boolean;
}

/** What the core gives its connector. */
export interface ConnectorLink<C extends SessionConnection> {
  readonly identity: ClientIdentity;
  readonly era: EraPreference;
  readonly handlers: ReadonlyMap<string, RequestHandler> | undefined;
  /** Feeds a server notification: cached lists are dropped, the surface and the user's callback told. */
  notification(conn: C, notification: RpcNotification): void;
  /** The connection is gone (process exit, stream closed, stdin broken): the next call opens a new one. */
  lost(conn: C): void;
  /** Counts a crash toward the restart backoff (ignored after close()). */
  crashed(): void;
}

/** How one transport's caller is put together. */
export interface SessionCoreSpec {
  /** The server name used in failures. */
  readonly server: string;
  readonly options: SessionCallerOptions;
  /** The era to speak, resolved from the options with the transport's default. */
  readonly era: EraPreference;
  /** Configured secret values (env values, header tokens): scrubbed from every failure and warning. */
  readonly secrets: readonly string[];
  /** 2026-07-28: open `subscriptions/listen` on connect (for notifications, list changes, subscriptions). */
  readonly listen: boolean;
  /** Non-fatal problems (a listen that ended). */
  readonly warn: (message: string) => void;
  /** Back off between connects after crashes and failed connects; no backoff when absent. */
  readonly restart?: BackoffPolicy | undefined;
  /** The callers' prototype, with the transport's getters (`callerPrototype`); a plain one when absent. */
  readonly prototype?: object;
}
