/**
 * What every adapter must show the model, turn by turn (`<call> <first word of what it saw>`): the
 * example's offline test and the live test (test/examples/providers-live.test.ts) hold the episode
 * to the same rows. Unknown tool names are the one place the SDKs differ: the AI SDK and LangChain
 * planners refuse them before Toolwright sees them.
 */

/** The adapters, in the order `runEpisodes` plays them. */
export const ADAPTERS = ["OpenAI chat (strict)", "OpenAI Responses", "Anthropic Messages", "Gemini", "AI SDK generateText", "LangChain"];

/** The rows one adapter's run must show. */
export function expectedRows(adapter: string): string[][] {
  const ghost = adapter.startsWith("AI SDK") ? "AI SDK" : adapter === "LangChain" ? "LangChain" : "tool_unavailable";
  return [
    ["filesystem_read_text_file ok", "memory_search_nodes ok", `filesystem_read_notes ${ghost}`],
    ["memory_create_entities invalid_call"],
    ["memory_create_entities ok"],
  ];
}

/** What the model saw for the call with the wrong argument (turn 2). */
export const WRONG_ARGUMENT = /entities\[0\]\.observations is invalid \(invalid field type\); expected array/;

/** What the model saw of notes.txt (the first 40 characters of the real server's answer). */
export const NOTES_SHOWN = "ok: Ada wrote the first program. She worked ";
