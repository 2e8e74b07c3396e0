/**
 * The pool's two timers: the idle reaper (only when some server has `lifecycle.idleTimeoutMs`) and
 * the health prober (only with `probeIntervalMs`). Both are unref'd: a manager nobody stopped must
 * not keep the process alive.
 */
import type { McpManagerOptions } from "./manager-types.js";
import { idleTimeoutOf, type ServerSlot } from "./server-slot.js";

/** Starts and stops the timers. */
export interface PoolTimers {
  /** Starts whichever timer the config asks for and is not running yet (config reloads may add one). */
  ensure(): void;
  stop(): void;
}

/** Creates the timers over the manager's slots; `probe` and `reap` do the work. */
export function createPoolTimers(
  slots: ReadonlyMap<string, ServerSlot>,
  options: McpManagerOptions,
  probe: (name: string) => Promise<unknown>,
  reap: () => Promise<unknown>,
): PoolTimers {
  let reaper: ReturnType<typeof setInterval> | undefined;
  let prober: ReturnType<typeof setInterval> | undefined;
  return {
    ensure() {
      if (!reaper && [...slots.values()].some((s) => idleTimeoutOf(s.config) !== undefined)) {
        reaper = setInterval(() => void reap(), options.reapIntervalMs ?? 1000);
        reaper.unref?.();
      }
      if (!prober && (options.probeIntervalMs ?? 0) > 0) {
        prober = setInterval(() => {
          for (const slot of slots.values()) if (slot.state === "connected") void probe(slot.name);
        }, options.probeIntervalMs);
        prober.unref?.();
      }
    },
    stop() {
      if (reaper) clearInterval(reaper);
      if (prober) clearInterval(prober);
    },
  };
}
