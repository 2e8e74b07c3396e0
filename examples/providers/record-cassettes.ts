/**
 * Records cassettes/memory.cassette.jsonl and cassettes/filesystem.cassette.jsonl: the episode
 * played through every adapter against the real servers, each session recorded. Every adapter must
 * send the same calls, so the six sessions of a server must be the same cassette; that one is saved.
 *
 * Re-record: npx tsx examples/providers/record-cassettes.ts
 */
import { rmSync, writeFileSync } from "node:fs";
import { createRuntime } from "@toolwright/runtime";
import { createRecordingCaller, type Recording } from "@toolwright/testkit";
import { registerFilesystemToolset } from "../catalogues/src/gen/filesystem/index.js";
import { registerMemoryToolset } from "../catalogues/src/gen/memory/index.js";
import { type EpisodeServers, runEpisodes } from "./episode.js";
import { realServerSetup } from "./real-servers.js";
import { CASSETTES } from "./replay-servers.js";

const sessions = { memory: [] as string[], filesystem: [] as string[] };

function startRecordingServers(): EpisodeServers {
  const setup = realServerSetup();
  const memory = createRecordingCaller({ stdio: setup.memory });
  const filesystem = createRecordingCaller({ stdio: setup.filesystem });
  const runtime = createRuntime();
  registerMemoryToolset(runtime, memory.caller);
  registerFilesystemToolset(runtime, filesystem.caller);
  const done = async (name: keyof typeof sessions, recording: Recording) => {
    await recording.close();
    sessions[name].push(recording.cassette());
  };
  return {
    runtime,
    async close() {
      await Promise.all([done("memory", memory), done("filesystem", filesystem)]);
      rmSync(setup.dir, { recursive: true, force: true });
    },
  };
}

await runEpisodes(startRecordingServers);
for (const name of ["memory", "filesystem"] as const) {
  const [first, ...rest] = sessions[name];
  if (!first || rest.some((s) => s !== first)) throw new Error(`the adapters sent ${name} different sessions: nothing saved`);
  writeFileSync(CASSETTES[name], first);
  console.log(`wrote ${CASSETTES[name]} (${sessions[name].length} identical sessions)`);
}
