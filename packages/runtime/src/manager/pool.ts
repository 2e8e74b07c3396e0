/**
 * Pool checks over the manager's slots: a health probe with its own timeout (ping on legacy
 * servers, `tools/list` on 2026 ones, which have no ping) and the idle reaper.
 */

import type { ToolFailure } from "../failure/failure.js";
import { failureFromFault, messageWithoutServer } from "../failure/failure-mapping.js";
import type { Result } from "../failure/result.js";
import { revisionForVersion, revisionNamed } from "../revisions/registry.js";
import { idleTimeoutOf, type ServerSlot, type ServerState } from "./server-slot.js";

/** Closes a slot's client and records why. */
export type Evict = (slot: ServerSlot, error: string | undefined, state: ServerState) => Promise<void>;

/** Probes one connected slot; a failure evicts the connection (tools stay, the next call rebuilds). */
export async function probeSlot(slot: ServerSlot, defaultTimeoutMs: number, evict: Evict): Promise<Result<void>> {
  const client = slot.client;
  const context = { tool: "probe", server: slot.name };
  if (!client || slot.state !== "connected")
    return {
      ok: false,
      failure: failureFromFault({ type: "transport", code: "ECLOSED", message: `not connected (${slot.state})` }, context),
    };
  const timeoutMs = slot.config.probeTimeoutMs ?? defaultTimeoutMs;
  let failure: ToolFailure | undefined;
  if (slot.config.transport === "stdio" && client.pid === undefined) {
    // A call in flight on a client with no process is restarting the server (after a crash): closing
    // the client now would fail that call, which would succeed on the new process. Report, keep it.
    if (slot.inFlight > 0) {
      const message = "server process is not running (a call is restarting it)";
      return { ok: false, failure: failureFromFault({ type: "transport", code: "EXIT", message }, context) };
    }
    failure = failureFromFault({ type: "transport", code: "EXIT", message: "server process is not running" }, context);
  } else {
    // A revision without ping (2026-07-28): a light tools/list is the only proof of life there.
    const era = (client as { readonly era?: string }).era;
    const version = client.handshake?.protocolVersion;
    const revision =
      (era !== undefined ? revisionNamed(era) : undefined) ?? (version !== undefined ? revisionForVersion(version) : undefined);
    const outcome =
      revision !== undefined && revision.liveness !== "ping" ? await client.listTools({ timeoutMs }) : await client.ping({ timeoutMs });
    if (!outcome.ok) failure = outcome.failure;
  }
  if (!failure) return { ok: true, value: undefined };
  if (slot.client === client) await evict(slot, `health probe failed: ${messageWithoutServer(failure)}`, "failed");
  return { ok: false, failure };
}

/** Closes connections idle longer than their `idleTimeoutMs`, never one with a call in flight. */
export async function reapIdleSlots(slots: Iterable<ServerSlot>, evict: Evict, now = Date.now()): Promise<string[]> {
  const reaped: string[] = [];
  for (const slot of slots) {
    const idle = idleTimeoutOf(slot.config);
    if (idle === undefined || slot.state !== "connected" || slot.inFlight > 0 || slot.connecting) continue;
    if (now - slot.lastUsed < idle) continue;
    reaped.push(slot.name);
    await evict(slot, undefined, "idle");
  }
  return reaped;
}
