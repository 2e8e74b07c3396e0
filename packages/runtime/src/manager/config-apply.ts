/**
 * Applying a new config to running servers: removed ones are disconnected, added ones connected,
 * servers whose connection fields changed are reconnected, and the rest are updated in place.
 */
import type { McpConfig } from "./config-types.js";
import type { ApplySummary } from "./manager-types.js";
import { connectionKey, createSlot, type ServerSlot, type ServerState } from "./server-slot.js";

/** What applying needs from the manager. */
export interface ApplyContext {
  readonly slots: Map<string, ServerSlot>;
  readonly lazy: boolean;
  connect(slot: ServerSlot, registerAfter?: Promise<unknown>): Promise<unknown>;
  disconnect(slot: ServerSlot, state: ServerState): Promise<void>;
  /** Re-applies allow/deny lists and naming to the slot's last tool list. */
  refilter(slot: ServerSlot): void;
  /** Drops per-server caches of a removed server. */
  forget(name: string): void;
}

/** Applies `next` over `previous` and returns what changed. */
export async function applyConfigToSlots(context: ApplyContext, previous: McpConfig, next: McpConfig): Promise<ApplySummary> {
  const { slots } = context;
  const summary = { added: [] as string[], removed: [] as string[], changed: [] as string[], updated: [] as string[] };
  const work: Promise<unknown>[] = [];
  const autoConnect = (slot: ServerSlot) => slot.config.enabled !== false && slot.config.autoStart !== false && !context.lazy;
  // Added servers register in config order, like start(), so names do not depend on timing.
  let addedChain: Promise<unknown> = Promise.resolve();
  // A removed server leaves the slot map at once, so no new call is routed to it while it closes.
  for (const [name, slot] of slots) {
    if (Object.hasOwn(next.mcpServers, name)) continue;
    summary.removed.push(name);
    slots.delete(name);
    context.forget(name);
    work.push(context.disconnect(slot, "disconnected"));
  }
  for (const [name, config] of Object.entries(next.mcpServers)) {
    const slot = slots.get(name);
    if (!slot) {
      summary.added.push(name);
      const fresh = createSlot(name, config);
      slots.set(name, fresh);
      if (autoConnect(fresh)) {
        addedChain = context.connect(fresh, addedChain);
        work.push(addedChain);
      }
      continue;
    }
    const old = slot.config;
    // A new command, URL, env or era means a different server process or endpoint: reconnect. A
    // server that was up comes back up even when lazy; one that was idle stays idle.
    if (connectionKey(old) !== connectionKey(config)) {
      summary.changed.push(name);
      const wasUp = slot.state === "connected" || slot.state === "connecting";
      work.push(
        context.disconnect(slot, config.enabled === false ? "disabled" : "disconnected").then(() => {
          slot.config = config;
          // Crashes of the old command say nothing about the new one.
          slot.crashes = 0;
          if (config.enabled !== false && (wasUp || autoConnect(slot))) return context.connect(slot);
          return undefined;
        }),
      );
      continue;
    }
    // Same entry, same top-level policy: nothing to do (and nothing to report to onConfigApplied).
    if (JSON.stringify(old) === JSON.stringify(config) && previous.collisionPolicy === next.collisionPolicy) continue;
    summary.updated.push(name);
    slot.config = config;
    if (config.enabled === false && old.enabled !== false) work.push(context.disconnect(slot, "disabled"));
    else if (config.enabled !== false && old.enabled === false) {
      slot.state = "disconnected";
      if (autoConnect(slot)) work.push(context.connect(slot));
    } else if (slot.state === "connected") context.refilter(slot); // filters or names changed: no reconnect needed
  }
  await Promise.all(work);
  return summary;
}
