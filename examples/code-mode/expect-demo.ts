/**
 * What every run of the code-mode demo must show, on the generated mocks (demo.test.ts) or on the
 * live servers (test/examples/code-mode-live.test.ts): both runs did the task on the servers, and
 * the printed numbers are the ones measured from the requests the scripted model received.
 */
import { expect } from "vitest";
import { didTask } from "./main.js";
import { EXPECTED, type TaskRun } from "./task.js";

/** Asserts both runs and the report `printed`. */
export function expectDemo(direct: TaskRun, code: TaskRun, printed: readonly string[], servers: string): void {
  for (const run of [direct, code]) {
    expect(run.failures).toBe(0);
    expect(run.summary).toBe(EXPECTED.summary);
    for (const p of EXPECTED.people) expect(run.entities.get(p.name)).toEqual(p.facts);
    expect(didTask(run)).toBe(true);
    expect(run.done).toBe(true);
    expect(run.servers).toBe(servers);
  }
  // One round trip per step directly (list, read, store, relate, write, answer); one program in code mode.
  expect(direct.roundTrips).toBe(6);
  expect(code.roundTrips).toBe(2);
  expect(direct.contextTokens).toBeGreaterThan(direct.definitionTokens * direct.roundTrips);
  expect(code.contextTokens).toBeGreaterThan(code.definitionTokens * code.roundTrips);
  const out = printed.join("\n");
  expect(out).toContain(`(server-filesystem + server-memory, ${servers})`);
  expect(out).toContain(`direct  round trips  6  context tokens ${String(direct.contextTokens).padStart(6)}`);
  expect(out).toContain(`code    round trips  2  context tokens ${String(code.contextTokens).padStart(6)}`);
  expect(out).toContain(`context tokens ${(code.contextTokens / direct.contextTokens).toFixed(3)}x`);
  // The token account saw the one program; what it kept in the sandbox is what direct calling paid for in results.
  expect(code.attribution?.codeModeRuns).toBe(1);
  expect(code.attribution?.savedByCodeMode).toBeGreaterThan(0);
  expect(code.attribution?.codeModeIntermediateTokens).toBeLessThan(direct.contextTokens);
  expect(out).toContain(`token account (code mode): 1 program(s), ${code.attribution?.codeModeIntermediateTokens} tokens`);
}
