/**
 * Result budgets: a per-tool and a per-turn token budget for what tool results put in a model's
 * context. An oversize result is never silently cut. When the tool declares a result type it is
 * first projected (required and scalar fields kept, long text and nested lists left out, long
 * lists shortened); the whole result is always held under a handle the model pages through with
 * `read_result(handle, offset, limit)`; and the text says what was left out and how to read it.
 * Used up turn budgets are a marked truncation (the result is held, nothing of it is shown), never
 * an exception.
 *
 * `createResultBudget(runner)` wraps any `ToolRunner` (the runtime, the manager's registry, a
 * discovery adapter's catalogue), so provider adapters get it for free. `budgetResult` and
 * `readResultPage` are the seam for code mode: the same decision for a result a sandbox returns.
 */
import type { CallOptions } from "../caller/caller.js";
import type { ToolRequest, ToolRunner } from "../caller/tool-request.js";
import type { ToolResult, ToolSpec } from "../caller/tool-spec.js";
import type { Decoded } from "../schema/codec.js";
import { renderResult } from "./render.js";
import type { TokenAccount } from "./token-account.js";

/**
 * Where spilled results are held. The default keeps the most recent ones in memory. `owner` is the
 * principal id a result was held for: a store hands a result back only to the same owner, so a
 * `read_result` handle of one user reads nothing for another, even when both share one store.
 */
export interface ResultStore {
  /** Holds `text` for `owner` (undefined: no principal), returns its handle. */
  put(text: string, owner?: string): string;
  /** The text held as `handle`, only when it was held for the same `owner`. */
  get(handle: string, owner?: string): string | undefined;
}

/** An in-memory store of at most `maxEntries` results (oldest dropped first). */
export function createResultStore(maxEntries = 32): ResultStore {
  const held = new Map<string, { readonly text: string; readonly owner: string | undefined }>();
  let next = 1;
  return {
    put(text, owner) {
      const handle = `res_${next++}`;
      held.set(handle, { text, owner });
      while (held.size > maxEntries) held.delete(held.keys().next().value as string);
      return handle;
    },
    // Another owner's handle answers exactly like a dropped one: nothing says it exists.
    get: (handle, owner) => {
      const entry = held.get(handle);
      return entry !== undefined && entry.owner === owner ? entry.text : undefined;
    },
  };
}

/** Options of `createResultBudget` and `budgetResult`. */
export interface ResultBudgetOptions {
  /** Tokens one result may put in the context (default 4,000). */
  readonly toolTokens?: number;
  /** Per tool (id or provider name), overriding `toolTokens`. */
  readonly perTool?: { readonly [tool: string]: number };
  /** Tokens all results of one turn may put in the context (default 20,000). `startTurn()` starts a turn. */
  readonly turnTokens?: number;
  /** Token counter (default: characters / 4; pass a real tokenizer for exact budgets). */
  readonly countTokens?: (text: string) => number;
  readonly store?: ResultStore;
  /** Records each result's tokens (returned vs. whole) for the run's attribution. */
  readonly account?: TokenAccount;
}

/** What a budget left out of one result. */
export interface Truncation {
  readonly handle: string;
  readonly totalChars: number;
  readonly totalTokens: number;
  /** Characters of the full text shown (0 when projected or when the turn budget was used up). */
  readonly shownChars: number;
  /** Fields the projection left out or shortened. */
  readonly leftOut: readonly string[];
  readonly why: "tool_budget" | "turn_budget";
}

/** One budgeted result: the text for the model, its tokens, and the truncation when it was over. */
export interface BudgetedText {
  readonly text: string;
  readonly tokens: number;
  readonly truncation?: Truncation;
}

const estimate = (text: string) => Math.ceil(text.length / 4);
/** Room kept for the notice that says what was left out. */
const NOTICE_TOKENS = 160;

type Json = { readonly [key: string]: unknown };
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

/**
 * The result's shape without its bulk, guided by its declared type: required fields and short
 * scalars stay, long strings and lists of scalars go, lists of objects keep their items' projection.
 * Returns the value and the paths left out (`entities[].observations`).
 */
function project(value: unknown, schema: Json | undefined, path: string, leftOut: Set<string>): unknown {
  if (Array.isArray(value)) {
    const items = isObject(schema?.items) ? (schema.items as Json) : undefined;
    if (value.every(isScalar) && JSON.stringify(value).length > 200) {
      leftOut.add(path || "(items)");
      return undefined;
    }
    return value.map((v) => project(v, items, `${path}[]`, leftOut));
  }
  if (!isObject(value)) {
    if (typeof value === "string" && value.length > 200) {
      leftOut.add(path || "(text)");
      return undefined;
    }
    return value;
  }
  const props = isObject(schema?.properties) ? (schema.properties as Json) : {};
  const out: { [key: string]: unknown } = {};
  for (const key of Object.keys(value)) {
    const child = project(value[key], isObject(props[key]) ? (props[key] as Json) : undefined, path ? `${path}.${key}` : key, leftOut);
    if (child !== undefined) out[key] = child;
  }
  return out;
}

/** Shortens the longest top-level lists of a projection until its JSON fits `maxChars`. Bounded: one pass per list. */
function shorten(value: unknown, maxChars: number, leftOut: Set<string>): unknown {
  if (!isObject(value)) return value;
  const out: { [key: string]: unknown } = { ...value };
  const lists = Object.keys(out)
    .filter((k) => Array.isArray(out[k]))
    .sort((a, b) => JSON.stringify(out[b]).length - JSON.stringify(out[a]).length);
  for (const key of lists) {
    if (JSON.stringify(out).length <= maxChars) break;
    const list = out[key] as unknown[];
    const others = JSON.stringify({ ...out, [key]: [] }).length;
    let kept = 0;
    let size = 0;
    while (kept < list.length && others + size + JSON.stringify(list[kept]).length + 1 <= maxChars)
      size += JSON.stringify(list[kept++]).length + 1;
    out[key] = list.slice(0, kept);
    leftOut.add(`${key}: ${kept} of ${list.length} items shown`);
  }
  return out;
}

function notice(t: Truncation, budget: number): string {
  const what =
    t.why === "turn_budget"
      ? `This turn's result budget is used up, so none of this result (${t.totalTokens} tokens) is shown.`
      : `This result is ${t.totalTokens} tokens (${t.totalChars} characters), over its ${budget}-token budget.`;
  const shown =
    t.leftOut.length > 0
      ? ` Shown: a projection; left out: ${t.leftOut.join("; ")}.`
      : t.shownChars > 0
        ? ` Shown: characters 0-${t.shownChars}.`
        : "";
  const offset = t.leftOut.length > 0 ? 0 : t.shownChars;
  return `[${what}${shown} The full result is held as ${t.handle}: call read_result {"handle":"${t.handle}","offset":${offset},"limit":8000} to read it page by page.]`;
}

/** Texts longer than this are counted from a sample: tokenizing megabytes costs seconds, and the budget only needs the order of size. */
const EXACT_COUNT_CHARS = 200_000;

function totalTokens(text: string, count: (text: string) => number): number {
  if (text.length <= EXACT_COUNT_CHARS) return count(text);
  const sample = text.slice(0, EXACT_COUNT_CHARS / 2) + text.slice(-EXACT_COUNT_CHARS / 2);
  return Math.ceil((count(sample) / sample.length) * text.length);
}

/**
 * Fits one result into `budgetTokens`: as is, projected with the spec's result type, or as the
 * first page of its text; the whole text is held in `store` and the text names its handle.
 */
export function budgetResult(
  result: ToolResult<unknown>,
  options: {
    readonly budgetTokens: number;
    readonly spec?: ToolSpec;
    readonly store: ResultStore;
    readonly countTokens?: (text: string) => number;
    readonly why?: Truncation["why"];
    /** The principal id the result is held for (see `ResultStore`). */
    readonly owner?: string;
  },
): BudgetedText {
  const count = options.countTokens ?? estimate;
  const full = renderResult(result, { maxChars: 0 });
  const tokens = totalTokens(full, count);
  if (tokens <= options.budgetTokens && options.why !== "turn_budget") return { text: full, tokens };
  const handle = options.store.put(full, options.owner);
  const room = Math.max(0, options.budgetTokens - NOTICE_TOKENS);
  const charsPerToken = full.length / Math.max(1, tokens);
  const base = { handle, totalChars: full.length, totalTokens: tokens, why: options.why ?? "tool_budget" } as const;
  let body = "";
  const leftOut = new Set<string>();
  if (room > 0 && result.ok && result.structured !== undefined && options.spec?.outputSchema) {
    const projected = shorten(
      project(result.structured, options.spec.outputSchema, "", leftOut),
      Math.floor(room * charsPerToken),
      leftOut,
    );
    // A structured value that is one long string projects to nothing (undefined, no JSON at all).
    body = JSON.stringify(projected) ?? "";
    // A projection that keeps nothing (a result that is one long text) says less than its first page.
    if (body.length <= 2) body = "";
  }
  let shownChars = 0;
  if (body === "" && room > 0) {
    leftOut.clear();
    shownChars = Math.floor(room * charsPerToken);
    // The ratio is the whole text's; a denser first page is shrunk until it fits (bounded: 8 steps).
    for (let i = 0; i < 8 && shownChars > 0 && count(full.slice(0, shownChars)) > room; i++) shownChars = Math.floor(shownChars * 0.8);
    body = full.slice(0, shownChars);
  }
  const truncation: Truncation = { ...base, shownChars, leftOut: [...leftOut] };
  const text = `${body}${body === "" ? "" : "\n"}${notice(truncation, options.budgetTokens)}`;
  return { text, tokens: count(text), truncation };
}

/** One page of a held result: characters `offset` to `offset + limit`, and where the next page starts. */
export function readResultPage(store: ResultStore, handle: string, offset: number, limit: number, owner?: string): string {
  const full = store.get(handle, owner);
  if (full === undefined) return `No result is held as ${JSON.stringify(handle)} (it may have been dropped; run the tool again).`;
  const start = Math.min(Math.max(0, Math.floor(offset)), full.length);
  const end = Math.min(full.length, start + Math.max(1, Math.floor(limit)));
  const next = end < full.length ? ` Next: read_result {"handle":"${handle}","offset":${end},"limit":${end - start}}.` : " End of result.";
  return `${full.slice(start, end)}\n[${handle}: characters ${start}-${end} of ${full.length}.${next}]`;
}

/** The `read_result` tool a budgeted runner adds to the catalogue. */
export const READ_RESULT_SPEC: ToolSpec = {
  id: "toolwright.read_result",
  toolset: "toolwright",
  name: "read_result",
  providerName: "read_result",
  description:
    "Read a page of a tool result that was too large to show whole. Pass the handle from the notice, the character offset and how many characters to read.",
  inputSchema: {
    type: "object",
    properties: {
      handle: { type: "string", description: "The handle from the notice, e.g. res_1" },
      offset: { type: "integer", minimum: 0, description: "First character to read" },
      limit: { type: "integer", minimum: 1, description: "How many characters to read" },
    },
    required: ["handle", "offset", "limit"],
    additionalProperties: false,
  },
  annotations: { readOnly: true, idempotent: true },
  exampleJson: '{"handle":"res_1","offset":0,"limit":8000}',
  decodePayload: (value: unknown): Decoded<unknown> => {
    const v = value as { handle?: unknown; offset?: unknown; limit?: unknown } | null;
    const issues = [];
    if (typeof v?.handle !== "string") issues.push({ field: "handle", constraint: "invalid_field_type" as const, expected: "string" });
    if (!Number.isInteger(v?.offset) || (v?.offset as number) < 0)
      issues.push({ field: "offset", constraint: "invalid_range" as const, expected: "integer >= 0" });
    if (!Number.isInteger(v?.limit) || (v?.limit as number) < 1)
      issues.push({ field: "limit", constraint: "invalid_range" as const, expected: "integer >= 1" });
    return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
  },
};

/** A runner with result budgets. */
export interface BudgetedRunner extends ToolRunner {
  /** Starts a new turn: the turn budget is whole again. */
  startTurn(): void;
  /** Tokens results have put in the context this turn. */
  turnTokens(): number;
  /** Every truncation so far (for the run's token attribution). */
  truncations(): readonly Truncation[];
}

function textResult(text: string): ToolResult<unknown> {
  return { ok: true, value: text, content: [{ type: "text", text }], structured: undefined };
}

/** Wraps `inner` so every result fits the per-tool and per-turn budgets, and adds `read_result`. */
export function createResultBudget(inner: ToolRunner, options: ResultBudgetOptions = {}): BudgetedRunner {
  const toolTokens = options.toolTokens ?? 4_000;
  const turnBudget = options.turnTokens ?? 20_000;
  const count = options.countTokens ?? estimate;
  const store = options.store ?? createResultStore();
  let used = 0;
  const truncations: Truncation[] = [];
  const isRead = (tool: string) => tool === READ_RESULT_SPEC.id || tool === READ_RESULT_SPEC.providerName;

  async function execute(request: ToolRequest, callOptions?: CallOptions): Promise<ToolResult<unknown>> {
    const left = turnBudget - used;
    // Whose results these are: held results are handed back to the same principal only.
    const owner = (callOptions?.principal ?? inner.principal)?.id;
    if (isRead(request.tool) && !request.rejection) {
      const a = request.arguments as { handle: string; offset: number; limit: number };
      // A page is clamped to what this turn has left, so paging never overruns the turn either.
      const maxChars = Math.max(0, (Math.min(left, toolTokens) - NOTICE_TOKENS) * 3);
      if (maxChars < 300) {
        const text = `[This turn's result budget is used up; call read_result {"handle":"${a.handle}","offset":${a.offset},"limit":${a.limit}} again next turn.]`;
        used += count(text);
        return textResult(text);
      }
      let text = readResultPage(store, a.handle, a.offset, Math.min(a.limit, maxChars), owner);
      for (let i = 0; i < 8 && count(text) > Math.min(left, toolTokens) && a.limit > 1; i++)
        text = readResultPage(store, a.handle, a.offset, Math.floor((text.length - 200) * 0.7), owner);
      const tokens = count(text);
      used += tokens;
      options.account?.recordResult(tokens, tokens);
      return textResult(text);
    }
    const result = await inner.execute(request, callOptions);
    if (!result.ok) return result;
    const spec = inner.lookup(request.tool)?.spec;
    const perTool = spec ? (options.perTool?.[spec.id] ?? options.perTool?.[spec.providerName]) : undefined;
    const budget = Math.min(perTool ?? toolTokens, left);
    const out = budgetResult(result, {
      ...(owner !== undefined ? { owner } : {}),
      budgetTokens: Math.max(0, budget),
      ...(spec ? { spec } : {}),
      store,
      countTokens: count,
      ...(left <= NOTICE_TOKENS ? { why: "turn_budget" as const } : {}),
    });
    used += out.tokens;
    options.account?.recordResult(out.tokens, out.truncation?.totalTokens ?? out.tokens);
    if (!out.truncation) return result;
    truncations.push(out.truncation);
    return textResult(out.text);
  }

  return {
    ...(inner.principal ? { principal: inner.principal } : {}),
    specs: () => [...inner.specs(), READ_RESULT_SPEC],
    lookup: (tool) => (isRead(tool) ? { spec: READ_RESULT_SPEC, caller: { server: "toolwright" } } : inner.lookup(tool)),
    execute,
    startTurn: () => {
      used = 0;
    },
    turnTokens: () => used,
    truncations: () => truncations,
  };
}
