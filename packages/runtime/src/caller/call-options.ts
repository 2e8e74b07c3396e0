/**
 * The options every request takes, and the answer shapes the surface shares. They sit apart from
 * the caller contract because the MCP surface (`surface.ts`, `skills.ts`) takes them too, and the
 * contract in turn names the surface's methods.
 */
import type { ToolFailure } from "../failure/failure.js";
import type { CallFacts } from "../failure/failure-mapping.js";
import type { Progress } from "../protocol/rpc-peer.js";
import type { TaskOptions } from "../protocol/task-call.js";

/** Options for one call. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Time allowed for the answer, in ms. */
  readonly timeoutMs?: number;
  readonly resetTimeoutOnProgress?: boolean;
  readonly maxTotalTimeoutMs?: number;
  readonly onProgress?: (progress: Progress) => void;
  /** Task-augmented calls: ask for a task on tools that allow one, ttl and poll interval, status callback. */
  readonly task?: TaskOptions;
  /**
   * What the typed call path knows (tool id, example payload, whether repeating is safe, which run
   * deadline applies): a caller builds this call's failures with it, so nothing is remapped later.
   */
  readonly facts?: CallFacts;
}

/** A caller's raw request, as the surface sends it: the result, or a failure. */
export type SurfaceRequest = (
  method: string,
  params: { readonly [key: string]: unknown },
  options: CallOptions,
) => Promise<{ readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly failure: ToolFailure }>;
