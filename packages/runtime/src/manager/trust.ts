/**
 * The manager's side of trust on first use and the live lint: which listed tools the approval
 * store lets through, what a held tool's call failure says, approving a server's current tools,
 * and linting every live catalogue. Kept apart so `manager.ts` only wires them in.
 */
import { type LintFinding, type LintOptions, lintCatalogue } from "../catalogue/catalogue-lint.js";
import { fingerprintTool } from "../catalogue/fingerprint.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import type { ApprovalStore } from "./approval-store.js";
import type { ServerSlot } from "./server-slot.js";
import { isToolVisible, type ServerToolPolicy } from "./tool-registry.js";

type Lists = Pick<ServerToolPolicy, "allowTools" | "denyTools">;

/** What of a listing may reach the registry; sets `slot.held`. Denied tools are never approved on first use. */
export function gateListing(
  store: ApprovalStore | undefined,
  slot: ServerSlot,
  tools: readonly ToolDescriptor[],
  lists: Lists,
): ToolDescriptor[] {
  slot.held = [];
  if (!store) return [...tools];
  const visible = tools.filter((t) => isToolVisible(t.name, lists));
  const { allowed, held } = store.gate(slot.name, visible);
  slot.held = held;
  return [...allowed, ...tools.filter((t) => !visible.includes(t))];
}

/** The status warning for held tools, if any. */
export function heldWarnings(slot: ServerSlot): string[] {
  return slot.held.length === 0 ? [] : [`held back until approved: ${slot.held.map((h) => `${h.name} (${h.reason})`).join(", ")}`];
}

/** Why a call to `name` cannot run when the tool is held back; undefined when it is not. */
export function heldMessage(slot: ServerSlot, name: string): string | undefined {
  const held = slot.held.find((h) => h.name === name);
  if (!held) return undefined;
  const why = held.reason === "changed" ? "it changed since it was approved" : "it was never approved";
  return `${name} is held back: ${why}; run toolwright approve ${slot.name} ${name}`;
}

/** Records the current fingerprints of a connected slot's visible tools (only `tool` when given); returns their ids. */
export function approveSlot(store: ApprovalStore, slot: ServerSlot, tool: string | undefined, lists: Lists): string[] {
  const listed = slot.allTools.filter((t) => (tool === undefined || t.name === tool) && isToolVisible(t.name, lists));
  if (tool !== undefined && listed.length === 0) throw new Error(`server "${slot.name}" lists no tool "${tool}"`);
  store.approve(
    slot.name,
    listed.map((t) => ({ name: t.name, fingerprint: fingerprintTool(t) })),
  );
  return listed.map((t) => `${slot.name}.${t.name}`);
}

/** Lints every slot's live catalogue (held tools included) and its instructions. */
export function lintSlots(slots: Iterable<ServerSlot>, options?: LintOptions): LintFinding[] {
  const live = [...slots].filter((slot) => slot.allTools.length > 0);
  return lintCatalogue(
    live.map((slot) => ({ name: slot.name, tools: slot.allTools, instructions: slot.client?.handshake?.instructions })),
    options,
  );
}
