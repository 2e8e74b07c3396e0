/**
 * The `mcp.client.session.duration` histogram of the OpenTelemetry MCP conventions, kept by the
 * session core: a session starts when a connection's handshake succeeds and ends at `close()`, a
 * lost connection, or a session the server expired. Each session is recorded once.
 */
import { type CallConnection, type HistogramLike, MCP_CLIENT_METRICS, type MeterLike } from "../core/telemetry.js";

/** Starts and ends session timings. A no-op without a meter. */
export interface SessionClock {
  /** Stamps `conn`'s start; `describe` is read now, while the handshake and transport are live. */
  start(conn: object, describe: () => CallConnection): void;
  /** Records `conn`'s duration (once); `errorType` when the session did not end by `close()`. */
  end(conn: object, errorType: string | undefined): void;
}

const OFF: SessionClock = { start: () => {}, end: () => {} };

/** Creates the clock of one caller. */
export function createSessionClock(meter: MeterLike | undefined): SessionClock {
  if (!meter) return OFF;
  // Keyed by connection, weakly: a connection the core forgot without an end is not kept alive here.
  const open = new WeakMap<object, { readonly at: number; readonly attributes: { [key: string]: string } }>();
  let histogram: HistogramLike | undefined;
  return {
    start(conn, describe) {
      const c = describe();
      // No session id or request id: metric attributes must stay low-cardinality.
      const attributes: { [key: string]: string } = {};
      if (c.protocolVersion !== undefined) attributes["mcp.protocol.version"] = c.protocolVersion;
      if (c.transport !== undefined) attributes["network.transport"] = c.transport;
      open.set(conn, { at: performance.now(), attributes });
    },
    end(conn, errorType) {
      const started = open.get(conn);
      if (!started) return;
      open.delete(conn);
      try {
        histogram ??= meter.createHistogram(MCP_CLIENT_METRICS.sessionDuration, {
          description: "Duration of the MCP session as observed by the client",
          unit: "s",
        });
        const attributes = errorType === undefined ? started.attributes : { ...started.attributes, "error.type": errorType };
        histogram.record((performance.now() - started.at) / 1000, attributes);
      } catch {
        // a faulty meter must never break a caller
      }
    },
  };
}
