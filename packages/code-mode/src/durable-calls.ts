/**
 * Code mode on a durable run: the program is re-run from the start after a crash or an approval
 * pause, so its calls must come out in the same order with the same arguments. Each call first
 * records (or, on a re-run, reads back) which tool and arguments it is, then goes through the run's
 * `execute`, whose checkpointed steps answer a completed call from the journal instead of sending
 * it again. Calls are issued one at a time in program order: an engine numbers steps by the order
 * they start, which parallel calls would make depend on timing.
 */
import type { ToolResult } from "@toolwright/runtime";
import type { DurableRun } from "@toolwright/runtime/durable";

/** What code mode needs from a durable run (a `DurableRun` fits). */
export type DurableCalls = Pick<DurableRun, "execute" | "step">;

/** A journaled call: its result, or `stop` when the program diverged from the journal. */
export type JournaledCall = (
  request: { tool: string; arguments: unknown },
  signal: AbortSignal,
) => Promise<ToolResult<unknown> | { stop: string }>;

const MAX_SHOWN = 300;
const shown = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

/** Routes a program's calls through `run`, checked against the journal. */
export function journaled(run: DurableCalls): JournaledCall {
  let chain: Promise<unknown> = Promise.resolve();
  let next = 0;
  return (request, signal) => {
    const index = next++;
    const turn = chain.then(async () => {
      const now = { tool: request.tool, arguments: JSON.stringify(request.arguments) ?? "null" };
      const journal = await run.step(`code-mode call ${index}`, async () => now);
      if (journal.tool !== now.tool || journal.arguments !== now.arguments)
        return {
          stop:
            `the program diverged from its journal at call ${index}: the journal has ${journal.tool} ${shown(journal.arguments)}, ` +
            `the re-run asked for ${now.tool} ${shown(now.arguments)}. A durable program must make the same calls in the same ` +
            "order on every run (no Date.now() or Math.random() deciding which tools to call)",
        };
      return run.execute({ tool: request.tool, arguments: request.arguments }, { signal });
    });
    chain = turn.catch(() => undefined);
    return turn;
  };
}
