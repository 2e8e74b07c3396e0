/**
 * Re-records the cassettes the code-mode tests check the mocks and the live servers against: the
 * direct run of the people task on the real servers, through recording callers.
 * Run: `npx tsx examples/code-mode/record.ts`, review the diff, commit.
 */
import { writeFileSync } from "node:fs";
import type { StdioCaller } from "@toolwright/runtime/stdio";
import { type Cassette, createRecordingCaller, printCassette, type Recording } from "@toolwright/testkit";
import { startRealServers } from "../providers/real-servers.js";
import { cassetteFile, type DemoServer, RECORDED_ROOT, swapRoot } from "./cassettes.js";
import { liveTaskServers, runTask, type StartServers } from "./task.js";

const taken = new Map<DemoServer, Cassette>();
const start: StartServers = () => {
  const recordings: Recording[] = [];
  const real = startRealServers({}, (options) => {
    const recording = createRecordingCaller({ stdio: options });
    recordings.push(recording);
    return recording.caller as StdioCaller;
  });
  const servers = liveTaskServers(real);
  return {
    ...servers,
    // Snapshots are taken while the sessions are up (the header keeps the era), root written as RECORDED_ROOT.
    async close() {
      for (const r of recordings) {
        const cassette = r.snapshot();
        taken.set(cassette.header.server as DemoServer, swapRoot(cassette, real.root, RECORDED_ROOT));
      }
      await servers.close();
    },
  };
};
const run = await runTask("direct", start);
if (!run.done || run.failures > 0) throw new Error(`the direct run did not do the task (${run.failures} failures): nothing written`);
for (const [server, cassette] of taken) {
  writeFileSync(cassetteFile(server), printCassette(cassette));
  console.log(`wrote ${cassetteFile(server)} (${cassette.events.length} events)`);
}
