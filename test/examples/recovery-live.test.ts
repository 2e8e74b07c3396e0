/**
 * The recovery example against the live servers (server-memory, server-filesystem and
 * server-everything from npm, over stdio): the episode shows what its offline test shows, leaves
 * nothing running, and the committed cassettes the offline test replays still match what the live
 * servers answer, so a server upgrade that changes an answer fails here (re-record with
 * `npx tsx examples/recovery/record.ts`).
 */
import { existsSync } from "node:fs";
import type { RuntimeEvent } from "@toolwright/runtime";
import { verifyCassette } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { RECORDED_ROOT, readCassette, swapRoot } from "../../examples/recovery/cassettes.js";
import { type Episode, runEpisode, type StepRecord } from "../../examples/recovery/episode.js";
import { expectEpisode } from "../../examples/recovery/expect-episode.js";
import { type EpisodeServers, SERVERS, startRealServers } from "../../examples/recovery/servers.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("examples/recovery against the live servers", () => {
  let servers: EpisodeServers | undefined;
  afterEach(() => servers?.close());

  it("plays the episode: hallucination, wrong type, out-of-root, a real 30 s job cut at 1.5 s, maxToolCalls", async () => {
    const seen: StepRecord[] = [];
    const events: RuntimeEvent[] = [];
    const episode: Episode = await runEpisode({ onStep: (r) => seen.push(r), onEvent: (e) => events.push(e) });
    expectEpisode(episode, seen, events);
    expect(episode.pids).toHaveLength(3);
    expect(episode.pids.filter(alive)).toEqual([]);
    expect(episode.dirs.filter((d) => existsSync(d))).toEqual([]);
  }, 60_000);

  it("the committed cassettes still match the live servers, answer for answer", async () => {
    servers = startRealServers();
    for (const server of SERVERS) {
      // The cassettes spell the temp root as RECORDED_ROOT; the live server is asked about its own.
      const report = await verifyCassette(readCassette(server, servers.root), servers.callers[server]);
      expect({ server, differences: report.differences }).toEqual({ server, differences: [] });
      expect(report.checked).toBeGreaterThan(0);
    }
    // The check can fail: a cassette whose refusal text drifted from the server's is reported, by request.
    const drifted = swapRoot(readCassette("filesystem", servers.root), "Access denied", "Permission denied");
    const report = await verifyCassette(drifted, servers.callers.filesystem);
    expect(report.ok).toBe(false);
    expect(report.differences.map((d) => d.request)).toEqual([
      'tools/call read_text_file {"path":"/etc/hostname"}',
      'tools/call read_text_file {"path":"/etc/passwd"}',
    ]);
    expect(RECORDED_ROOT).not.toBe(servers.root);
  }, 60_000);
});
