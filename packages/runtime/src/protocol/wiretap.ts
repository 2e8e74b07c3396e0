/**
 * The wiretap: an observer of every JSON-RPC message a peer sends and receives, and of every send
 * the transport refused. It is the seam a recorder (the test kit's cassettes) stands on, with no
 * dependency and no cost when absent: the peer checks for it once, at creation.
 */

import type { WireFault } from "../failure/wire-fault.js";
import type { RpcId, RpcMessage } from "./json-rpc.js";

/**
 * One wire event: a message the client sent (`send`) or received (`recv`, as parsed, before any
 * validation), or a request the transport failed (`fault`: an HTTP status, a reset or refused
 * connection, an oversize answer), with the request id it carried. `ended` marks the transport's
 * end (a process exit, a closed stream): every request in flight fails with the same fault, one
 * event each, or one event with no id when none was in flight.
 */
export type WireEvent =
  | { readonly direction: "send"; readonly message: RpcMessage }
  | { readonly direction: "recv"; readonly message: unknown }
  | { readonly direction: "fault"; readonly requestId: RpcId | undefined; readonly fault: WireFault; readonly ended?: boolean };

/** Observes wire events. It must not keep or change the messages it is shown; a throw is ignored. */
export type Wiretap = (event: WireEvent) => void;

/** Shows `event` to `tap`; an observer's throw never breaks the session. */
export function observeWire(tap: Wiretap, event: WireEvent): void {
  try {
    tap(event);
  } catch {
    // an observer only
  }
}

/**
 * Shows the transport's failure of the requests `ids` (`ended`: the transport itself ended, one
 * event per request in flight, or one with no id when none was).
 */
export function observeFailure(tap: Wiretap, ids: readonly RpcId[], fault: WireFault, ended: boolean): void {
  for (const requestId of ids) observeWire(tap, { direction: "fault", requestId, fault, ...(ended ? { ended } : {}) });
  if (ended && ids.length === 0) observeWire(tap, { direction: "fault", requestId: undefined, fault, ended });
}

type Send = (message: RpcMessage, context: { readonly requestId?: RpcId }) => void | Promise<void>;

/** Wraps a transport's send so `tap` sees each message before it goes, and each refusal. */
export function tapSend(send: Send, tap: Wiretap, faultOf: (error: unknown) => WireFault): Send {
  return (message, context) => {
    observeWire(tap, { direction: "send", message });
    const refused = (error: unknown) => {
      observeWire(tap, { direction: "fault", requestId: context.requestId, fault: faultOf(error) });
      throw error;
    };
    try {
      const sent = send(message, context);
      return sent !== undefined && typeof sent.then === "function" ? sent.then(undefined, refused) : sent;
    } catch (error) {
      return refused(error);
    }
  };
}
