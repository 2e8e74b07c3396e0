/**
 * The manager's two approvals. Per call: the `approve` hook (a human or a policy) decides whether
 * one call may run, unless `autoApprove` covers the tool. Per tool: `approve(server, tool)` records
 * the current fingerprints in the approval store (trust on first use, `trust.ts`), which releases
 * held tools. A hook that throws or answers anything but `true` refuses: fail closed.
 */
import type { CallRequest } from "../caller/caller.js";
import type { Principal } from "../caller/principal.js";
import type { ApprovalStore } from "./approval-store.js";
import type { ApprovalHook } from "./manager-types.js";
import type { ServerSlot, ServerStatus } from "./server-slot.js";
import type { ManagedTool, ServerToolPolicy } from "./tool-registry.js";
import { approveSlot } from "./trust.js";

/** The per-call approval of one manager. */
export interface CallApproval {
  /** True when no hook needs asking. Synchronous, so most calls skip an await (and its microtask hop). */
  autoApproved(slot: ServerSlot, tool: ManagedTool): boolean;
  /** Asks the hook about one call (made for `principal`, if any); true only for an explicit `true`. */
  ask(slot: ServerSlot, tool: ManagedTool, args: CallRequest["arguments"], principal?: Principal): Promise<boolean>;
}

/** Creates the per-call approval over the manager's `approve` hook (none: every call runs). */
export function createCallApproval(hook: ApprovalHook | undefined): CallApproval {
  const autoApproved = (slot: ServerSlot, tool: ManagedTool): boolean => {
    const auto = slot.config.autoApprove;
    return auto === true || (Array.isArray(auto) && auto.includes(tool.name)) || !hook;
  };
  return {
    autoApproved,
    async ask(slot, tool, args, principal) {
      if (autoApproved(slot, tool) || !hook) return true;
      try {
        const request = {
          server: slot.name,
          id: tool.id,
          name: tool.name,
          exposedName: tool.exposedName,
          arguments: args,
          risk: tool.risk,
        };
        return (await (principal ? hook(request, principal) : hook(request))) === true;
      } catch {
        return false;
      }
    },
  };
}

/** What approving tools needs from the manager. */
export interface ApproveToolsContext {
  readonly store: ApprovalStore | undefined;
  readonly slots: ReadonlyMap<string, ServerSlot>;
  /** Connects a slot first: only a live listing has fingerprints to approve. */
  readonly connect: (slot: ServerSlot) => Promise<ServerStatus>;
  readonly policyOf: (slot: ServerSlot) => ServerToolPolicy;
  /** Filters the slot's listing again, so the approved tools reach the registry at once. */
  readonly refilter: (slot: ServerSlot) => unknown;
}

/**
 * Approves the current tools of `server` (every server when undefined; only `tool` when given)
 * and returns the approved ids. Throws for a manager without a store or an unknown server: these
 * are mistakes of the code or command that asked, not failures of a server.
 */
export async function approveTools(context: ApproveToolsContext, server?: string, tool?: string): Promise<string[]> {
  const store = context.store;
  if (!store) throw new Error("approve(): the manager has no approval store (pass options.approvals)");
  const all = [...context.slots.values()];
  const targets = server === undefined ? all : [context.slots.get(server)].filter((s): s is ServerSlot => s !== undefined);
  if (server !== undefined && targets.length === 0) throw new Error(`unknown server "${server}"`);
  const done: string[] = [];
  for (const slot of targets) {
    if (slot.state !== "connected") await context.connect(slot);
    done.push(...approveSlot(store, slot, tool, context.policyOf(slot)));
    context.refilter(slot);
  }
  return done;
}
