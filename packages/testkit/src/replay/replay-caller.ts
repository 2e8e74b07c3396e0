/**
 * `createReplayCaller`: the runtime's own in-memory session caller over a replay host, so a
 * generated typed client, the registry and the manager run on a cassette exactly as on the
 * recorded server: same handshake, same results, same `ToolFailure` values.
 */

import { createHostedCaller, type SessionCaller, type SessionCallerOptions } from "@toolwright/runtime/caller";
import { type EraPreference, MODERN_PROTOCOL_VERSION } from "@toolwright/runtime/protocol";
import { type Cassette, parseCassette } from "../cassette/format.js";
import { createReplayHost, type ReplayHost, type ReplayOptions } from "./host.js";
import { exchangesOf } from "./script.js";

/** Options for `createReplayCaller`: how to match, and the session options of the caller under test. */
export interface ReplayCallerOptions extends ReplayOptions, Omit<SessionCallerOptions, "era" | "wiretap"> {
  /** The era to connect in. Default: as recorded (a probe when the recording probed). */
  readonly era?: EraPreference;
}

/** A caller answering from a cassette, with the host that serves it. */
export interface ReplayCaller extends SessionCaller {
  /** What the replay served so far. */
  readonly replay: ReplayHost;
}

/**
 * Creates a caller that replays `cassette` (its text or the parsed value) with no process and no
 * network. A request the cassette does not hold fails as a `ToolFailure` (kind `invalid_call`)
 * whose message names the nearest recorded request and what differs.
 */
export function createReplayCaller(cassette: Cassette | string, options: ReplayCallerOptions = {}): ReplayCaller {
  const parsed = typeof cassette === "string" ? parseCassette(cassette) : cassette;
  const host = createReplayHost(parsed, options);
  const { mode: _mode, ignore: _ignore, era, ...session } = options;
  const caller = createHostedCaller({
    ...session,
    name: options.name ?? parsed.header.server,
    host,
    era: era ?? recordedEra(parsed),
  });
  return Object.assign(caller, { replay: host });
}

/** The era preference that reproduces the recorded handshake. */
export function recordedEra(cassette: Cassette): EraPreference {
  // The first request the replay serves (transport probes the recording refused are not served).
  if (exchangesOf(cassette)[0]?.method === "server/discover") return "auto";
  return cassette.header.era === MODERN_PROTOCOL_VERSION ? MODERN_PROTOCOL_VERSION : "legacy";
}
