/**
 * `npm run demo:code-mode`: the same multi-step task over the real server-filesystem and
 * server-memory, done by a scripted model once with direct tool calls and once in code mode, with
 * both runs' context tokens (o200k) and model round trips. The example's test runs the same demo on
 * generated mocks (mock-servers.ts): `runDemo(print, startMockServers)`.
 */
import { EXPECTED, runTask, type StartServers, startLiveServers, type TaskRun } from "./task.js";

/** Whether a run did the task: every person stored with their facts, and the summary written. */
export function didTask(run: TaskRun): boolean {
  return (
    run.summary === EXPECTED.summary &&
    EXPECTED.people.every((p) => JSON.stringify(run.entities.get(p.name)) === JSON.stringify(p.facts)) &&
    run.entities.has("Computing")
  );
}

/** The report lines for both runs. */
export function report(direct: TaskRun, code: TaskRun): string[] {
  const row = (r: TaskRun) =>
    `${r.mode.padEnd(7)} round trips ${String(r.roundTrips).padStart(2)}  context tokens ${String(r.contextTokens).padStart(6)}  tool definitions/request ${String(r.definitionTokens).padStart(5)}  task done ${didTask(r) ? "yes" : "NO"}`;
  const ratio = code.contextTokens / direct.contextTokens;
  return [
    `Task: store 4 people from their notes in memory, relate them, write summary.md (server-filesystem + server-memory, ${direct.servers})`,
    row(direct),
    row(code),
    `code mode / direct: context tokens ${ratio.toFixed(3)}x (target <= 0.2x), round trips ${code.roundTrips} vs ${direct.roundTrips}`,
    `token account (code mode): ${code.attribution?.codeModeRuns ?? 0} program(s), ${code.attribution?.codeModeIntermediateTokens ?? 0} tokens of tool results kept in the sandbox, ${code.attribution?.savedByCodeMode ?? 0} saved`,
  ];
}

/** Runs both on servers from `start` (default: the real ones) and prints the report; returns both runs for the test. */
export async function runDemo(
  print: (line: string) => void = console.log,
  start: StartServers = startLiveServers,
): Promise<{ direct: TaskRun; code: TaskRun; lines: string[] }> {
  const direct = await runTask("direct", start);
  const code = await runTask("code", start);
  const lines = report(direct, code);
  for (const line of lines) print(line);
  return { direct, code, lines };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { direct, code } = await runDemo();
  if (!didTask(direct) || !didTask(code)) process.exitCode = 1;
}
