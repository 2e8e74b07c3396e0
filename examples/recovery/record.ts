/**
 * Re-records the cassettes the offline test replays: runs the episode against the real servers
 * through recording callers and writes `cassettes/<server>.cassette.jsonl`.
 * Run: `npx tsx examples/recovery/record.ts`, review the diff, commit.
 */
import { writeFileSync } from "node:fs";
import { type Cassette, createRecordingCaller, type Recording } from "@toolwright/testkit";
import { cassetteFile, cassetteText } from "./cassettes.js";
import { runEpisode } from "./episode.js";
import { type ServerName, startRealServers } from "./servers.js";

const recordings = new Map<ServerName, Recording>();
const real = startRealServers((server, options) => {
  const recording = createRecordingCaller({ stdio: options });
  recordings.set(server, recording);
  return recording.caller;
});
const taken = new Map<ServerName, Cassette>();
// Snapshots are taken while the sessions are still up, so each header keeps the era it spoke.
const close = async () => {
  for (const [server, recording] of recordings) taken.set(server, recording.snapshot());
  await real.close();
};
const episode = await runEpisode({ servers: { ...real, close } });
for (const [server, cassette] of taken) {
  const file = cassetteFile(server);
  writeFileSync(file, cassetteText(cassette, real.root));
  console.log(`wrote ${file} (${cassette.events.length} events recorded)`);
}
console.log(`${episode.steps.length} steps recorded`);
