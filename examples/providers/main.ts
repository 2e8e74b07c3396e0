/**
 * `npm run demo:providers`: the same episode through each adapter, side by side, then the tokens
 * per turn of the tool definitions with and without tool search.
 */
import { createRuntime } from "@toolwright/runtime";
import { definitionTokens, syntheticCatalogue } from "./catalogue.js";
import { runEpisodes } from "./episode.js";
import { startRealServers } from "./real-servers.js";

const runs = await runEpisodes();
const width = 44;
const pad = (s: string) => (s.length > width ? `${s.slice(0, width - 1)}…` : s.padEnd(width));
for (let i = 0; i < runs.length; i += 3) {
  const group = runs.slice(i, i + 3);
  console.log(`\n${group.map((r) => pad(`== ${r.adapter}`)).join(" ")}`);
  const turns = Math.max(...group.map((r) => r.turns.length));
  for (let t = 0; t < turns; t++) {
    const rows = Math.max(...group.map((r) => r.turns[t]?.length ?? 0));
    console.log(group.map(() => pad(`turn ${t + 1}`)).join(" "));
    for (let k = 0; k < rows; k++) {
      console.log(group.map((r) => pad(r.turns[t]?.[k] ? `  ${r.turns[t]?.[k]?.call}` : "")).join(" "));
      console.log(group.map((r) => pad(r.turns[t]?.[k] ? `    ${r.turns[t]?.[k]?.shown}` : "")).join(" "));
    }
  }
  console.log(group.map((r) => pad(`answer: ${r.answer}`)).join(" "));
}

const servers = startRealServers();
const synthetic = createRuntime();
synthetic.registerToolset(syntheticCatalogue(500));
console.log("\ntokens of tool definitions per turn (o200k_base), openai-chat format:");
for (const [name, runtime] of [
  ["memory + filesystem (23 tools)", servers.runtime],
  ["synthetic (500 tools)", synthetic],
] as const) {
  const all = definitionTokens(runtime, "openai-chat", false);
  const search = definitionTokens(runtime, "openai-chat", true);
  console.log(
    `  ${name.padEnd(32)} all tools ${String(all.tokens).padStart(6)}   tool search ${String(search.tokens).padStart(4)} (3 tools)`,
  );
}
await servers.close();
