/**
 * The recovery episode offline: the three servers are cassettes recorded from the real
 * server-memory, server-filesystem and server-everything (`cassettes/`, re-record with
 * `npx tsx examples/recovery/record.ts`), replayed in matching mode; no process, no network. The slow
 * tool is the test kit's `hang` fault, so the tool timeout of the design's run policy (1.5 s) must
 * end it, as it ends the real 30 s job. The same episode against the live servers, and a check that
 * the cassettes still match them, are in test/examples/recovery-live.test.ts.
 */
import type { RuntimeEvent } from "@toolwright/runtime";
import { afterEach, expect, it } from "vitest";
import { RECORDED_ROOT, type ReplayServers, startReplayServers } from "./cassettes.js";
import { runEpisode, type StepRecord } from "./episode.js";
import { expectEpisode } from "./expect-episode.js";

let servers: ReplayServers | undefined;
afterEach(() => servers?.close());

it("plays the episode offline: hallucination, wrong type, out-of-root, timeout, maxToolCalls", async () => {
  // Only the first long operation hangs; the retry (a short job) gets its recorded answer.
  servers = startReplayServers({ everything: [{ tool: "trigger-long-running-operation", call: 1, fault: { kind: "hang" } }] });
  const seen: StepRecord[] = [];
  const events: RuntimeEvent[] = [];
  const episode = await runEpisode({ servers, onStep: (r) => seen.push(r), onEvent: (e) => events.push(e) });

  expectEpisode(episode, seen, events);
  // The replayed answers are the real servers' own: the refusal names the (recorded) root.
  const refused = episode.steps.find((s) => s.step.startsWith("3."));
  expect(refused?.shown).toContain(`Access denied - path outside allowed directories: /etc/hostname not in ${RECORDED_ROOT}`);
  const { memory, filesystem, everything } = servers.hosts;
  // The hang really fired, on the first long operation only, and the runtime's deadline ended it.
  expect(everything.faults.injected).toEqual([{ tool: "trigger-long-running-operation", call: 1, kind: "hang" }]);
  expect(everything.faults.calls("trigger-long-running-operation")).toBe(2);
  expect(memory.faults.injected).toEqual([]);
  // Every tool call the episode sent reached a replay (the calls the runtime refused never left it):
  // 3 to memory, 4 to filesystem, 2 to everything.
  expect(memory.faults.calls()).toBe(3);
  expect(filesystem.faults.calls()).toBe(4);
  expect(everything.faults.calls()).toBe(2);
  // Each recorded request was used: the episode asked the servers exactly what the recording did.
  expect([memory.remaining(), filesystem.remaining(), everything.remaining()]).toEqual([0, 0, 0]);
  // Nothing was spawned and no folder was made.
  expect(episode.pids).toEqual([]);
  expect(episode.dirs).toEqual([]);
});
