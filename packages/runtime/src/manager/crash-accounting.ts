/**
 * The manager's crash accounting: how failed connects and crashed calls count against a server,
 * when an automatic reconnect may happen again (backoff), and when the manager gives up until a
 * manual `connect()`. Without it, a broken server would be respawned by every call, and a crash
 * loop would burn CPU and flood logs. The counters live on the slot (`ServerStatus.crashes`).
 */

import { backoffDelay } from "../caller/backoff.js";
import type { ToolFailure } from "../failure/failure.js";
import { messageWithoutServer } from "../failure/failure-mapping.js";
import type { WireFault } from "../failure/wire-fault.js";
import type { ServerClient } from "./client-factory.js";
import type { McpManagerOptions } from "./manager-types.js";
import type { Evict } from "./pool.js";
import type { ServerSlot } from "./server-slot.js";

/** Counts failures of servers and decides about reconnects. */
export interface CrashAccounting {
  /**
   * A connect failed: the next automatic attempt waits (doubling per failure), and after
   * `maxRestarts` none follows. An `auth_required` cause is kept for the calls until a connect succeeds.
   */
  connectFailed(slot: ServerSlot, cause?: ToolFailure): void;
  /** A connect succeeded: the backoff starts over. */
  connected(slot: ServerSlot): void;
  /**
   * Why a call must fail without trying to (re)connect: the manager gave up on the server, or a
   * failed server's backoff has not run out. Undefined when the call may connect.
   */
  refusal(slot: ServerSlot): WireFault | undefined;
  /**
   * Accounts one call's outcome on `client` (the slot's client when the call started). Synchronous
   * (undefined) unless a failure evicts the client; then the promise settles once it is evicted.
   */
  callEnded(slot: ServerSlot, client: ServerClient, failure: ToolFailure | undefined): Promise<void> | undefined;
  /** A manual `connect()`: every counter starts over, and the server gets another `maxRestarts`. */
  reset(slot: ServerSlot): void;
}

/** Creates the accounting; `evict` drops a slot's client (a broken HTTP connection, a server given up on). */
export function createCrashAccounting(options: McpManagerOptions, evict: Evict): CrashAccounting {
  const maxRestarts = options.maxRestarts ?? 5;
  // The stdio caller's own restart backoff and this one follow the same rule and policy.
  const restart = { delayMs: options.client?.restartDelayMs, maxDelayMs: options.client?.maxRestartDelayMs };
  const exitFault = (slot: ServerSlot, message: string): WireFault => ({
    type: "transport",
    code: "EXIT",
    message,
    ...(slot.stderrTail ? { stderrTail: slot.stderrTail } : {}),
  });
  return {
    connectFailed(slot, cause) {
      slot.authFailure = cause?.kind === "auth_required" ? cause : undefined;
      slot.connectFailures++;
      slot.retryAt = Date.now() + backoffDelay(slot.connectFailures, restart);
      if (slot.connectFailures > maxRestarts) slot.gaveUp = true;
    },
    connected(slot) {
      slot.connectFailures = 0;
      slot.authFailure = undefined;
      slot.retryAt = 0;
    },
    refusal(slot) {
      if (slot.gaveUp) {
        return exitFault(
          slot,
          `server "${slot.name}" is not restarted any more (${slot.error ?? "failed"}); call connect("${slot.name}") to try again`,
        );
      }
      if (slot.state === "connected" && slot.client) return undefined;
      const wait = slot.retryAt - Date.now();
      // A connect already under way is joined, not refused: it may be the one that succeeds.
      if (slot.state === "failed" && wait > 0 && !slot.connecting)
        return exitFault(slot, `${slot.error ?? "connect failed"} (next attempt in ${wait} ms)`);
      return undefined;
    },
    callEnded(slot, client, failure) {
      if (!failure) {
        slot.crashes = 0;
        return undefined;
      }
      if (failure.source !== "transport") return undefined;
      if (failure.kind === "unavailable" && slot.config.transport === "http") {
        // The HTTP connection itself broke (refused, reset): drop it so the next call builds a new one.
        return slot.client === client ? evict(slot, messageWithoutServer(failure), "failed") : undefined;
      }
      if (failure.exitCode === undefined || slot.client !== client) return undefined;
      // The process died under this call; the stdio client restarts it (with backoff) on the next one.
      // Every call in flight fails in the same turn of the event loop: count the crash once.
      if (slot.crashCounted) return undefined;
      slot.crashCounted = true;
      setImmediate(() => {
        slot.crashCounted = false;
      });
      slot.crashes++;
      if (slot.crashes > maxRestarts) {
        slot.gaveUp = true;
        return evict(slot, `crashed ${slot.crashes} times in a row; not restarting until connect()`, "failed");
      }
      return undefined;
    },
    reset(slot) {
      slot.crashes = 0;
      slot.authFailure = undefined;
      slot.connectFailures = 0;
      slot.retryAt = 0;
    },
  };
}
