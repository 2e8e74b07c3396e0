/**
 * Result budgets for code mode: a program's final value and console output go to the model through
 * the runtime's `budgetResult`, so an answer over its budget is projected (an object's short fields
 * kept) or its first page shown, the whole answer held under a handle, and the text says what was
 * left out and how to read the rest with `read_result` (the runtime's `READ_RESULT_SPEC`). Never a
 * silent cut. The calls a program makes are not budgeted: their results stay in the sandbox.
 */
import type { ToolResult, ToolSpec } from "@toolwright/runtime";
import {
  budgetResult,
  createResultStore,
  READ_RESULT_SPEC,
  type ResultBudgetOptions,
  type ResultStore,
  readResultPage,
  type Truncation,
} from "@toolwright/runtime/providers";

/** Tokens a program's answer may put in the context, by default. */
export const DEFAULT_ANSWER_TOKENS = 1_800;

/** Room for the page trailer `readResultPage` appends (handle, range, next call). */
const PAGE_TRAILER_CHARS = 200;

const estimate = (text: string) => Math.ceil(text.length / 4);

/** The answer budget of one code-mode surface: shared store, so `read_result` reads what `run_code` held. */
export interface AnswerBudget {
  readonly spec: ToolSpec;
  /** The program's answer as the model gets it: whole, or projected / first page with the notice. */
  answer(result: ToolResult<unknown> & { readonly ok: true }, owner?: string): ToolResult<unknown>;
  /** A page of a held answer, within the same per-answer budget. */
  read(args: { readonly handle: string; readonly offset: number; readonly limit: number }, owner?: string): ToolResult<unknown>;
  /** Every truncation so far. */
  truncations(): readonly Truncation[];
}

function text(value: string): ToolResult<unknown> {
  return { ok: true, value, content: [{ type: "text", text: value }], structured: undefined };
}

/** Creates the answer budget from the binding's `resultBudget` (its `toolTokens`, counter, store and account). */
export function createAnswerBudget(options: ResultBudgetOptions & { readonly maxChars?: number } = {}): AnswerBudget {
  const store: ResultStore = options.store ?? createResultStore();
  const count = options.countTokens ?? estimate;
  const budgetTokens =
    options.perTool?.["toolwright.run_code"] ??
    options.perTool?.run_code ??
    options.toolTokens ??
    (options.maxChars === undefined ? DEFAULT_ANSWER_TOKENS : Math.floor(options.maxChars / 4));
  const truncations: Truncation[] = [];
  return {
    spec: READ_RESULT_SPEC,
    answer(result, owner) {
      // A structured value (no console lines) may be projected: its declared type is unknown, so
      // the projection keeps short fields and leaves out long text and long lists of scalars.
      const projectable = typeof result.structured === "object" && result.structured !== null;
      const spec = projectable ? { ...READ_RESULT_SPEC, outputSchema: { type: "object" } } : undefined;
      const out = budgetResult(result, {
        budgetTokens,
        store,
        countTokens: count,
        ...(spec ? { spec } : {}),
        ...(owner !== undefined ? { owner } : {}),
      });
      options.account?.recordResult(out.tokens, out.truncation?.totalTokens ?? out.tokens);
      if (!out.truncation) return result;
      truncations.push(out.truncation);
      return text(out.text);
    },
    read({ handle, offset, limit }, owner) {
      // A page never exceeds the answer budget itself (shrunk until its count fits; bounded).
      let max = Math.max(1, Math.min(limit, budgetTokens * 4 - PAGE_TRAILER_CHARS));
      let page = readResultPage(store, handle, offset, max, owner);
      for (let i = 0; i < 8 && count(page) > budgetTokens && max > 1; i++) {
        max = Math.max(1, Math.floor(max * 0.7));
        page = readResultPage(store, handle, offset, max, owner);
      }
      const tokens = count(page);
      options.account?.recordResult(tokens, tokens);
      return text(page);
    },
    truncations: () => truncations,
  };
}
