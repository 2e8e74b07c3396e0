/**
 * The recovery episode offline: cassettes recorded from the real servers (`record.ts`), replayed in
 * matching mode through the runtime's own in-memory session, with faults from the test kit where the
 * episode needs a server to misbehave (the slow tool: a hang, so the runtime's tool timeout must end
 * it). No process, no network.
 *
 * Re-record after a server upgrade: `npx tsx examples/recovery/record.ts` (then
 * `npx vitest run test/examples/recovery-live.test.ts` checks the cassettes against the live servers).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createHostedCaller } from "@toolwright/runtime/caller";
import {
  type Cassette,
  type CassetteEvent,
  createReplayHost,
  type FaultPlan,
  type FaultyHost,
  parseCassette,
  printCassette,
  type ReplayHost,
  recordedEra,
  withFaults,
} from "@toolwright/testkit";
import { type EpisodeServers, SERVERS, type ServerName } from "./servers.js";

/**
 * The filesystem root as the cassettes spell it. A recording runs in a fresh temp folder, so
 * `record.ts` writes this stand-in for it; replays serve it as is, and the live check puts the live
 * server's own root back before it compares.
 */
export const RECORDED_ROOT = "/recorded/recovery-root";

/** Where the cassette of one server is committed. */
export const cassetteFile = (server: ServerName) => fileURLToPath(new URL(`./cassettes/${server}.cassette.jsonl`, import.meta.url));

/** A copy of `value` with every `from` inside its strings replaced by `to` (the JSON structure is untouched). */
function swapIn(value: unknown, from: string, to: string): unknown {
  if (typeof value === "string") return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((v) => swapIn(v, from, to));
  if (typeof value !== "object" || value === null) return value;
  const out: { [key: string]: unknown } = {};
  for (const [k, v] of Object.entries(value)) out[k] = swapIn(v, from, to);
  return out;
}

/** `cassette` with the filesystem root `from` written as `to` everywhere in its messages. */
export function swapRoot(cassette: Cassette, from: string, to: string): Cassette {
  return { header: cassette.header, events: cassette.events.map((e) => swapIn(e, from, to) as CassetteEvent) };
}

/** The committed cassette of `server`, with the root spelled `root` (default: as recorded). */
export function readCassette(server: ServerName, root = RECORDED_ROOT): Cassette {
  const file = cassetteFile(server);
  return swapRoot(parseCassette(readFileSync(file, "utf8"), file), RECORDED_ROOT, root);
}

/**
 * Drops the requests no answer came back to (the slow call the runtime gave up on at its tool
 * timeout) and the client's cancellations of them: a replay has nothing to play for them, and a
 * check against the live server would wait for the whole slow job. The offline test injects that
 * hang itself, with the test kit's `hang` fault.
 */
export function withoutUnanswered(cassette: Cassette): Cassette {
  const answered = new Set<unknown>();
  for (const e of cassette.events) if (e.dir === "recv" && e.msg.method === undefined) answered.add(e.msg.id);
  const dropped = new Set<unknown>();
  const tokens = new Set<unknown>();
  for (const e of cassette.events) {
    if (e.dir !== "send" || typeof e.msg.method !== "string" || e.msg.id === undefined || answered.has(e.msg.id)) continue;
    dropped.add(e.msg.id);
    const meta = (e.msg.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
    if (meta?.progressToken !== undefined) tokens.add(meta.progressToken);
  }
  const keep = (e: CassetteEvent) => {
    if (e.dir === "fault") return true;
    const params = e.msg.params as { requestId?: unknown; progressToken?: unknown } | undefined;
    if (e.dir === "send" && e.msg.method !== undefined && e.msg.id !== undefined) return !dropped.has(e.msg.id);
    if (e.msg.method === "notifications/cancelled") return !dropped.has(params?.requestId);
    if (e.msg.method === "notifications/progress") return !tokens.has(params?.progressToken);
    return true;
  };
  return { header: cassette.header, events: cassette.events.filter(keep) };
}

/** Prints a recording for committing: unanswered requests dropped, the temp root written as `RECORDED_ROOT`. */
export function cassetteText(recorded: Cassette, root: string): string {
  return printCassette(swapRoot(withoutUnanswered(recorded), root, RECORDED_ROOT));
}

/** The episode's servers as cassette replays, each behind a fault plan (empty by default). */
export interface ReplayServers extends EpisodeServers {
  /** The replay host of each server: `faults.injected` says which faults fired, `replay.served` how many requests it answered. */
  readonly hosts: { readonly [server in ServerName]: FaultyHost<ReplayHost> };
}

/** Starts the three replays: matching mode (the episode sends some calls in parallel), no process, no socket. */
export function startReplayServers(faults: { readonly [server in ServerName]?: FaultPlan } = {}): ReplayServers {
  const hosts = {} as { [server in ServerName]: FaultyHost<ReplayHost> };
  const callers = {} as { [server in ServerName]: ReturnType<typeof createHostedCaller> };
  for (const server of SERVERS) {
    const cassette = readCassette(server);
    hosts[server] = withFaults(createReplayHost(cassette, { mode: "matching" }), faults[server] ?? []);
    callers[server] = createHostedCaller({ name: server, host: hosts[server], era: recordedEra(cassette) });
  }
  return {
    callers,
    hosts,
    root: RECORDED_ROOT,
    pids: () => [],
    dirs: [],
    async close() {
      await Promise.all(Object.values(callers).map((c) => c.close()));
    },
  };
}
