/**
 * The JSON-RPC peer's deadlines (rpc-peer.ts): one timer for every deadline of a peer, set for the
 * earliest one, instead of a setTimeout per request: under uniform timeouts a new deadline is never
 * earlier, so a request arms nothing. It is unref'd while no request has a deadline, so an idle peer
 * never holds the process open.
 */
import type { WireFault } from "../failure/wire-fault.js";
import type { RpcId } from "./json-rpc.js";

/** What a deadline needs of a pending request. */
export interface Timed {
  readonly options: {
    readonly timeoutMs?: number | undefined;
    readonly maxTotalTimeoutMs?: number | undefined;
    readonly timeoutPhase?: "connect" | "request" | undefined;
  };
  /** When the request times out (epoch ms), or undefined for none. */
  deadline: number | undefined;
  readonly startedAt: number;
}

/** A peer's deadlines. */
export interface Deadlines {
  /** Sets (or, on progress, moves) the entry's deadline; the entry must be pending already. */
  arm(entry: Timed, now: number): void;
  /** A request that had a deadline was settled: one fewer holds the process. */
  release(): void;
  /** Drops the timer when no request has a deadline left (the transport is gone). */
  dropIfIdle(): void;
}

/** Creates the deadlines of the requests in `pending`; a request past its deadline is handed to `abandon`. */
export function createDeadlines(
  pending: ReadonlyMap<RpcId, Timed>,
  abandon: (id: RpcId, fault: WireFault) => void,
  holdsProcess: boolean,
): Deadlines {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let timed = 0;
  // The number of timed requests at which the timer holds the process; never, when the transport does.
  const refAt = holdsProcess ? -1 : 0;

  /** Sets (or, on progress, moves) the entry's deadline; the entry must be pending already. */
  function arm(entry: Timed, now: number): void {
    const { timeoutMs, maxTotalTimeoutMs } = entry.options;
    if (timeoutMs === undefined || timeoutMs <= 0 || !Number.isFinite(timeoutMs)) return;
    let wait = timeoutMs;
    // Progress may reset the timer, but never past the hard cap measured from the start (spec: a
    // maximum timeout SHOULD hold regardless of progress).
    if (maxTotalTimeoutMs !== undefined) wait = Math.min(wait, Math.max(0, entry.startedAt + maxTotalTimeoutMs - now));
    if (entry.deadline === undefined && timed++ === refAt) timer?.ref();
    entry.deadline = now + wait;
    if (timer === undefined || entry.deadline < timerAt) schedule(entry.deadline, now);
  }

  function schedule(at: number, now: number): void {
    if (timer !== undefined) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(expire, at - now);
    if (timed === 0 || refAt < 0) timer.unref();
  }

  /** Abandons every request past its deadline, then waits for the earliest deadline left. */
  function expire(): void {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    const late: [RpcId, Timed][] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [id, entry] of pending) {
      if (entry.deadline === undefined) continue;
      if (entry.deadline <= now) late.push([id, entry]);
      else if (entry.deadline < next) next = entry.deadline;
    }
    for (const [id, entry] of late) {
      const phase = entry.options.timeoutPhase ?? "request";
      abandon(id, { type: "timeout", phase, message: `no answer within ${Math.round(now - entry.startedAt)} ms` });
    }
    // A request armed by a callback above may have scheduled the timer already.
    if (next < timerAt) schedule(next, now);
  }

  return {
    arm,
    release() {
      if (--timed === refAt) timer?.unref();
    },
    dropIfIdle() {
      if (timed === 0 && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
      }
    },
  };
}
