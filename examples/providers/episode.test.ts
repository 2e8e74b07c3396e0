/**
 * The provider demo's episode: every adapter (OpenAI chat and Responses, Anthropic, Gemini, the
 * AI SDK, LangChain) shows the model the same outcome for the same call, turn by turn, and ends
 * with the same answer. Unknown tool names are the one place the SDKs differ: the AI SDK and
 * LangChain planners refuse them before Toolwright sees them.
 */
import { describe, expect, it } from "vitest";
import { FINAL_ANSWER, runEpisodes } from "./episode.js";

describe("examples/providers episode", () => {
  it("is the same through every adapter", async () => {
    const runs = await runEpisodes();
    expect(runs.map((r) => r.adapter)).toEqual([
      "OpenAI chat (strict)",
      "OpenAI Responses",
      "Anthropic Messages",
      "Gemini",
      "AI SDK generateText",
      "LangChain",
    ]);
    for (const run of runs) {
      expect(run.answer, run.adapter).toBe(FINAL_ANSWER);
      const shown = run.turns.map((t) => t.map((c) => `${c.call} ${c.shown.split(":")[0]}`));
      expect(shown, run.adapter).toEqual([
        [
          "filesystem_read_text_file ok",
          "memory_search_nodes ok",
          `filesystem_read_notes ${run.adapter.startsWith("AI SDK") ? "AI SDK" : run.adapter === "LangChain" ? "LangChain" : "tool_unavailable"}`,
        ],
        ["memory_create_entities invalid_call"],
        ["memory_create_entities ok"],
      ]);
      expect(run.turns[1]?.[0]?.shown, run.adapter).toMatch(
        /entities\[0\]\.observations is invalid \(invalid field type\); expected array/,
      );
    }
  }, 120_000);
});
