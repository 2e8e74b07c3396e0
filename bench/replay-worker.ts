/**
 * Bench worker for the replay section (one fresh process per repetition): per-call cost of a real
 * stdio call to the raw echo server, and of the same call replayed from a cassette recorded from
 * that server (strict mode, the runtime's in-memory session: no process, no network), in wall
 * time and in this process's CPU time. Prints `RESULT <json>`.
 * Usage: node --import tsx bench/replay-worker.ts <calls>
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { createRecordingCaller, createReplayCaller } from "@toolwright/testkit";

const calls = Number(process.argv[2] ?? "500");
const server = {
  name: "raw-echo",
  command: process.execPath,
  args: [fileURLToPath(new URL("./servers/raw-echo-stdio.mjs", import.meta.url))],
};
const call = (caller: SessionCaller, i: number) => caller.callTool({ name: "echo", arguments: { text: `call ${i}` } });

/** Wall and this process's CPU per call, in µs, after a connect and a warm-up call outside the timing. */
async function perCall(caller: SessionCaller, n: number): Promise<{ wall: number; cpu: number }> {
  const warm = await call(caller, -1);
  if (!warm.ok) throw new Error(`warm-up failed: ${warm.failure.message}`);
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const r = await call(caller, i);
    if (!r.ok) throw new Error(`call ${i} failed: ${r.failure.message}`);
  }
  const used = process.cpuUsage(cpu);
  return { wall: ((performance.now() - start) * 1000) / n, cpu: (used.user + used.system) / n };
}

const real = createStdioCaller(server);
const stdio = await perCall(real, calls);
await real.close();

// The cassette: the same session, recorded (not timed).
const recording = createRecordingCaller({ stdio: server });
await call(recording.caller, -1);
for (let i = 0; i < calls; i++) await call(recording.caller, i);
const cassette = recording.cassette();
await recording.close();

const replayCaller = createReplayCaller(cassette);
const replay = await perCall(replayCaller, calls);
await replayCaller.close();
process.stdout.write(`RESULT ${JSON.stringify({ stdio, replay, cassetteBytes: cassette.length })}\n`);
