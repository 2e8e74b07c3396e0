/**
 * Restart backoff, the one rule both layers follow: the stdio caller before it respawns a crashed
 * server, and the manager before a call may reconnect a failed one. The first delay doubles per
 * consecutive failure, up to a cap, so a broken server is not respawned once per call.
 */
import { watchAbort } from "../protocol/rpc-peer.js";

/** The delays of a restart backoff. */
export interface BackoffPolicy {
  /** The first delay after a failure. Default 100 ms. */
  readonly delayMs?: number | undefined;
  /** The longest delay. Default 5 s. */
  readonly maxDelayMs?: number | undefined;
}

/** The wait before the next attempt after `failures` consecutive failures: none after zero. */
export function backoffDelay(failures: number, policy: BackoffPolicy = {}): number {
  if (failures <= 0) return 0;
  return Math.min((policy.delayMs ?? 100) * 2 ** (failures - 1), policy.maxDelayMs ?? 5000);
}

/** A counter of consecutive failures and the wait it implies. */
export interface RestartBackoff {
  readonly failures: number;
  /** Counts a failure now; the next attempt waits `backoffDelay(failures)` from now. */
  failed(): void;
  /** A success: the next failure starts over at the first delay. */
  reset(): void;
  /** Waits until the next attempt may start, or less when `signal` aborts first. */
  wait(signal: AbortSignal): Promise<void>;
}

/** Creates a restart backoff with no failures counted. */
export function createRestartBackoff(policy: BackoffPolicy = {}): RestartBackoff {
  return new Backoff(policy);
}

// A class, not an object literal with a getter: V8 keeps such a literal in dictionary mode (about
// 450 bytes), and every stdio or HTTP caller holds one of these (docs/performance.md, "Heap").
class Backoff implements RestartBackoff {
  failures = 0;
  private lastFailureAt = 0;
  private readonly policy: BackoffPolicy;
  constructor(policy: BackoffPolicy) {
    this.policy = policy;
  }
  failed(): void {
    this.failures++;
    this.lastFailureAt = Date.now();
  }
  reset(): void {
    this.failures = 0;
  }
  async wait(signal: AbortSignal): Promise<void> {
    const wait = this.lastFailureAt + backoffDelay(this.failures, this.policy) - Date.now();
    if (wait > 0) await abortableSleep(wait, signal);
  }
}

/** Waits `ms`, or less when `signal` aborts first; the timer never holds the process open. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref?.();
    const stop = watchAbort(signal, done);
    function done() {
      clearTimeout(timer);
      stop();
      resolve();
    }
  });
}
