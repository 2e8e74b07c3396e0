/**
 * MCP requests on top of a JSON-RPC peer: the legacy `initialize` handshake with version
 * negotiation, plus the `Outcome` type and default client identity the callers share.
 */

import type { WireFault } from "../failure/wire-fault.js";
import type { Implementation, ServerHandshake } from "./mcp-types.js";
import { LEGACY_PROTOCOL_VERSIONS } from "./mcp-types.js";
import type { RpcPeer } from "./rpc-peer.js";

/** A value or a wire fault. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly fault: WireFault };

/** The client identity used when none is given. */
export const DEFAULT_CLIENT_INFO: Implementation = Object.freeze({ name: "toolwright", version: "0.1.0" });

/** Options for the handshake. */
export interface HandshakeOptions {
  readonly clientInfo?: Implementation;
  /** Pin a protocol version; by default the newest legacy version is offered. */
  readonly protocolVersion?: string;
  readonly capabilities?: { readonly [key: string]: unknown };
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Runs `initialize` then `notifications/initialized`. Rejects versions we do not speak. */
export async function initializeSession(peer: RpcPeer, options: HandshakeOptions = {}): Promise<Outcome<ServerHandshake>> {
  const offered = options.protocolVersion ?? LEGACY_PROTOCOL_VERSIONS[0];
  const outcome = await peer.request(
    "initialize",
    { protocolVersion: offered, capabilities: options.capabilities ?? {}, clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO },
    { timeoutMs: options.timeoutMs, signal: options.signal, cancellable: false, timeoutPhase: "connect" },
  );
  if (!outcome.ok) return outcome;
  const result = outcome.result as Partial<ServerHandshake> | undefined;
  const version = result?.protocolVersion;
  if (typeof version !== "string" || !(LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    return {
      ok: false,
      fault: {
        type: "rpc",
        code: -32600,
        message: `server answered unsupported protocol version ${JSON.stringify(version)}`,
        data: { offered },
      },
    };
  }
  await peer.notify("notifications/initialized").catch(() => {});
  return {
    ok: true,
    value: {
      protocolVersion: version,
      capabilities: (result?.capabilities as ServerHandshake["capabilities"]) ?? {},
      ...(result?.serverInfo ? { serverInfo: result.serverInfo } : {}),
      ...(typeof result?.instructions === "string" ? { instructions: result.instructions } : {}),
    },
  };
}
