/**
 * Faults inside a tool server's handlers: the server itself answers the fault, with its own code
 * paths (an `RpcHandlerError` becomes its JSON-RPC error, `ctx.input` becomes a real elicitation
 * request or `input_required` round, a hang waits on the call's own abort signal). Use it where a
 * server is built from `ServerTool`s (a generated mock, a scaffold); `withFaults` covers any host.
 */
import { RpcHandlerError } from "@toolwright/runtime/protocol";
import type { ToolContext, ToolHandlerResult } from "@toolwright/runtime/server";
import { BROKEN_OUTPUT, FAULT_INPUT_KEY } from "./host.js";
import { createFaultSchedule, type Fault, type FaultPlan, type FaultSchedule } from "./plan.js";

/** Options for `withToolFaults`. */
export interface ToolFaultOptions {
  /** What a `crash` does: e.g. `() => process.exit(70)` in a stdio server. Required when the plan has a crash. */
  readonly onCrash?: () => void;
}

/** Tools with faults in their handlers, and the schedule that says what fired. */
export interface FaultyTools<T> {
  readonly tools: T[];
  readonly faults: FaultSchedule;
}

/** What `withToolFaults` needs of a tool: its name and handler (a `ServerTool` of any argument type fits). */
export interface FaultableTool {
  readonly name: string;
  // biome-ignore lint/suspicious/noExplicitAny: any ServerTool's handler, whatever its argument type.
  readonly handler: (args: any, ctx: ToolContext) => ToolHandlerResult | Promise<ToolHandlerResult>;
}

const HOST_OR_HTTP: ReadonlySet<string> = new Set(["session-404", "unauthorized", "http-status", "list-changed"]);

/**
 * Wraps each tool's handler so the calls `plan` names misbehave inside the server. HTTP faults
 * and `list-changed` (a catalogue change, not a handler's) are refused with a `TypeError`, as is
 * a `crash` without `onCrash` (a handler cannot close its session).
 */
export function withToolFaults<T extends FaultableTool>(
  tools: readonly T[],
  plan: FaultPlan,
  options: ToolFaultOptions = {},
): FaultyTools<T> {
  const schedule = createFaultSchedule(plan);
  const refused = plan.find((rule) => HOST_OR_HTTP.has(rule.fault.kind) || (rule.fault.kind === "crash" && !options.onCrash));
  if (refused) {
    throw new TypeError(
      `withToolFaults: fault "${refused.fault.kind}" (tool ${refused.tool}) cannot run in a handler: use withFaults or startFaultProxy`,
    );
  }
  const wrapped = tools.map((tool) => {
    const run = tool.handler as (args: unknown, ctx: ToolContext) => ToolHandlerResult | Promise<ToolHandlerResult>;
    const handler = async (args: unknown, ctx: ToolContext): Promise<ToolHandlerResult> => {
      const hit = schedule.next(tool.name);
      if (!hit) return run(args, ctx);
      return inHandler(hit.fault, tool.name, () => run(args, ctx), ctx, options);
    };
    return { ...tool, handler } as T;
  });
  return { tools: wrapped, faults: schedule };
}

async function inHandler(
  fault: Fault,
  tool: string,
  run: () => ToolHandlerResult | Promise<ToolHandlerResult>,
  ctx: ToolContext,
  options: ToolFaultOptions,
): Promise<ToolHandlerResult> {
  switch (fault.kind) {
    case "latency":
      await untilAborted(ctx.signal, fault.ms);
      if (ctx.signal.aborted) throw new RpcHandlerError(-32800, "request cancelled");
      return run();
    case "is-error":
      return { content: [{ type: "text", text: fault.text ?? `injected tool error (${tool})` }], isError: true };
    case "bad-output": {
      const result = (await run()) as { [key: string]: unknown };
      return { ...result, structuredContent: fault.structuredContent ?? BROKEN_OUTPUT } as ToolHandlerResult;
    }
    case "rpc-error":
      throw new RpcHandlerError(fault.code, fault.message ?? `injected error ${fault.code}`, fault.data);
    case "crash":
      options.onCrash?.();
      // Only reached when onCrash returned (a test's spy): the call must not look answered.
      return untilAborted(ctx.signal).then(run);
    case "hang":
      await untilAborted(ctx.signal);
      throw new RpcHandlerError(-32800, "request cancelled");
    case "input-required": {
      const message = fault.message ?? `the server needs input to run ${tool}`;
      await ctx.input(FAULT_INPUT_KEY, "elicitation/create", {
        mode: "form",
        message,
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      });
      return run();
    }
    default:
      throw new TypeError(`withToolFaults: fault "${fault.kind}" cannot run in a handler`);
  }
}

/** Resolves after `ms` (never when absent), or when `signal` aborts: no timer outlives the call. */
function untilAborted(signal: AbortSignal, ms?: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    function done() {
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
