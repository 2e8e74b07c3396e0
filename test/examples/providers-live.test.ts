/**
 * examples/providers against the real server-memory and server-filesystem from npm (the example's
 * own test replays their cassettes): the episode through every adapter holds the same rows, and
 * each committed cassette must still be what the live server answers, so drift fails here.
 * Re-record: npx tsx examples/providers/record-cassettes.ts
 */
import { readFileSync, rmSync } from "node:fs";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { verifyCassette } from "@toolwright/testkit";
import { describe, expect, it } from "vitest";
import { FINAL_ANSWER, runEpisodes } from "../../examples/providers/episode.js";
import { ADAPTERS, expectedRows, NOTES_SHOWN, WRONG_ARGUMENT } from "../../examples/providers/episode-expected.js";
import { realServerSetup } from "../../examples/providers/real-servers.js";
import { CASSETTES } from "../../examples/providers/replay-servers.js";

describe("examples/providers live", () => {
  it("the episode is the same through every adapter against the real servers", async () => {
    const runs = await runEpisodes();
    expect(runs.map((r) => r.adapter)).toEqual(ADAPTERS);
    for (const run of runs) {
      expect(run.answer, run.adapter).toBe(FINAL_ANSWER);
      const shown = run.turns.map((t) => t.map((c) => `${c.call} ${c.shown.split(":")[0]}`));
      expect(shown, run.adapter).toEqual(expectedRows(run.adapter));
      expect(run.turns[1]?.[0]?.shown, run.adapter).toMatch(WRONG_ARGUMENT);
      expect(run.turns[0]?.[0]?.shown, run.adapter).toBe(NOTES_SHOWN);
    }
  }, 180_000);

  for (const server of ["memory", "filesystem"] as const) {
    it(`the committed ${server} cassette is what the live server answers, every answer equal`, async () => {
      const setup = realServerSetup();
      const live = createStdioCaller(setup[server]);
      try {
        const report = await verifyCassette(readFileSync(CASSETTES[server], "utf8"), live);
        expect(report.differences).toEqual([]);
        expect(report.checked).toBeGreaterThan(0);
      } finally {
        await live.close();
        rmSync(setup.dir, { recursive: true, force: true });
      }
    });
  }
});
