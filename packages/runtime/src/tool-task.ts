/**
 * The planner's "handle" mode for task-augmented calls: `caller.startToolTask(request)` answers at
 * once with a `ToolTask` to poll, await or cancel later; every answer is a value, failures mapped
 * like any call's.
 */
import type { CallResponse } from "./caller.js";
import type { ToolFailure } from "./failure.js";
import type { TaskHandle, TaskStatus } from "./protocol/task-call.js";
import type { WireFault } from "./protocol/wire-fault.js";

/** A started task-augmented call. */
export interface ToolTask {
  /** The task id; undefined when the server answered at once (then `result()` is that answer). */
  readonly taskId: string | undefined;
  status(): Promise<{ readonly ok: true; readonly status: TaskStatus } | { readonly ok: false; readonly failure: ToolFailure }>;
  /** Follows the task to its end: the tool's result, or a failure. */
  result(): Promise<CallResponse>;
  cancel(): Promise<{ readonly ok: true } | { readonly ok: false; readonly failure: ToolFailure }>;
}

/** Wraps a protocol task handle; `fail` maps a fault the way the caller maps every fault. */
export function toolTask(handle: TaskHandle, fail: (fault: WireFault) => { readonly ok: false; readonly failure: ToolFailure }): ToolTask {
  return {
    taskId: handle.taskId,
    async status() {
      const s = await handle.status();
      return s.ok ? { ok: true, status: s.value } : fail(s.fault);
    },
    async result() {
      const r = await handle.result();
      return r.ok ? { ok: true, result: r.value } : fail(r.fault);
    },
    async cancel() {
      const c = await handle.cancel();
      return c.ok ? { ok: true } : fail(c.fault);
    },
  };
}
