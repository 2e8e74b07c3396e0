/**
 * What every run of the recovery episode must show, offline (cassette replays, recovery.test.ts)
 * or live (the real servers, test/examples/recovery-live.test.ts): each step's failure kind and
 * action, the recovery chosen, the text the model was shown, and the telemetry.
 */
import type { RuntimeEvent } from "@toolwright/runtime";
import { expect } from "vitest";
import { type Episode, readTypeCorrections, type StepRecord } from "./episode.js";

/** Asserts the episode's transcript; `seen` is what `onStep` got, `events` what `onEvent` got. */
export function expectEpisode(episode: Episode, seen: readonly StepRecord[], events: readonly RuntimeEvent[]): void {
  const by = (prefix: string) => {
    const step = episode.steps.find((s) => s.step.startsWith(prefix));
    if (!step) throw new Error(`no step ${prefix}`);
    return step;
  };
  const outcome = (prefix: string) => {
    const o = by(prefix).outcome;
    return o.ok ? { ok: true } : { kind: o.kind, action: o.action, reason: o.reason };
  };

  expect(outcome("1.")).toEqual({ kind: "invalid_call", action: "replan", reason: "tool_unavailable" });
  expect(by("1.").shown).toContain("Closest tools: memory_create_entities");
  expect(by("1.").recovery).toBe("replan: use the closest tool, memory_create_entities");

  expect(outcome("2.")).toEqual({ kind: "invalid_call", action: "correct_call", reason: undefined });
  expect(readTypeCorrections(by("2.").shown)).toEqual([{ field: "entities[0].observations", expected: "array" }]);
  expect(by("2.").shown).toContain("Rejected input:");
  // Guidance and example come from the generated spec (design.ts descriptions and examples).
  expect(by("2.").shown).toContain(
    "Field guidance:\n- entities[].observations: An array of observation contents associated with the entity",
  );
  expect(by("2.").shown).toContain(
    'Example input: {"entities":[{"name":"Ada Lovelace","entityType":"person","observations":["wrote the first program"]}]}',
  );
  expect(outcome("2b.")).toEqual({ ok: true });

  expect(outcome("3.")).toEqual({ kind: "domain_rejection", action: "replan", reason: undefined });
  expect(by("3.").shown).toMatch(/Access denied - path outside allowed directories/);
  expect(outcome("3b.")).toEqual({ ok: true });
  expect(outcome("3c.")).toEqual({ ok: true });
  expect(by("3c.").shown).toContain("Ada Lovelace wrote the first published program.");

  expect(outcome("4.")).toEqual({ kind: "timeout", action: "retry", reason: "tool_timeout" });
  expect(by("4.").recovery).toBe("retry with a shorter operation");
  expect(outcome("4b.")).toEqual({ ok: true });

  expect(outcome("4c. parallel: search")).toEqual({ kind: "invalid_call", action: "correct_call", reason: undefined });
  expect(outcome("4c. parallel: read")).toEqual({ kind: "domain_rejection", action: "replan", reason: undefined });
  expect(outcome("4d.")).toEqual({ kind: "invalid_call", action: "correct_call", reason: undefined });
  expect(by("4d.").recovery).toBe("correct_call: fix memory.search_nodes first");
  expect(outcome("4e.")).toEqual({ ok: true });

  const searches = episode.steps.filter((s) => s.step.startsWith("5."));
  expect(searches.map((s) => (s.outcome.ok ? "ok" : s.outcome.reason))).toEqual(["ok", "max_tool_calls"]);
  expect(outcome(searches.at(-1)?.step ?? "")).toEqual({ kind: "canceled", action: "finish", reason: "max_tool_calls" });
  expect(by("5.1").shown).toContain("Ada Lovelace");
  expect(episode.usage.toolCalls).toBe(9);

  expect(seen).toEqual(episode.steps);
  // Telemetry saw every model call (the planner-only combine step is not a call): one start, one end each.
  const calls = episode.steps.filter((s) => s.call.name !== "(planner)");
  expect(events.filter((e) => e.type === "call_started")).toHaveLength(calls.length);
  const ends = events.filter((e) => e.type !== "call_started");
  expect(ends.map((e) => e.type === "call_finished")).toEqual(calls.map((s) => s.outcome.ok));
  expect(ends.filter((e) => e.type === "call_failed" && e.sent).map((e) => e.type === "call_failed" && e.kind)).toEqual([
    "domain_rejection",
    "timeout",
    "domain_rejection",
  ]);
}
