import type { CallFacts } from "../failure/failure-mapping.js";
import type { Result } from "../failure/result.js";
import type { Progress } from "../protocol/rpc-peer.js";
import type { TaskOptions } from "../protocol/task-call.js";
import type { Principal } from "./principal.js";

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
  /**
   * Told the JSON-RPC id and method of each request this call sends (a `tools/list` the call needs
   * first, the `tools/call`, task polls, a retry): the runtime puts the first `tools/call` id on its
   * span as `jsonrpc.request.id`.
   */
  readonly onRequestId?: (id: string | number, method: string) => void;
  /**
   * Who this call is made for. Result stores key held results by it (a `read_result` handle of one
   * principal reads nothing for another); a manager view from `forPrincipal` sets it on its calls.
   */
  readonly principal?: Principal;
}

/** A caller's raw request, as the surface sends it: the result, or a failure. */
export type SurfaceRequest = (
  method: string,
  params: { readonly [key: string]: unknown },
  options: CallOptions,
) => Promise<Result<unknown>>;
