/**
 * Per-server state the manager keeps: the live client (if any), its status facts, the unfiltered
 * tool list, and the lease counters (calls in flight, last use) the idle reaper reads.
 */

import type { ToolFailure } from "../failure/failure.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import type { HeldTool } from "./approval-store.js";
import type { ServerClient } from "./client-factory.js";
import type { ServerConfig } from "./config-types.js";

/** Where a server's connection stands. `idle`: closed by the reaper, tools kept, next call reconnects. */
export type ServerState = "disconnected" | "connecting" | "connected" | "idle" | "failed" | "disabled";

/** How long connecting took, in ms. */
export interface ConnectDurations {
  readonly connectMs: number;
  readonly listToolsMs: number;
  readonly totalMs: number;
}

/** A server's status as `listServers()` reports it. */
export interface ServerStatus {
  readonly name: string;
  readonly transport: "stdio" | "http";
  /** The config file the entry came from. */
  readonly source?: string;
  readonly state: ServerState;
  readonly connected: boolean;
  readonly enabled: boolean;
  /** Tools exposed after allow and deny lists. */
  readonly toolCount: number;
  /** Tools the server lists but the allow and deny lists hide. */
  readonly hiddenToolCount: number;
  readonly error?: string;
  /**
   * Set while the last connect failed because the server needs the principal's authorization
   * (no grant, or a revoked one): the `auth_required` failure, naming the server, that calls answer with.
   */
  readonly authFailure?: ToolFailure;
  /** stderr kept from the child when it failed (stdio only). */
  readonly stderrTail?: string;
  readonly protocolVersion?: string;
  readonly serverInfo?: { readonly name: string; readonly version: string };
  readonly connectedAt?: Date;
  readonly durations?: ConnectDurations;
  readonly pid?: number;
  readonly inFlight: number;
  /** Crashes seen since the last successful call. */
  readonly crashes: number;
  readonly warnings: readonly string[];
}

/** Mutable per-server state. */
export interface ServerSlot {
  readonly name: string;
  config: ServerConfig;
  client: ServerClient | undefined;
  /** Increments whenever the client is replaced, so late events from an old client are ignored. */
  generation: number;
  state: ServerState;
  connecting: Promise<ServerStatus> | undefined;
  error: string | undefined;
  /** The last connect's failure when it was `auth_required`: calls answer with it until a connect succeeds. */
  authFailure: ToolFailure | undefined;
  stderrTail: string | undefined;
  connectedAt: Date | undefined;
  durations: ConnectDurations | undefined;
  allTools: readonly ToolDescriptor[];
  hidden: number;
  /** Tools the approval store holds back (changed since approved, or new under `hold`). */
  held: readonly HeldTool[];
  inFlight: number;
  lastUsed: number;
  crashes: number;
  /** Consecutive failed connects, and when a call may try again (backoff for automatic reconnects). */
  connectFailures: number;
  retryAt: number;
  /** A crash was counted in this turn of the event loop (its other failed calls are the same crash). */
  crashCounted: boolean;
  gaveUp: boolean;
  refreshTimer: ReturnType<typeof setTimeout> | undefined;
  warnings: string[];
}

/** A fresh slot for a config entry. */
export function createSlot(name: string, config: ServerConfig): ServerSlot {
  return {
    name,
    config,
    client: undefined,
    generation: 0,
    state: config.enabled === false ? "disabled" : "disconnected",
    connecting: undefined,
    error: undefined,
    authFailure: undefined,
    stderrTail: undefined,
    connectedAt: undefined,
    durations: undefined,
    allTools: [],
    hidden: 0,
    held: [],
    inFlight: 0,
    lastUsed: Date.now(),
    crashes: 0,
    crashCounted: false,
    connectFailures: 0,
    retryAt: 0,
    gaveUp: false,
    refreshTimer: undefined,
    warnings: [],
  };
}

/** A snapshot of a slot's status. */
export function statusOf(slot: ServerSlot, toolCount: number): ServerStatus {
  const handshake = slot.client?.handshake;
  const pid = slot.client?.pid;
  return {
    name: slot.name,
    transport: slot.config.transport,
    ...(slot.config.source ? { source: slot.config.source } : {}),
    state: slot.state,
    connected: slot.state === "connected",
    enabled: slot.config.enabled !== false,
    toolCount,
    hiddenToolCount: slot.hidden,
    ...(slot.error !== undefined ? { error: slot.error } : {}),
    ...(slot.authFailure ? { authFailure: slot.authFailure } : {}),
    ...(slot.stderrTail ? { stderrTail: slot.stderrTail } : {}),
    ...(handshake ? { protocolVersion: handshake.protocolVersion } : {}),
    ...(handshake?.serverInfo ? { serverInfo: { name: handshake.serverInfo.name, version: handshake.serverInfo.version } } : {}),
    ...(slot.connectedAt ? { connectedAt: slot.connectedAt } : {}),
    ...(slot.durations ? { durations: slot.durations } : {}),
    ...(pid !== undefined ? { pid } : {}),
    inFlight: slot.inFlight,
    crashes: slot.crashes,
    warnings: [...slot.warnings],
  };
}

/** Fields whose change needs a new connection. */
export function connectionKey(config: ServerConfig): string {
  const c = config as ServerConfig & { [key: string]: unknown };
  return JSON.stringify([c.transport, c.type, c.command, c.args, c.env, c.cwd, c.url, c.headers, c.era, c.outbound]);
}

/** The idle timeout of a config, if it has one. */
export function idleTimeoutOf(config: ServerConfig): number | undefined {
  return typeof config.lifecycle === "object" ? config.lifecycle.idleTimeoutMs : undefined;
}
