/**
 * Records cassettes/memory.cassette.jsonl from the real server-memory: one librarian topic's writes
 * (each followed by the read-only check the librarian makes after a crash), the same writes sent
 * again (the server adds nothing), and the whole graph. The example's test checks the mock's
 * handlers against it; test/examples/durable-live.test.ts checks it against the live server.
 *
 * Re-record: npx tsx examples/durable/record-cassette.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StdioCallerOptions } from "@toolwright/runtime/stdio";
import { createRecordingCaller } from "@toolwright/testkit";
import { TOPICS } from "./demo.js";
import { plan } from "./librarian.js";
import { createMemoryClient, type MemoryClient } from "./src/gen/memory/index.js";

/** Where the cassette is committed. */
export const MEMORY_CASSETTE = fileURLToPath(new URL("./cassettes/memory.cassette.jsonl", import.meta.url));

/** The real server-memory over stdio, its graph in `file`. */
export function realMemoryOptions(file: string): StdioCallerOptions {
  const pkg = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json");
  return { name: "memory", command: process.execPath, args: [join(dirname(pkg), "dist", "index.js")], env: [`MEMORY_FILE_PATH=${file}`] };
}

/** The recorded session: what the librarian sends for one topic, twice, then the graph. */
export async function librarianSession(memory: MemoryClient): Promise<void> {
  const topic = TOPICS[0];
  if (!topic) return;
  for (let round = 0; round < 2; round++) {
    for (const action of plan(topic)) {
      if (action.tool === "create_entities") await memory.createEntities(action.arguments);
      else if (action.tool === "create_relations") await memory.createRelations(action.arguments);
      else await memory.addObservations(action.arguments);
      await memory.openNodes({ names: [topic.person] });
    }
  }
  await memory.openNodes({ names: [topic.person, topic.work] });
  await memory.readGraph({});
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), "toolwright-durable-cassette-"));
  const recording = createRecordingCaller({ stdio: realMemoryOptions(join(dir, "memory.jsonl")) });
  try {
    await librarianSession(createMemoryClient(recording.caller));
    recording.save(MEMORY_CASSETTE);
    console.log(`wrote ${MEMORY_CASSETTE}`);
  } finally {
    await recording.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
