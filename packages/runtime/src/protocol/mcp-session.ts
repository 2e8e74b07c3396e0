/**
 * MCP requests on top of a JSON-RPC peer: the legacy `initialize` handshake with version
 * negotiation, `tools/list` through every page, `tools/call` and `ping`.
 */
import type { CallToolResult, Implementation, ServerHandshake, ToolDescriptor } from "./mcp-types.js";
import { LEGACY_PROTOCOL_VERSIONS } from "./mcp-types.js";
import type { PeerRequestOptions, RpcPeer } from "./rpc-peer.js";
import type { WireFault } from "./wire-fault.js";

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

const MAX_PAGES = 1000;

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

/** Lists tools through every page. A repeated cursor stops the loop instead of spinning. */
export async function listAllTools(peer: RpcPeer, options: PeerRequestOptions = {}): Promise<Outcome<ToolDescriptor[]>> {
  const tools: ToolDescriptor[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const outcome = await peer.request("tools/list", cursor === undefined ? {} : { cursor }, options);
    if (!outcome.ok) return outcome;
    const result = outcome.result as { tools?: unknown; nextCursor?: unknown } | undefined;
    if (!Array.isArray(result?.tools)) {
      return { ok: false, fault: { type: "rpc", code: -32603, message: "tools/list result has no tools array" } };
    }
    tools.push(...(result.tools as ToolDescriptor[]));
    if (typeof result.nextCursor !== "string" || result.nextCursor === "") return { ok: true, value: tools };
    if (seen.has(result.nextCursor)) return { ok: true, value: tools };
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  return { ok: true, value: tools };
}

/** Calls a tool. The result is returned as sent, `isError` included; mapping happens later. */
export async function callTool(
  peer: RpcPeer,
  name: string,
  args: { readonly [key: string]: unknown },
  meta: { readonly [key: string]: unknown } | undefined,
  options: PeerRequestOptions,
): Promise<Outcome<CallToolResult>> {
  const params = meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta };
  const outcome = await peer.request("tools/call", params, options);
  if (!outcome.ok) return outcome;
  const result = outcome.result as Partial<CallToolResult> | undefined;
  if (typeof result !== "object" || result === null) {
    return { ok: false, fault: { type: "rpc", code: -32603, message: "tools/call result is not an object" } };
  }
  return { ok: true, value: { ...result, content: Array.isArray(result.content) ? result.content : [] } };
}
