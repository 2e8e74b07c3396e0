/**
 * The planner's "handle" mode for task-augmented calls: `caller.startToolTask(request)` answers at
 * once with a `ToolTask` to poll, await or cancel later; every answer is a value, failures mapped
 * like any call's.
 */

import type { ToolFailure } from "../failure/failure.js";
import type { WireFault } from "../failure/wire-fault.js";
import type { TaskHandle } from "../protocol/task-call.js";
import type { ToolTask } from "./caller.js";

/** Wraps a protocol task handle; `fail` maps a fault the way the caller maps every fault. */
export function toolTask(handle: TaskHandle, fail: (fault: WireFault) => { readonly ok: false; readonly failure: ToolFailure }): ToolTask {
  return {
    taskId: handle.taskId,
    async status() {
      const s = await handle.status();
      return s.ok ? { ok: true, value: s.value } : fail(s.fault);
    },
    async result() {
      const r = await handle.result();
      return r.ok ? { ok: true, value: r.value } : fail(r.fault);
    },
    async cancel() {
      const c = await handle.cancel();
      return c.ok ? { ok: true, value: undefined } : fail(c.fault);
    },
  };
}
