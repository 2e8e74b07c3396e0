/**
 * The seam code mode plugs into: the runtime only decides *whether* a model sees the catalogue's
 * tools directly or one `run_code` tool (plus `search`/`describe`), and hands the catalogue to a
 * plug-in that builds that surface. The sandbox, the type checker and the generated API live in
 * `@toolwright/code-mode`, loaded only by the application that passes it here, so the runtime stays
 * zero-dependency and a planner that never uses code mode never loads a wasm module.
 */
import type { ToolRunner } from "../../caller/tool-request.js";
import type { ToolSpec } from "../../caller/tool-spec.js";
import type { ResultBudgetOptions } from "../result-budget.js";

/** What `@toolwright/code-mode` (or any other code-mode implementation) provides. */
export interface CodeModePlugin {
  /**
   * A runner exposing the code-mode tools over `inner`. Every call a program makes must go through
   * `inner.execute`, so validation, the run policy, approvals and telemetry apply per call. `inner`
   * is read live, so a manager's registry may change between turns. `resultBudget` is the
   * binding's: the plug-in budgets what its own tools answer (a program's value), and `inner`'s
   * results, which stay in the sandbox, are not budgeted.
   */
  wrap(inner: ToolRunner, options?: { readonly resultBudget?: ResultBudgetOptions }): ToolRunner;
  /**
   * Tokens of `specs` as direct tool definitions, for `mode: "auto"` (the plug-in knows the token
   * counts computed at gen time). Absent: the binding estimates from the definitions' JSON text.
   */
  catalogueTokens?(specs: readonly ToolSpec[]): number;
}

/** When a model sees code mode instead of direct tools. */
export type CodeModeChoice = "code" | "direct" | "auto";

/** Options of the binding's `codeMode`. */
export interface CodeModeOptions {
  readonly plugin: CodeModePlugin;
  /**
   * `"code"`: always; `"direct"`: never (the plug-in stays unused); `"auto"` (default): code mode
   * when the catalogue's direct definitions take more than `threshold` of `contextWindow`.
   */
  readonly mode?: CodeModeChoice;
  /** The model's context window in tokens. Default 128,000. */
  readonly contextWindow?: number;
  /**
   * Share of the context window above which `"auto"` switches to code mode. Default 0.02: MCP's
   * client best practices suggest progressive discovery past 1–5% of the window, and a small
   * catalogue (a few tools, one-call tasks) stays well under it, so it is not slowed by a sandbox hop.
   */
  readonly threshold?: number;
}

/** Why `"auto"` chose what it chose: for logs, the demo and the bench. */
export interface CodeModeDecision {
  readonly code: boolean;
  readonly catalogueTokens: number;
  readonly contextWindow: number;
  readonly threshold: number;
}

const DEFAULT_WINDOW = 128_000;
const DEFAULT_THRESHOLD = 0.02;

/**
 * Estimated tokens of direct definitions when the plug-in gives no count: JSON text / 3.5. Only a
 * fallback (the real o200k counts come from the plug-in); JSON Schema tokenizes denser than prose,
 * so this errs towards code mode rather than towards flooding the context.
 */
function estimateTokens(specs: readonly ToolSpec[]): number {
  let chars = 0;
  for (const spec of specs) chars += spec.providerName.length + (spec.description ?? "").length + JSON.stringify(spec.inputSchema).length;
  return Math.ceil(chars / 3.5);
}

/** Decides code mode or direct tools for `specs`; throws a RangeError naming a bad option. */
export function decideCodeMode(specs: readonly ToolSpec[], options: CodeModeOptions): CodeModeDecision {
  const contextWindow = options.contextWindow ?? DEFAULT_WINDOW;
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  if (!Number.isFinite(contextWindow) || contextWindow <= 0)
    throw new RangeError(`codeMode.contextWindow must be a positive number of tokens, got ${String(contextWindow)}`);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw new RangeError(`codeMode.threshold must be a share between 0 and 1, got ${String(threshold)}`);
  const mode = options.mode ?? "auto";
  if (mode !== "auto" && mode !== "code" && mode !== "direct")
    throw new RangeError(`codeMode.mode must be "auto", "code" or "direct", got ${JSON.stringify(mode)}`);
  const catalogueTokens = options.plugin.catalogueTokens?.(specs) ?? estimateTokens(specs);
  const code = mode === "code" || (mode === "auto" && catalogueTokens > threshold * contextWindow);
  return { code, catalogueTokens, contextWindow, threshold };
}
