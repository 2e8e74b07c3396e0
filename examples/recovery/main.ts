/**
 * Prints the recovery episode: each model call, the failure as the model saw it, and the recovery
 * the scripted planner chose. Run: `npm run build && npx tsx examples/recovery/main.ts`.
 */
import { runEpisode } from "./episode.js";

const episode = await runEpisode({
  onStep(record) {
    const verdict = record.outcome.ok
      ? "ok"
      : `FAILED ${record.outcome.kind} / ${record.outcome.action}${record.outcome.reason ? ` (${record.outcome.reason})` : ""}`;
    console.log(`\n=== ${record.step}: ${record.call.name}(${String(record.call.arguments)}) → ${verdict}`);
    if (!record.outcome.ok) console.log(record.shown.replace(/^/gm, "  | "));
    console.log(`  recovery: ${record.recovery}`);
  },
});
console.log(`\n${episode.steps.length} steps, ${episode.usage.toolCalls} tool calls sent, run stopped by policy.`);
