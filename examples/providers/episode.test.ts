/**
 * The provider demo's episode offline: every adapter (OpenAI chat and Responses, Anthropic,
 * Gemini, the AI SDK, LangChain; their real SDKs) plays it against server-memory and
 * server-filesystem replayed from cassettes of the real servers (replay-servers.ts), and shows the
 * model the same outcome for the same call, turn by turn, ending with the same answer.
 * test/examples/providers-live.test.ts plays it against the real servers and checks the cassettes.
 */
import { describe, expect, it } from "vitest";
import { FINAL_ANSWER, runEpisodes } from "./episode.js";
import { ADAPTERS, expectedRows, NOTES_SHOWN, WRONG_ARGUMENT } from "./episode-expected.js";
import { startReplayServers } from "./replay-servers.js";

describe("examples/providers episode, servers replayed", () => {
  it("is the same through every adapter", async () => {
    const runs = await runEpisodes(startReplayServers);
    expect(runs.map((r) => r.adapter)).toEqual(ADAPTERS);
    for (const run of runs) {
      expect(run.answer, run.adapter).toBe(FINAL_ANSWER);
      const shown = run.turns.map((t) => t.map((c) => `${c.call} ${c.shown.split(":")[0]}`));
      expect(shown, run.adapter).toEqual(expectedRows(run.adapter));
      expect(run.turns[1]?.[0]?.shown, run.adapter).toMatch(WRONG_ARGUMENT);
      // The recorded answer texts reach the model: the notes as the real server read them.
      expect(run.turns[0]?.[0]?.shown, run.adapter).toBe(NOTES_SHOWN);
    }
  }, 120_000);

  it("a call the cassettes do not hold fails naming the nearest recorded one", async () => {
    const servers = startReplayServers();
    try {
      const result = await servers.runtime.execute({ tool: "filesystem.read_text_file", arguments: { path: "other.txt" } });
      expect(result.ok).toBe(false);
      expect(result.ok ? "" : result.failure.message).toMatch(/nearest recorded request[\s\S]*notes\.txt/);
    } finally {
      await servers.close();
    }
  });
});
