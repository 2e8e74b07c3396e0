/**
 * A durable agent that runs one code-mode program (its input) over its runtime: every host call of
 * the program goes through the durable run, so it is checked against the journal and checkpointed.
 * Used by test/durable/code-mode.test.ts through the worker (TW_CODE_AGENT=1).
 */
import { createCodeMode } from "@toolwright/code-mode";
import { defineDurableAgent } from "@toolwright/dbos";
import type { Runtime } from "@toolwright/runtime";

/** What the code agent returns: the program's value, or its failure (kind, reason, message). */
export type CodeAgentResult =
  | { readonly ok: true; readonly value: unknown; readonly calls: number }
  | { readonly ok: false; readonly kind: string; readonly reason?: string; readonly message: string; readonly calls: number };

/** Defines `code-agent` on this worker: input `{ program }`, approvals as durable waits. */
export function defineCodeAgent(runtime: Runtime, onApprovalRequest: (request: { runId: string; call: number }) => void): void {
  const mode = createCodeMode({ runtime });
  defineDurableAgent<{ readonly program: string }, CodeAgentResult>({
    name: "code-agent",
    runtime,
    retry: { baseDelayMs: 50 },
    confirmation: { timeoutMs: 120_000, onRequest: onApprovalRequest },
    async run(run, input) {
      // The wall-time limit is the program's own: an approval wait must fit in it.
      const result = await mode.run(input.program, { durable: run, limits: { wallTimeMs: 150_000 } });
      if (result.ok) return { ok: true, value: result.value, calls: result.calls.length };
      const { kind, reason, message } = result.failure;
      return { ok: false, kind, message, calls: result.calls.length, ...(reason ? { reason } : {}) };
    },
  });
}
