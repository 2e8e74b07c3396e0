/**
 * An abort controller that makes its `AbortController` only when the signal is read. Most tool
 * calls never read `ctx.signal`, and a Node `AbortController` (an EventTarget with its signal) per
 * call was the largest allocation of a busy server's call path: ~5% of its CPU in the issue 32
 * profile, plus its share of the garbage collector's. Hand-written because no library does this.
 */

/** What a session keeps per in-flight call so that cancellation and session close can reach it. */
export interface Abortable {
  abort(reason?: unknown): void;
}

/** Creates the `AbortController` on first read of `signal`, replaying an earlier `abort`. */
export class LazyAbortController implements Abortable {
  private controller: AbortController | undefined;
  private abortedEarly = false;
  private earlyReason: unknown;

  /** The signal; an abort that came before this read is already applied. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedEarly) this.controller.abort(this.earlyReason);
    }
    return this.controller.signal;
  }

  /** Whether `abort` was called, without making the signal. */
  get aborted(): boolean {
    return this.controller === undefined ? this.abortedEarly : this.controller.signal.aborted;
  }

  /** Aborts, like `AbortController.abort` (a second call changes nothing). */
  abort(reason?: unknown): void {
    if (this.controller !== undefined) this.controller.abort(reason);
    else if (!this.abortedEarly) {
      this.abortedEarly = true;
      this.earlyReason = reason;
    }
  }
}
