/**
 * The episode's MCP side offline: server-memory and server-filesystem replayed from cassettes
 * recorded from the real servers (record-cassettes.ts), through the same generated clients. No
 * process, no network: the runtime, the clients and every adapter run unchanged.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRuntime } from "@toolwright/runtime";
import { createReplayCaller } from "@toolwright/testkit";
import { registerFilesystemToolset } from "../catalogues/src/gen/filesystem/index.js";
import { registerMemoryToolset } from "../catalogues/src/gen/memory/index.js";
import type { EpisodeServers } from "./episode.js";

/** The committed cassettes, one per server. */
export const CASSETTES = {
  memory: fileURLToPath(new URL("./cassettes/memory.cassette.jsonl", import.meta.url)),
  filesystem: fileURLToPath(new URL("./cassettes/filesystem.cassette.jsonl", import.meta.url)),
} as const;

/**
 * Both servers replayed in matching mode: each call is answered by the recorded call with the same
 * tool and arguments, and a call the cassette lacks fails naming the nearest recorded one.
 */
export function startReplayServers(): EpisodeServers {
  const memory = createReplayCaller(readFileSync(CASSETTES.memory, "utf8"), { mode: "matching" });
  const filesystem = createReplayCaller(readFileSync(CASSETTES.filesystem, "utf8"), { mode: "matching" });
  const runtime = createRuntime();
  registerMemoryToolset(runtime, memory);
  registerFilesystemToolset(runtime, filesystem);
  return {
    runtime,
    async close() {
      await Promise.all([memory.close(), filesystem.close()]);
    },
  };
}
