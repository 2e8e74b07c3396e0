/**
 * Prints the recovery episode: each model call, the failure as the model saw it, and the recovery
 * the scripted planner chose. Run: `npm run build && npx tsx examples/recovery/main.ts`.
 */
import type { RuntimeEvent } from "@toolwright/runtime";
import { runEpisode } from "./episode.js";

const events: RuntimeEvent[] = [];

const episode = await runEpisode({
  onEvent: (e) => events.push(e),
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
const failed = events.filter((e) => e.type === "call_failed");
const byKind = new Map<string, number>();
for (const e of failed) if (e.type === "call_failed") byKind.set(e.kind, (byKind.get(e.kind) ?? 0) + 1);
console.log(
  `telemetry: ${events.filter((e) => e.type === "call_started").length} started, ${events.filter((e) => e.type === "call_finished").length} finished, ${failed.length} failed (${[...byKind].map(([k, n]) => `${k} ${n}`).join(", ")})`,
);
