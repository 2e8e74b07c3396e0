/**
 * The manager's slot controller: the life of each server's connection. It connects a slot (client,
 * handshake, `tools/list`, registration), refreshes it on `list_changed`, evicts and disconnects
 * it, and drives the pool (probe, idle reaper, their timers). What a listing does to the registry
 * is `tool-listing.ts`; calls, crash counting and approvals are elsewhere. This owns the invariant
 * that makes the rest safe: a slot's client changes only here, each change bumps
 * `slot.generation`, and so an answer or event from a replaced client is ignored.
 */

import type { ToolFailure } from "../failure/failure.js";
import { type FailureContext, failureFromFault, failureFromLocal, messageWithoutServer } from "../failure/failure-mapping.js";
import type { Result } from "../failure/result.js";
import type { RpcNotification } from "../protocol/json-rpc.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import { createServerClient } from "./client-factory.js";
import type { CrashAccounting } from "./crash-accounting.js";
import { type Evict, probeSlot, reapIdleSlots } from "./pool.js";
import { createPoolTimers } from "./pool-timers.js";
import { type ServerSlot, type ServerStatus, statusOf } from "./server-slot.js";
import { createToolListing, type ToolListingContext } from "./tool-listing.js";
import type { ToolsDiff } from "./tool-registry.js";

/** The outcome of a refresh: what changed, or why the listing failed. */
/** A server name the config does not hold: a local reason, no server was asked. */
export const notConfigured = (name: string, context: FailureContext) =>
  failureFromLocal("server_not_configured", `${name}: server "${name}" is not configured`, context);

export type RefreshOutcome = Result<ToolsDiff>;

/** What the controller needs from its manager. */
export interface SlotControllerContext extends ToolListingContext {
  readonly slots: ReadonlyMap<string, ServerSlot>;
  readonly crash: CrashAccounting;
  readonly stopped: () => boolean;
}

/** The connection life of every slot. */
export interface SlotController {
  /** Connects one server. `registerAfter` orders registration (not I/O) so that names are deterministic. */
  connect(slot: ServerSlot, registerAfter?: Promise<unknown>): Promise<ServerStatus>;
  /** Lists the server's tools again (connecting first when it is not connected). */
  refresh(slot: ServerSlot): Promise<RefreshOutcome>;
  /** Filters `tools` into the registry again (policy, approvals); returns what changed for listeners. */
  refilter(slot: ServerSlot, tools: readonly ToolDescriptor[]): ToolsDiff;
  /** Closes the connection and removes the server's tools; `state` says why (disconnected, disabled). */
  disconnect(slot: ServerSlot, state: ServerSlot["state"]): Promise<void>;
  readonly evict: Evict;
  status(slot: ServerSlot): ServerStatus;
  probe(name: string): Promise<Result<void>>;
  reapIdle(): Promise<string[]>;
  /** Starts the reaper and prober when some config asks for them (idempotent). */
  ensureTimers(): void;
  stopTimers(): void;
  /** Waits for every client still closing after a failure (evictions close those in the background). */
  drain(): Promise<void>;
}

/** Creates the controller over the manager's slots. */
export function createSlotController(context: SlotControllerContext): SlotController {
  const { slots, registry, options } = context;
  const { evict, drain } = createEvictions();
  const status = (slot: ServerSlot) => statusOf(slot, registry.ofServer(slot.name).length);
  const listing = createToolListing(context);
  const timers = createPoolTimers(
    slots,
    options,
    (name) => probe(name),
    () => reapIdle(),
  );
  // A server's own requestTimeoutMs bounds its listings too: a hung tools/list must not hold a connect forever.
  const listOptions = (slot: ServerSlot) => (slot.config.requestTimeoutMs ? { timeoutMs: slot.config.requestTimeoutMs } : {});

  /** `list_changed` from the current client: one refresh after a quiet period, however many notices arrive. */
  function onNotification(slot: ServerSlot, generation: number, notification: RpcNotification): void {
    if (notification.method !== "notifications/tools/list_changed" || slot.generation !== generation || context.stopped()) return;
    if (slot.refreshTimer) clearTimeout(slot.refreshTimer);
    slot.refreshTimer = setTimeout(() => {
      slot.refreshTimer = undefined;
      void refresh(slot);
    }, options.listChangedDebounceMs ?? 100);
    slot.refreshTimer.unref?.();
  }

  function ensureTimers(): void {
    if (!context.stopped()) timers.ensure();
  }

  function connect(slot: ServerSlot, registerAfter?: Promise<unknown>): Promise<ServerStatus> {
    // Concurrent calls to a disconnected server share one connect: one child process, not one each.
    if (slot.connecting) return slot.connecting;
    const started = performance.now();
    let connected: number | undefined;
    // A failed connect keeps its durations too: a slow failure is worth seeing.
    const fail = async (message: string, stderrTail?: string, cause?: ToolFailure) => {
      const now = performance.now();
      await evict(slot, message, "failed");
      if (stderrTail) slot.stderrTail = stderrTail;
      const connectMs = (connected ?? now) - started;
      slot.durations = { connectMs, listToolsMs: connected === undefined ? 0 : now - connected, totalMs: now - started };
      context.crash.connectFailed(slot, cause);
      return status(slot);
    };
    slot.connecting = (async (): Promise<ServerStatus> => {
      if (context.stopped()) return status(slot);
      slot.state = "connecting";
      // A connect is an attempt again, whoever started it; the accounting decides anew on failure.
      slot.gaveUp = false;
      // An evicted slot has none; a stdio slot keeps its client across a crash (the client respawns).
      if (!slot.client) {
        const generation = ++slot.generation;
        try {
          slot.client = createServerClient(slot.name, slot.config, {
            ...options.client,
            onNotification: (n) => onNotification(slot, generation, n),
          });
        } catch (error) {
          return fail((error as Error).message);
        }
      }
      const client = slot.client;
      const handshake = await client.connect();
      // After every await: a disconnect or eviction meanwhile replaced the client, and this connect is void.
      if (slot.client !== client) return status(slot);
      if (!handshake.ok) return fail(messageWithoutServer(handshake.failure), handshake.failure.stderrTail, handshake.failure);
      connected = performance.now();
      const listed = await client.listTools(listOptions(slot));
      const listedAt = performance.now();
      if (slot.client !== client) return status(slot);
      if (!listed.ok) return fail(`tools/list failed: ${messageWithoutServer(listed.failure)}`, undefined, listed.failure);
      // I/O ran in parallel; registration waits for the servers before this one in config order,
      // so prefix-on-collision gives the same names on every start.
      if (registerAfter) await registerAfter;
      if (slot.client !== client || context.stopped()) return status(slot);
      const admitted = listing.admit(slot, listed.value);
      if (!admitted.ok) return fail(admitted.message);
      markConnected(slot, listed.value, admitted, {
        connectMs: connected - started,
        listToolsMs: listedAt - connected,
        totalMs: listedAt - started,
      });
      context.crash.connected(slot);
      listing.announce(slot.name, admitted.diff);
      ensureTimers();
      return status(slot);
    })()
      .catch((error: unknown) => fail(`connect failed: ${(error as Error).message}`))
      .finally(() => {
        slot.connecting = undefined;
      });
    return slot.connecting;
  }

  async function refresh(slot: ServerSlot): Promise<RefreshOutcome> {
    const client = slot.client;
    if (!client || slot.state !== "connected") return refreshByConnect(slot, (name) => registry.ofServer(name), connect);
    const listed = await client.listTools(listOptions(slot));
    if (!listed.ok) {
      // Accounted as a failed call is: a broken HTTP connection is dropped, a stdio server that died
      // is restarted by its own client on the next request, and a server that refuses tools/list
      // keeps its last listing. Evicting the stdio client here closed it under a call that was
      // already restarting the server after the same crash, and that call failed (issue 25 item 19).
      const accounting = context.crash.callEnded(slot, client, listed.failure);
      if (accounting) await accounting;
      return listed;
    }
    // Replaced while listing: the new client's connect registers its own listing.
    if (slot.client !== client) return { ok: true, value: { added: [], removed: [], changed: [] } };
    return { ok: true, value: listing.refilter(slot, listed.value) };
  }

  async function disconnect(slot: ServerSlot, state: ServerSlot["state"]): Promise<void> {
    if (slot.refreshTimer) clearTimeout(slot.refreshTimer);
    slot.refreshTimer = undefined;
    const pending = slot.connecting;
    // Evict first: a connect still under way sees its client replaced and registers nothing.
    await evict(slot, undefined, state);
    if (pending) await pending;
    // Set again after the pending connect settled: its failure path may have written "failed".
    slot.state = state;
    slot.error = undefined;
    listing.remove(slot);
    slot.allTools = [];
    slot.hidden = 0;
    slot.held = [];
  }

  async function probe(name: string): Promise<Result<void>> {
    const slot = slots.get(name);
    if (!slot) return { ok: false, failure: notConfigured(name, { tool: "probe", server: name }) };
    return probeSlot(slot, options.probeTimeoutMs ?? 5000, evict);
  }

  const reapIdle = () => reapIdleSlots([...slots.values()], evict);

  return {
    connect,
    refresh,
    refilter: listing.refilter,
    disconnect,
    evict,
    status,
    probe,
    reapIdle,
    ensureTimers,
    stopTimers: timers.stop,
    drain,
  };
}

/** A refresh of a slot that is not connected: a connect lists the tools anyway; the diff is computed from the names. */
async function refreshByConnect(
  slot: ServerSlot,
  toolsOf: (server: string) => readonly { readonly name: string }[],
  connect: (slot: ServerSlot) => Promise<ServerStatus>,
): Promise<RefreshOutcome> {
  const before = new Set(toolsOf(slot.name).map((t) => t.name));
  const after = await connect(slot);
  if (!after.connected) {
    const fault = { type: "transport" as const, code: "ECLOSED", message: after.error ?? "not connected" };
    return { ok: false, failure: failureFromFault(fault, { tool: "tools/list", server: slot.name }) };
  }
  const now = toolsOf(slot.name).map((t) => t.name);
  return {
    ok: true,
    value: { added: now.filter((n) => !before.has(n)), removed: [...before].filter((n) => !now.includes(n)), changed: [] },
  };
}

/** Records a successful connect on the slot: its listing, what the filters hid, and the timings. */
function markConnected(
  slot: ServerSlot,
  tools: readonly ToolDescriptor[],
  admitted: { readonly hidden: number; readonly warnings: string[] },
  durations: ServerSlot["durations"],
): void {
  Object.assign(slot, {
    allTools: tools,
    hidden: admitted.hidden,
    warnings: admitted.warnings,
    state: "connected",
    error: undefined,
    stderrTail: undefined,
    connectedAt: new Date(),
    lastUsed: Date.now(),
    durations,
  });
}

/** Evicting clients, and the closes still under way after failures (stop() waits for those). */
function createEvictions(): { evict: Evict; drain: () => Promise<void> } {
  const closing = new Set<Promise<void>>();
  return {
    /**
     * Drops a slot's client. A deliberate eviction (`error` undefined: disconnect, idle) waits until
     * it is closed. A failure answers at once: a call's deadline must not wait for a process that
     * ignores SIGTERM to be killed, so that close goes on in the background and stop() waits for it.
     */
    async evict(slot, error, state) {
      const client = slot.client;
      slot.client = undefined;
      slot.generation++;
      slot.state = state;
      slot.error = error;
      if (!client) return;
      const tail = client.stderrTail?.();
      if (error !== undefined && tail) slot.stderrTail = tail;
      const done = client.close().catch(() => undefined);
      if (error === undefined) return done;
      const tracked = done.finally(() => closing.delete(tracked));
      closing.add(tracked);
    },
    async drain() {
      // More can be added while waiting (a call that fails during stop evicts its client): loop until none is left.
      while (closing.size > 0) await Promise.all([...closing]);
    },
  };
}
