/**
 * The handshake half of the client core: which era to speak (`server/discover` probe, then legacy
 * `initialize`), the client's identity, the connect budget shared by both attempts, and the session
 * they agree on. Requests on that session live in `mcp-client.ts`.
 */

import type { WireFault } from "../failure/wire-fault.js";
import { discoverVersions, LEGACY_NAME, listRevisions, revisionForVersion, revisionNamed } from "../revisions/registry.js";
import { initializeSession, type Outcome } from "./mcp-session.js";
import type { Implementation, ServerHandshake } from "./mcp-types.js";
import { LEGACY_PROTOCOL_VERSIONS } from "./mcp-types.js";
import { META, MODERN_ERROR_CODES, pickVersion, protocolMeta } from "./modern.js";
import type { RpcPeer } from "./rpc-peer.js";

/**
 * Which protocol era to speak: detect, or pin one. Eras are named as `mcp.json` names them: `legacy`
 * (the `initialize` handshake, 2024-11-05 … 2025-11-25) and the stateless `2026-07-28` revision.
 */
export type EraPreference = "auto" | Era;

/**
 * A detected era: `legacy` (`initialize`) or the stateless `2026-07-28` revision; a revision
 * registered at run time (`registerRevision`) is named by its own name.
 */
export type Era = "legacy" | "2026-07-28" | (string & {});

/** Whether the era, as pinned, must open with the `server/discover` probe (and never falls back). */
export function discoverOnly(era: EraPreference): boolean {
  return era !== "auto" && revisionNamed(era)?.handshake === "discover";
}

/** Who the client is and what it offers. */
export interface ClientIdentity {
  readonly clientInfo: Implementation;
  readonly capabilities: { readonly [key: string]: unknown };
  /** A pinned protocol version (legacy or modern). */
  readonly protocolVersion?: string | undefined;
}

/** A live protocol session. `protocolVersion` may change after a -32022 renegotiation. */
export interface Session {
  readonly era: Era;
  protocolVersion: string;
  readonly handshake: ServerHandshake;
}

/** What a `server/discover` probe found. */
export type ProbeResult =
  | { readonly kind: "modern"; readonly session: Session }
  /** Not a modern server (or no mutual modern version): fall back to `initialize`. */
  | { readonly kind: "legacy"; readonly fault?: WireFault }
  /** A failure that must not trigger a fallback (connection refused, auth, abort, modern rejection). */
  | { readonly kind: "fault"; readonly fault: WireFault };

/** Timing for connect-phase requests. */
export interface ConnectTiming {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** Resolves the effective era: a pinned version implies its era unless the era is pinned too. */
export function effectiveEra(era: EraPreference | undefined, protocolVersion: string | undefined): EraPreference {
  // A wrong era is a programmer error in the caller's options (JavaScript callers, or "modern" from
  // before the era took the spec's names): throw at creation rather than silently speak legacy.
  if (era !== undefined && era !== "auto" && revisionNamed(era) === undefined) {
    const names = ["auto", ...listRevisions().map((r) => r.name)].map((n) => JSON.stringify(n));
    throw new TypeError(`era must be ${names.slice(0, -1).join(", ")} or ${names.at(-1)} (got ${JSON.stringify(era)})`);
  }
  if (era !== undefined && era !== "auto") return era;
  if (protocolVersion === undefined) return era ?? "auto";
  return revisionForVersion(protocolVersion)?.name ?? LEGACY_NAME;
}

/** The HTTP status a fault carried, if any. */
export function statusOf(fault: WireFault): number | undefined {
  if (fault.type === "http") return fault.status;
  if (fault.type === "rpc") return fault.httpStatus;
  return undefined;
}

function noFallback(fault: WireFault): boolean {
  if (fault.type === "transport" || fault.type === "canceled") return true;
  const status = statusOf(fault);
  return status === 401 || status === 403;
}

/** The versions a probe offers: a pinned stateless version, a pinned era's versions, or every stateless version. */
function offered(identity: ClientIdentity, era: EraPreference | undefined): readonly string[] {
  const pinned = identity.protocolVersion;
  if (pinned !== undefined && revisionForVersion(pinned)?.handshake === "discover") return [pinned];
  const revision = era === undefined || era === "auto" ? undefined : revisionNamed(era);
  return revision?.handshake === "discover" ? revision.versions : discoverVersions();
}

/**
 * Probes with `server/discover`. Retries once on -32022 when the server lists a stateless version
 * we speak. `era`, when pinned to a stateless revision, limits the offer to its versions.
 */
export async function probeModern(
  peer: RpcPeer,
  identity: ClientIdentity,
  timing: ConnectTiming,
  era?: EraPreference,
): Promise<ProbeResult> {
  const ours = offered(identity, era);
  let version = ours[0] as string;
  for (let attempt = 0; attempt < 2; attempt++) {
    const outcome = await peer.request(
      "server/discover",
      { _meta: protocolMeta(version, identity.capabilities, identity.clientInfo) },
      { timeoutMs: timing.timeoutMs, signal: timing.signal, cancellable: false, timeoutPhase: "connect" },
    );
    if (outcome.ok) {
      const r = (outcome.result ?? {}) as { [key: string]: unknown };
      const chosen = pickVersion(r.supportedVersions, ours);
      if (chosen === undefined) return { kind: "legacy" };
      const meta = r._meta as { [key: string]: unknown } | undefined;
      const serverInfo = (r.serverInfo ?? meta?.[META.serverInfo]) as Implementation | undefined;
      const handshake: ServerHandshake = {
        protocolVersion: chosen,
        capabilities: (r.capabilities as ServerHandshake["capabilities"]) ?? {},
        ...(serverInfo ? { serverInfo } : {}),
        ...(typeof r.instructions === "string" ? { instructions: r.instructions } : {}),
      };
      return { kind: "modern", session: { era: revisionForVersion(chosen)?.name ?? LEGACY_NAME, protocolVersion: chosen, handshake } };
    }
    const fault = outcome.fault;
    if (fault.type === "rpc" && fault.code === -32022) {
      const next = pickVersion((fault.data as { supported?: unknown } | undefined)?.supported, ours);
      if (next !== undefined && attempt === 0) {
        version = next;
        continue;
      }
      return { kind: "legacy", fault };
    }
    if (fault.type === "rpc" && MODERN_ERROR_CODES.has(fault.code)) return { kind: "fault", fault };
    if (noFallback(fault)) return { kind: "fault", fault };
    return { kind: "legacy", fault };
  }
  return { kind: "legacy" };
}

/** Runs the legacy `initialize` handshake. */
export async function initializeLegacy(peer: RpcPeer, identity: ClientIdentity, timing: ConnectTiming): Promise<Outcome<Session>> {
  const pinned = identity.protocolVersion;
  const outcome = await initializeSession(peer, {
    clientInfo: identity.clientInfo,
    capabilities: identity.capabilities,
    timeoutMs: timing.timeoutMs,
    ...(pinned && (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(pinned) ? { protocolVersion: pinned } : {}),
    ...(timing.signal ? { signal: timing.signal } : {}),
  });
  if (!outcome.ok) return outcome;
  return { ok: true, value: { era: LEGACY_NAME, protocolVersion: outcome.value.protocolVersion, handshake: outcome.value } };
}

/** One connect deadline (era detection, handshake, SSE endpoint) shared by every step, as the user set it. */
export interface ConnectBudget {
  readonly totalMs: number;
  /** Time left, at least 1 ms. */
  remaining(): number;
  /**
   * Time for the `server/discover` probe: everything when pinned to the modern era; otherwise at
   * most `probeTimeoutMs` and at most half the budget, so `initialize` keeps time to answer.
   */
  probeMs(era: EraPreference, probeTimeoutMs: number): number;
  /** A connect-phase timeout restated with the budget the user set (not the few ms that were left). */
  explain(fault: WireFault, step: string): WireFault;
}

/** Starts a connect budget of `totalMs` now. */
export function createConnectBudget(totalMs: number): ConnectBudget {
  const started = Date.now();
  const remaining = () => Math.max(1, totalMs - (Date.now() - started));
  return {
    totalMs,
    remaining,
    probeMs: (era, probeTimeoutMs) => (discoverOnly(era) ? remaining() : Math.min(remaining(), probeTimeoutMs, Math.ceil(totalMs / 2))),
    explain: (fault, step) =>
      fault.type === "timeout" && fault.phase === "connect"
        ? { ...fault, message: `${step} got no answer within the ${totalMs} ms connect budget (connectTimeoutMs)` }
        : fault,
  };
}

/** Opens a session on a transport that needs no fallback decisions (stdio), within one connect budget. */
export async function openSession(
  peer: RpcPeer,
  identity: ClientIdentity,
  era: EraPreference,
  timing: { readonly budget: ConnectBudget; readonly probeTimeoutMs: number; readonly signal?: AbortSignal | undefined },
): Promise<Outcome<Session>> {
  const { budget, signal } = timing;
  if (era !== "legacy") {
    const probe = await probeModern(peer, identity, { timeoutMs: budget.probeMs(era, timing.probeTimeoutMs), signal }, era);
    if (probe.kind === "modern") return { ok: true, value: probe.session };
    if (probe.kind === "fault") return { ok: false, fault: budget.explain(probe.fault, "server/discover") };
    if (discoverOnly(era)) return { ok: false, fault: notModern(probe.fault && budget.explain(probe.fault, "server/discover")) };
  }
  const init = await initializeLegacy(peer, identity, { timeoutMs: budget.remaining(), signal });
  return init.ok ? init : { ok: false, fault: budget.explain(init.fault, "initialize") };
}

/** The fault for "pinned to the modern era, but the server is not modern". */
export function notModern(cause: WireFault | undefined): WireFault {
  return {
    type: "rpc",
    code: -32022,
    message: `server does not speak ${discoverVersions().join(", ")}${cause ? ` (${cause.message})` : ""}`,
    ...(cause?.type === "rpc" && cause.data !== undefined ? { data: cause.data } : {}),
  };
}
