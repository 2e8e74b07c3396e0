/**
 * The telemetry facts a caller knows and records itself (the session duration metric), on the
 * caller's floor so callers need nothing from core/: the meter's shape, the connection attributes
 * of the OpenTelemetry MCP conventions, and the client metric names. core/telemetry.ts builds the
 * spans and the operation metric on top of these.
 */

/** The part of an OpenTelemetry `Meter` the runtime uses (the `meter` option's type): a histogram with `record`. */
export interface MeterLike {
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string },
  ): { record(value: number, attributes?: { [key: string]: string | number | boolean }): void };
}

/** The part of an OpenTelemetry `Histogram` the runtime uses. */
export type HistogramLike = ReturnType<MeterLike["createHistogram"]>;

/** What the runtime knows about the connection a call goes over, for span and metric attributes. */
export interface CallConnection {
  /** `network.transport`: `pipe` for stdio, `tcp` for HTTP. */
  readonly transport?: "pipe" | "tcp";
  /** `mcp.protocol.version`, from the handshake. */
  readonly protocolVersion?: string;
  /** `mcp.session.id`, when the transport has one (streamable HTTP before 2026-07-28). */
  readonly sessionId?: string;
  /** `jsonrpc.request.id` of the `tools/call` request, when the caller reports it. */
  readonly requestId?: string | number;
}

/**
 * The connection facts a caller exposes, read without widening the `Caller` contract: a session
 * caller's `handshake.protocolVersion`, an optional `transport`/`sessionId` property.
 */
export function connectionOf(caller: unknown): CallConnection {
  const c = (typeof caller === "object" && caller !== null ? caller : {}) as {
    handshake?: { protocolVersion?: unknown };
    transport?: unknown;
    sessionId?: unknown;
  };
  const out: { -readonly [K in keyof CallConnection]: CallConnection[K] } = {};
  if (typeof c.handshake?.protocolVersion === "string") out.protocolVersion = c.handshake.protocolVersion;
  // HTTP callers report "streamable-http" or "legacy-sse" (both over TCP); a stdio caller has a `pid`.
  if (c.transport === "streamable-http" || c.transport === "legacy-sse" || c.transport === "tcp") out.transport = "tcp";
  else if ("pid" in c || c.transport === "pipe") out.transport = "pipe";
  if (typeof c.sessionId === "string") out.sessionId = c.sessionId;
  return out;
}

/** Metric names of the OpenTelemetry MCP semantic conventions (client side). */
export const MCP_CLIENT_METRICS = {
  operationDuration: "mcp.client.operation.duration",
  sessionDuration: "mcp.client.session.duration",
} as const;
