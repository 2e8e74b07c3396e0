/**
 * The in-memory transport: JSON-RPC messages between a client peer and a server session in the
 * same process, as connect-es's router transport hands requests to its router. The server is
 * anything with `openSession` (the tool server fits), so this layer needs nothing of the server.
 */

import type { WireFault } from "../failure/wire-fault.js";
import type { RpcId, RpcMessage } from "../protocol/json-rpc.js";

const closedFault: WireFault = { type: "transport", code: "ECLOSED", message: "the in-memory session is closed" };

/** One server session, as a transport drives it: fed parsed values, closed at the end. */
export interface MessageHostSession {
  receive(value: unknown): void;
  close(): void;
}

/**
 * A server that opens one session per connection and answers through `send` (`related` names the
 * inbound request a message belongs to; `false` means it cannot reach the client).
 */
export interface MessageHost {
  openSession(options: {
    readonly send: (message: RpcMessage, related: RpcId | undefined) => undefined | boolean;
    /**
     * Ends the connection from the server's side (a crashed server): the client's waiting calls
     * fail with `fault` (a replayed process exit keeps its exit code), a connection reset when absent.
     */
    readonly close?: (fault?: WireFault) => void;
    /**
     * Fails one request the way its transport would have, instead of answering it: a replayed HTTP
     * status or reset reaches the client's failure mapping as the live one did. `sessionLost`: the
     * server forgot the session (an HTTP 404 on a request that carried one), so the client opens a
     * new session and retries once, as over HTTP.
     */
    readonly fail?: (related: RpcId, fault: WireFault, options?: { readonly sessionLost?: boolean }) => void;
  }): MessageHostSession;
}

/** What the client side of a pipe is told besides messages: the host's hang-up and its per-request faults. */
export interface InMemoryPipeEvents {
  /** The host ended the connection, with the fault it gave (undefined: a plain hang-up). */
  readonly onHostClose?: (fault: WireFault | undefined) => void;
  /** The host failed one request as a transport would have. */
  readonly onHostFault?: (related: RpcId, fault: WireFault, sessionLost: boolean) => void;
}

/** A connection to a host: `send` delivers to the server session; its answers reach `receive`. */
export interface InMemoryPipe {
  send(message: RpcMessage): void;
  readonly closed: boolean;
  /** Ends the server session; later messages either way are dropped. */
  close(): void;
}

/**
 * Opens a session on `host` (`events` say when the host ends the connection itself or fails a
 * request as a transport). Every message is delivered on a later microtask, never inside the
 * sender's call, so both sides see the ordering a real transport gives. Messages pass by
 * reference, as the MCP SDK's in-memory transport passes them: values JSON cannot carry (a result
 * nested past the JSON encoder's depth) still arrive, so hostile-value tests see what the peer sent.
 */
export function createInMemoryPipe(host: MessageHost, receive: (value: unknown) => void, events: InMemoryPipeEvents = {}): InMemoryPipe {
  let closed = false;
  const session: MessageHostSession = host.openSession({
    send(message) {
      if (closed) return false;
      queueMicrotask(() => {
        if (!closed) receive(message);
      });
      return true;
    },
    // The host hung up (a fault-injected crash): as a dead process does, the connection ends now,
    // on a later microtask so the host's own call stack unwinds first.
    close(fault) {
      if (closed) return;
      closed = true;
      queueMicrotask(() => {
        session.close();
        events.onHostClose?.(fault);
      });
    },
    // Ordered with the messages: a fault for a request follows what the host sent before it.
    fail(related, fault, options) {
      if (closed) return;
      queueMicrotask(() => {
        if (!closed) events.onHostFault?.(related, fault, options?.sessionLost === true);
      });
    },
  });
  return {
    get closed() {
      return closed;
    },
    send(message) {
      if (closed) throw Object.assign(new Error(closedFault.message), { fault: closedFault });
      queueMicrotask(() => {
        if (!closed) session.receive(message);
      });
    },
    close() {
      if (closed) return;
      closed = true;
      session.close();
    },
  };
}
