/**
 * The code-mode demo against the live servers (server-filesystem and server-memory from npm, over
 * stdio): both runs do the task on the real servers, and the committed cassettes the offline test
 * holds the mocks to are still what the live servers answer, so a server upgrade that changes an
 * answer fails here (re-record with `npx tsx examples/code-mode/record.ts`).
 */
import { verifyCassette } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { readCassette } from "../../examples/code-mode/cassettes.js";
import { expectDemo } from "../../examples/code-mode/expect-demo.js";
import { runDemo } from "../../examples/code-mode/main.js";
import { liveTaskServers, PEOPLE_WORKFLOW } from "../../examples/code-mode/task.js";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";

describe("examples/code-mode against the live servers", () => {
  let real: RealServers | undefined;
  afterEach(() => real?.close());

  it("does the task both ways on the real servers and prints the measured context tokens and round trips", async () => {
    const printed: string[] = [];
    const { direct, code } = await runDemo((line) => printed.push(line));
    expectDemo(direct, code, printed, "stdio");
  });

  it("the committed cassettes still match the live servers, answer for answer", async () => {
    real = startRealServers();
    await PEOPLE_WORKFLOW.setUp(liveTaskServers(real));
    for (const server of ["filesystem", "memory"] as const) {
      // The cassettes spell the temp root as RECORDED_ROOT; the live server is asked about its own.
      const report = await verifyCassette(readCassette(server, real.root), real[server]);
      expect({ server, differences: report.differences }).toEqual({ server, differences: [] });
      expect(report.checked).toBeGreaterThan(0);
    }
  });
});
