/**
 * A scripted model (no LLM) plays a realistic episode against MCP servers (server-memory,
 * server-filesystem, server-everything) through the runtime registry. Each failure is rendered for
 * the "model", which picks its recovery from the failure's action and the text. By default the
 * servers are the real ones over stdio; a test passes `servers` (cassette replays, see replay.ts)
 * and the same episode runs offline.
 */
import { join } from "node:path";
import {
  type FailureKind,
  type FailureReason,
  type ModelToolCall,
  type RecoveryAction,
  type RuntimeEvent,
  renderResult,
  type ToolResult,
  toolRequestFromModelCall,
} from "@toolwright/runtime";
import { combineFailures } from "@toolwright/runtime/caller";
import { type EpisodeServers, NOTE, startRealServers } from "./servers.js";
import { createResearcherRuntime } from "./src/gen/agents/index.js";

/** What happened at one step, and what the scripted model decided next. */
export interface StepRecord {
  readonly step: string;
  readonly call: ModelToolCall;
  readonly outcome:
    | { readonly ok: true }
    | { readonly ok: false; readonly kind: FailureKind; readonly action: RecoveryAction; readonly reason?: FailureReason };
  /** What the model was shown. */
  readonly shown: string;
  readonly recovery: string;
}

/** Options of `runEpisode`. */
export interface EpisodeOptions {
  /** Receives each step as it happens (the CLI prints it). */
  readonly onStep?: (record: StepRecord) => void;
  readonly onEvent?: (event: RuntimeEvent) => void;
  /** The servers to play against (closed at the end). Default: the real servers over stdio. */
  readonly servers?: EpisodeServers;
}

/** The transcript of an episode plus what was left behind. */
export interface Episode {
  readonly steps: readonly StepRecord[];
  /** pids of the server processes that ran (all closed at the end). */
  readonly pids: readonly number[];
  readonly usage: { readonly toolCalls: number; readonly consecutiveFailures: number };
  /** The temp directories used (removed at the end). */
  readonly dirs: readonly string[];
}

/** Parses the corrections a model can read off `renderFailure` text: `- <field> is invalid (...); expected <type>`. */
export function readTypeCorrections(text: string): { field: string; expected: string }[] {
  const out: { field: string; expected: string }[] = [];
  for (const line of text.split("\n")) {
    const m = /^- (\S+) is invalid \(invalid field type\); expected (\w+)/.exec(line);
    if (m?.[1] && m[2]) out.push({ field: m[1], expected: m[2] });
  }
  return out;
}

/** Applies a type correction at a dotted/bracketed path (`entities[0].observations`). */
function fixAt(value: unknown, field: string, expected: string): unknown {
  const parts = field.match(/[^.[\]]+/g) ?? [];
  const copy = structuredClone(value) as { [key: string]: unknown };
  let node: { [key: string]: unknown } = copy;
  for (const part of parts.slice(0, -1)) node = node[part] as { [key: string]: unknown };
  const last = parts.at(-1) as string;
  if (expected === "array") node[last] = [node[last]];
  else if (expected === "string") node[last] = String(node[last]);
  else if (expected === "number" || expected === "integer") node[last] = Number(node[last]);
  return copy;
}

/** Runs the episode. Real servers run in fresh temp directories that are removed afterwards. */
export async function runEpisode(options: EpisodeOptions = {}): Promise<Episode> {
  const servers = options.servers ?? startRealServers();
  const { memory, filesystem: files, everything } = servers.callers;
  const root = servers.root;
  const steps: StepRecord[] = [];
  let pids: number[] = [];
  // Generated from design.ts: registers only the agent's tools and enforces its runPolicy
  // (maxToolCalls 9, maxConsecutiveFailedToolCalls 3, toolTimeout 1500 ms).
  const runtime = createResearcherRuntime(
    { memory, files, everything },
    { confirm: async () => true, ...(options.onEvent ? { onEvent: options.onEvent } : {}) },
  );
  let n = 0;

  async function act(step: string, name: string, args: unknown, decide: (r: ToolResult<unknown>, shown: string) => string) {
    const call: ModelToolCall = { id: `call_${++n}`, name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
    const request = toolRequestFromModelCall(call, runtime);
    const result = await runtime.execute(request);
    const spec = runtime.lookup(request.tool)?.spec;
    const shown = renderResult(result, { maxChars: 2000, ...(spec ? { spec } : {}) });
    const f = result.ok ? undefined : result.failure;
    const outcome = f
      ? { ok: false as const, kind: f.kind, action: f.recovery.action, ...(f.reason ? { reason: f.reason } : {}) }
      : { ok: true as const };
    const record: StepRecord = { step, call, outcome, shown, recovery: decide(result, shown) };
    steps.push(record);
    options.onStep?.(record);
    return { result, shown, record };
  }

  try {
    // Connect up front, so server start-up never counts against the tool timeout.
    for (const c of [memory, files, everything]) {
      const connected = await c.connect();
      if (!connected.ok) throw new Error(`cannot start ${c.server}: ${connected.failure.message}`);
    }
    pids = servers.pids();

    // 1. A hallucinated tool name: the runtime answers tool_unavailable with the closest names.
    const ada = { name: "Ada Lovelace", entityType: "person", observations: "wrote the first published program" };
    const first = await act("1. hallucinated tool name", "memory_create_entity", { entities: [ada] }, (r) =>
      r.ok ? "unexpected success" : `replan: use the closest tool, ${r.failure.suggestions?.[0]}`,
    );
    const chosen = first.result.ok ? "memory_create_entities" : (first.result.failure.suggestions?.[0] ?? "memory_create_entities");

    // 2. Arguments with a wrong type (observations must be an array), corrected from the rendered failure.
    const wrong = await act("2. wrong argument type", chosen, { entities: [ada] }, (r, shown) => {
      if (r.ok) return "unexpected success";
      return `correct_call: ${readTypeCorrections(shown)
        .map((c) => `make ${c.field} ${/^[aeiou]/.test(c.expected) ? "an" : "a"} ${c.expected}`)
        .join(", ")}`;
    });
    let fixed: unknown = { entities: [ada] };
    for (const c of readTypeCorrections(wrong.shown)) fixed = fixAt(fixed, c.field, c.expected);
    await act("2b. corrected call", chosen, fixed, (r) => (r.ok ? "continue" : "give up"));

    // 3. An out-of-root path: the server refuses with isError, a domain rejection; replan.
    await act("3. out-of-root path", "files_read_text_file", { path: "/etc/hostname" }, (r) =>
      r.ok ? "unexpected success" : "replan: ask which directories are allowed",
    );
    const dirs = await act("3b. list allowed directories", "files_list_allowed_directories", {}, (r) =>
      r.ok ? "read inside the allowed root" : "give up",
    );
    const allowed = dirs.shown.split("\n").find((line) => line.startsWith("/")) ?? root;
    await act("3c. read inside the root", "files_read_text_file", { path: join(allowed, NOTE.name) }, (r) =>
      r.ok ? "continue" : "give up",
    );

    // 4. A slow tool hits the tool timeout: retryable; retry with a much shorter job.
    await act("4. slow tool times out", "everything_trigger-long-running-operation", { duration: 30, steps: 3 }, (r) =>
      r.ok ? "unexpected success" : r.failure.retryable ? "retry with a shorter operation" : "replan",
    );
    await act("4b. retry, shorter", "everything_trigger-long-running-operation", { duration: 0.2, steps: 1 }, (r) =>
      r.ok ? "continue" : "give up",
    );

    // 4c. Two calls in parallel both fail; the strongest action wins (finish > correct_call > replan > retry).
    const parallel = await Promise.all([
      act("4c. parallel: search with a number", "memory_search_nodes", { query: 1815 }, () => "combined below"),
      act("4c. parallel: read outside the root", "files_read_text_file", { path: "/etc/passwd" }, () => "combined below"),
    ]);
    const combined = combineFailures(parallel.flatMap(({ result }) => (result.ok ? [] : [result.failure])));
    if (combined) {
      const record: StepRecord = {
        step: "4d. combine the parallel failures",
        call: { name: "(planner)", arguments: "{}" },
        outcome: { ok: false, kind: combined.failure.kind, action: combined.action },
        shown: combined.failures.map((f) => `${f.tool}: ${f.kind} / ${f.recovery.action}`).join("\n"),
        recovery: `${combined.action}: fix ${combined.failure.tool} first`,
      };
      steps.push(record);
      options.onStep?.(record);
    }
    await act("4e. corrected search", "memory_search_nodes", { query: "1815" }, (r) => (r.ok ? "continue" : "give up"));

    // 5. Keep searching until the run policy stops the run at maxToolCalls; then finish.
    for (let i = 0; i < 10; i++) {
      const { result } = await act(`5.${i + 1} search`, "memory_search_nodes", { query: "Ada" }, (r) =>
        r.ok ? "continue" : r.failure.recovery.action === "finish" ? "finish: answer the user with what we have" : "replan",
      );
      if (!result.ok && result.failure.recovery.action === "finish") break;
    }
    const usage = runtime.usage();
    return { steps, pids, usage: { toolCalls: usage.toolCalls, consecutiveFailures: usage.consecutiveFailures }, dirs: servers.dirs };
  } finally {
    await servers.close();
  }
}
