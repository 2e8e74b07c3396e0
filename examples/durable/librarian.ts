/**
 * The librarian's episode, written once against the durable run: a scripted model (no LLM) files a
 * person and a work into server-memory through the generated typed client. A write whose outcome is
 * unknown (its worker died mid-call) is checked with a read-only tool before it is ever sent again.
 */
import type { ToolResult } from "@toolwright/runtime";
import type { DurableRun } from "@toolwright/runtime/durable";
import { createMemoryClient, type MemoryClient } from "./src/gen/memory/index.js";

/** What one run files. */
export interface Topic {
  readonly person: string;
  readonly work: string;
  readonly relation: string;
  readonly facts: readonly string[];
}

/** One write the model decided on, as data (so the demo can count it at the server). */
export type Action =
  | { readonly tool: "create_entities"; readonly arguments: Parameters<MemoryClient["createEntities"]>[0] }
  | { readonly tool: "create_relations"; readonly arguments: Parameters<MemoryClient["createRelations"]>[0] }
  | { readonly tool: "add_observations"; readonly arguments: Parameters<MemoryClient["addObservations"]>[0] };

/** What happened to one step. */
export interface StepReport {
  readonly step: string;
  readonly tool: string;
  readonly arguments: unknown;
  /** `ok`, or `unknown → verified present` / `unknown → absent, sent again`, or the failure kind. */
  readonly outcome: string;
  readonly idempotent: boolean;
}

/** The run's result. */
export interface EpisodeReport {
  readonly runId: string;
  /** The worker the plan step ran on (recorded, so a resumed run still says where it began). */
  readonly plannedOn: string;
  readonly steps: readonly StepReport[];
  /** The person's node as the server holds it at the end. */
  readonly observations: readonly string[];
}

/** The scripted model's plan for a topic. A real planner would call a model inside `run.step`. */
export function plan(topic: Topic): Action[] {
  return [
    { tool: "create_entities", arguments: { entities: [{ name: topic.person, entityType: "person", observations: [] }] } },
    { tool: "create_entities", arguments: { entities: [{ name: topic.work, entityType: "work", observations: [] }] } },
    { tool: "create_relations", arguments: { relations: [{ from: topic.person, to: topic.work, relationType: topic.relation }] } },
    { tool: "add_observations", arguments: { observations: [{ entityName: topic.person, contents: [...topic.facts] }] } },
  ];
}

type Graph = {
  entities?: { name: string; observations?: string[] }[];
  relations?: { from: string; to: string; relationType: string }[];
};

function graphOf(result: ToolResult<unknown>): Graph {
  if (!result.ok) return {};
  try {
    return JSON.parse(String(result.value)) as Graph;
  } catch {
    return {};
  }
}

function send(memory: MemoryClient, action: Action): Promise<ToolResult<unknown>> {
  if (action.tool === "create_entities") return memory.createEntities(action.arguments);
  if (action.tool === "create_relations") return memory.createRelations(action.arguments);
  return memory.addObservations(action.arguments);
}

/** The open_nodes arguments `landed` uses for an action. */
function checkArguments(action: Action): { names: string[] } {
  if (action.tool === "create_entities") return { names: action.arguments.entities.map((e) => e.name) };
  if (action.tool === "create_relations") {
    const r = action.arguments.relations[0];
    return { names: r ? [r.from, r.to] : [] };
  }
  return { names: action.arguments.observations.map((o) => o.entityName).slice(0, 1) };
}

/** Did the write take effect? Asked with open_nodes, which is read-only and safe to repeat. */
async function landed(memory: MemoryClient, action: Action): Promise<boolean> {
  const graph = graphOf(await memory.openNodes(checkArguments(action)));
  if (action.tool === "create_entities") return action.arguments.entities.every((x) => graph.entities?.some((e) => e.name === x.name));
  if (action.tool === "create_relations") {
    const r = action.arguments.relations[0];
    return !r || graph.relations?.some((x) => x.from === r.from && x.to === r.to && x.relationType === r.relationType) === true;
  }
  const o = action.arguments.observations[0];
  if (!o) return true;
  const have = graph.entities?.find((e) => e.name === o.entityName)?.observations ?? [];
  return o.contents.every((c) => have.includes(c));
}

/** The episode. `thinkMs` is the scripted model's latency per decision. */
export async function librarianEpisode(
  run: DurableRun,
  input: { readonly topic: Topic; readonly thinkMs: number },
): Promise<EpisodeReport> {
  const memory = createMemoryClient(run.caller("memory"));
  const { actions, on } = await run.step("model: plan", async () => ({ actions: plan(input.topic), on: process.env.DEMO_EXECUTOR ?? "?" }));
  const steps: StepReport[] = [];
  for (const [i, action] of actions.entries()) {
    await run.step(`model: decide step ${i + 1}`, () => new Promise((resolve) => setTimeout(resolve, input.thinkMs)));
    const result = await send(memory, action);
    const step = `${i + 1}`;
    if (result.ok || result.failure.reason !== "outcome_unknown") {
      steps.push({
        step,
        tool: action.tool,
        arguments: action.arguments,
        outcome: result.ok ? "ok" : result.failure.kind,
        idempotent: false,
      });
      continue;
    }
    // Its worker died mid-call: look before sending again (open_nodes is read-only, safe to repeat).
    steps.push({
      step,
      tool: action.tool,
      arguments: action.arguments,
      outcome: "outcome_unknown (worker died mid-call)",
      idempotent: false,
    });
    const present = await landed(memory, action);
    steps.push({
      step: `${step}a`,
      tool: "open_nodes",
      arguments: checkArguments(action),
      outcome: present ? "took effect: not sent again" : "absent",
      idempotent: true,
    });
    if (!present) {
      const again = await send(memory, action);
      steps.push({
        step: `${step}b`,
        tool: action.tool,
        arguments: action.arguments,
        outcome: again.ok ? "sent again: ok" : again.failure.kind,
        idempotent: false,
      });
    }
  }
  const names = [input.topic.person, input.topic.work];
  const graph = graphOf(await memory.openNodes({ names }));
  steps.push({ step: `${actions.length + 1}`, tool: "open_nodes", arguments: { names }, outcome: "ok", idempotent: true });
  const observations = graph.entities?.find((e) => e.name === input.topic.person)?.observations ?? [];
  return { runId: run.runId, plannedOn: on, steps, observations };
}
