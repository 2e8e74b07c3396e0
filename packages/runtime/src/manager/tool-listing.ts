/**
 * What a server's listing does to the manager's registry: it is gated by the approval store,
 * filtered and named by the server's policy, mirrored into the runtime registry, and every change
 * is told to `onChange` listeners. A name one server reclaims from another's sanitized tool moves
 * that other tool, so its server's mirror and listeners hear of it too.
 */
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import type { McpManagerOptions } from "./manager-types.js";
import type { ServerSlot } from "./server-slot.js";
import type { ServerToolPolicy, ToolRegistry, ToolsDiff } from "./tool-registry.js";
import { gateListing, heldWarnings } from "./trust.js";

/** A connect's listing, admitted: what the slot records. */
export type Admission =
  | { readonly ok: true; readonly hidden: number; readonly warnings: string[]; readonly diff: ToolsDiff }
  | { readonly ok: false; readonly message: string };

/** What the listing needs from the manager. */
export interface ToolListingContext {
  readonly registry: ToolRegistry;
  readonly options: McpManagerOptions;
  readonly policyOf: (slot: ServerSlot) => ServerToolPolicy;
  /** Mirrors one server's tools into the runtime registry, if the manager has one. */
  readonly syncRuntime: (name: string) => void;
}

/** The registry side of listings. */
export interface ToolListing {
  /**
   * Registers a fresh connect's listing, strictly: under collision policy `error` a clash rejects
   * the whole server (its tools are removed and the message says why). Nothing is told to
   * listeners yet: the caller records the slot first, then calls `announce`.
   */
  admit(slot: ServerSlot, tools: readonly ToolDescriptor[]): Admission;
  /** Mirrors the server and tells listeners what changed (nothing when the diff is empty). */
  announce(name: string, diff: ToolsDiff): void;
  /** Filters `tools` into the registry again (a refresh, a policy or approval change); returns what changed. */
  refilter(slot: ServerSlot, tools: readonly ToolDescriptor[]): ToolsDiff;
  /** Removes the server's tools (a disconnect), mirrored and told. */
  remove(slot: ServerSlot): void;
}

/** Creates the listing side over one registry. */
export function createToolListing(context: ToolListingContext): ToolListing {
  const { registry, options } = context;
  const gate = (slot: ServerSlot, tools: readonly ToolDescriptor[]) => gateListing(options.approvals, slot, tools, context.policyOf(slot));

  function notifyChange(name: string, diff: ToolsDiff): void {
    if (diff.added.length + diff.removed.length + diff.changed.length === 0) return;
    try {
      options.onChange?.(name, diff);
    } catch {
      // A throwing listener must not break the manager.
    }
  }

  /** Another server's sanitized tool gave its exposed name back to a real one: its registry and listeners learn of it. */
  function announceMoves(moved: readonly { readonly server: string; readonly name: string }[]): void {
    for (const server of new Set(moved.map((m) => m.server))) {
      context.syncRuntime(server);
      notifyChange(server, { added: [], removed: [], changed: moved.filter((m) => m.server === server).map((m) => m.name) });
    }
  }

  return {
    admit(slot, tools) {
      const outcome = registry.replace(slot.name, gate(slot, tools), context.policyOf(slot), true);
      if (!outcome.ok) {
        registry.remove(slot.name);
        context.syncRuntime(slot.name);
        return outcome;
      }
      announceMoves(outcome.moved);
      const warnings = [...outcome.warnings, ...heldWarnings(slot)];
      // "0 tools" must not pass silently as success.
      if (tools.length === 0) warnings.push("the server lists no tools");
      else if (outcome.hidden === tools.length) warnings.push("allowTools/denyTools hide every tool of this server");
      return { ok: true, hidden: outcome.hidden, warnings, diff: outcome.diff };
    },
    announce(name, diff) {
      context.syncRuntime(name);
      notifyChange(name, diff);
    },
    refilter(slot, tools) {
      // Not strict: on a refresh, a collision skips one tool instead of dropping a working server.
      const outcome = registry.replace(slot.name, gate(slot, tools), context.policyOf(slot), false);
      if (!outcome.ok) return { added: [], removed: [], changed: [] };
      announceMoves(outcome.moved);
      slot.allTools = tools;
      slot.hidden = outcome.hidden;
      slot.warnings = [...outcome.warnings, ...heldWarnings(slot)];
      context.syncRuntime(slot.name);
      notifyChange(slot.name, outcome.diff);
      return outcome.diff;
    },
    remove(slot) {
      const removed = registry.remove(slot.name);
      context.syncRuntime(slot.name);
      if (removed.length > 0) notifyChange(slot.name, { added: [], removed, changed: [] });
    },
  };
}
