/**
 * Section 12: definition tokens per turn at 50, 500 and 2,000 tools (issue 28), counted with the
 * one tokenizer (o200k_base, packages/codegen/src/tokens/count.ts). Catalogues are built from the
 * real tools of examples/catalogues/design.lock.json (server-everything, -filesystem, -memory),
 * cycled under distinct names. Per turn:
 * - all tools: every definition, as the adapter sends it;
 * - provider-native deferred (Anthropic, OpenAI Responses): what enters the context in a turn that
 *   finds and calls one tool: the search tool (and OpenAI's namespace headers) plus the five tools
 *   the search loads (Anthropic's tool search returns 3-5 references; five is the worse case);
 * - local search (Chat Completions, Gemini): the three meta tools, one `search_tools` answer (8
 *   hits) and one `describe_tool` answer.
 * Token counts are deterministic: one value per row, no repetitions.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { countTokens } from "../../packages/codegen/src/tokens/count.ts";
import type { ToolSpec } from "../../packages/runtime/src/index.ts";
import { createDiscoveryTools, createProviderTools, rankTools, type ToolRunner } from "../../packages/runtime/src/providers.ts";
import { makeRow, type Row } from "../lib/stats.ts";

const LOCK = fileURLToPath(new URL("../../examples/catalogues/design.lock.json", import.meta.url));
/** Catalogue sizes measured. */
export const TOKEN_SIZES = [50, 500, 2000] as const;
const QUERY = "read the contents of a text file";
const LOADED = 5;

interface LockTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: { readonly [key: string]: unknown };
  readonly annotations?: { readonly readOnlyHint?: boolean; readonly destructiveHint?: boolean; readonly idempotentHint?: boolean };
}

function realTools(): LockTool[] {
  const lock = JSON.parse(readFileSync(LOCK, "utf8")) as { servers: { [name: string]: { tools: LockTool[] } } };
  return ["everything", "filesystem", "memory"].flatMap((s) => lock.servers[s]?.tools ?? []);
}

/** `n` specs cycling the real tools, ten toolsets, unique names. */
export function catalogue(n: number): ToolSpec[] {
  const tools = realTools();
  return Array.from({ length: n }, (_, i) => {
    const t = tools[i % tools.length] as LockTool;
    const toolset = `s${i % 10}`;
    const name = `${t.name}_${i}`.replace(/-/g, "_");
    return {
      id: `${toolset}.${name}`,
      toolset,
      name,
      providerName: `${toolset}_${name}`.slice(0, 64),
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.inputSchema,
      annotations: {
        ...(t.annotations?.readOnlyHint ? { readOnly: true } : {}),
        ...(t.annotations?.destructiveHint ? { destructive: true } : {}),
      },
      decodePayload: (value: unknown) => ({ ok: true as const, value }),
    };
  });
}

function runnerOf(specs: readonly ToolSpec[]): ToolRunner {
  const byName = new Map(specs.flatMap((s) => [[s.id, s] as const, [s.providerName, s] as const]));
  return {
    specs: () => specs,
    lookup: (name) => {
      const spec = byName.get(name);
      return spec ? { spec, caller: { server: spec.toolset } } : undefined;
    },
    execute: () => Promise.reject(new Error("the token bench runs no tools")),
  };
}

const tokensOf = (value: unknown) => countTokens(JSON.stringify(value));

/** The three per-turn counts for one catalogue size. */
export async function tokensPerTurn(n: number): Promise<{ [measure: string]: number }> {
  const specs = catalogue(n);
  const runner = runnerOf(specs);
  const all = (format: "anthropic" | "openai-responses" | "openai-chat") =>
    tokensOf(createProviderTools(runner, { format, toolSearch: false, maxTools: 1_000_000 }).definitions());
  const loadedNames = new Set(rankTools(QUERY, specs, LOADED).map((s) => s.providerName));
  // Deferred loading forced on (threshold at its smallest) so every size is measured the same way.
  const deferred = (format: "anthropic" | "openai-responses") => {
    const defs = createDiscoveryTools(runner, { format, contextWindow: 1, threshold: 1, countTokens: () => 2 }).definitions() as {
      [key: string]: unknown;
    }[];
    const [search, ...rest] = defs;
    let loaded = 0;
    let headers = 0;
    for (const d of rest) {
      if (d.type === "namespace") {
        // The namespace header is in context; its functions only once tool search loads them.
        const { tools, ...header } = d as { tools: { name: string }[] };
        headers += tokensOf(header);
        loaded += tools.filter((t) => loadedNames.has(t.name)).reduce((sum, t) => sum + tokensOf(t), 0);
      } else if (loadedNames.has(String(d.name))) loaded += tokensOf(d);
    }
    return tokensOf([search]) + headers + loaded;
  };
  const local = createProviderTools(runner, { format: "openai-chat", toolSearch: true });
  const meta = tokensOf(local.definitions());
  const found = await local.runCall({ id: "1", name: "search_tools", arguments: JSON.stringify({ query: QUERY }) });
  const first = [...loadedNames][0] ?? "";
  const described = await local.runCall({ id: "2", name: "describe_tool", arguments: JSON.stringify({ name: first }) });
  return {
    "anthropic all": all("anthropic"),
    "anthropic deferred": deferred("anthropic"),
    "openai-responses all": all("openai-responses"),
    "openai-responses deferred": deferred("openai-responses"),
    "openai-chat all": all("openai-chat"),
    "openai-chat local": meta + countTokens(found.text) + countTokens(described.text),
  };
}

/** Runs the section. */
export async function measureTokens(log: (line: string) => void): Promise<{ rows: Row[]; notes: string[] }> {
  const rows: Row[] = [];
  for (const n of TOKEN_SIZES) {
    const t = await tokensPerTurn(n);
    const measure = `definition tokens per turn, ${n} tools`;
    const base = { section: "tokens", measure, unit: "tokens", better: "lower" as const };
    for (const [server, mode, label] of [
      ["anthropic", "deferred", "provider-native deferred"],
      ["openai-responses", "deferred", "provider-native deferred"],
      ["openai-chat", "local", "local search"],
    ] as const) {
      rows.push(makeRow({ ...base, server, client: "raw", label: "all tools loaded", values: [t[`${server} all`] ?? Number.NaN] }));
      rows.push(makeRow({ ...base, server, client: "toolwright", label, values: [t[`${server} ${mode}`] ?? Number.NaN] }));
    }
    log(`  tokens: ${n} tools done`);
  }
  return {
    rows,
    notes: [
      `Token rows: o200k_base tokens of what enters the context in one turn that finds and calls one tool (query ${JSON.stringify(QUERY)}); deferred = search tool (+ namespace headers) + the ${LOADED} tools it loads; local = 3 meta tools + one search_tools and one describe_tool answer. "vs floor" is the ratio to all tools loaded.`,
    ],
  };
}
