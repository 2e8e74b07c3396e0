/**
 * Raw facts about what went wrong on the wire. Transports and sessions report these; the one
 * mapping file (`failure-mapping.ts`) turns them into `ToolFailure` values.
 */
import type { FieldIssue } from "./failure.js";

/** A fact about a failed exchange, before it is mapped to a failure kind. */
export type WireFault =
  /** The peer answered with a JSON-RPC error. */
  | {
      readonly type: "rpc";
      readonly code: number;
      readonly message: string;
      readonly data?: unknown;
      /** Set when the error arrived as the body of a non-2xx HTTP response (400, 404). */
      readonly httpStatus?: number;
    }
  /** An HTTP response with a non-success status. */
  | {
      readonly type: "http";
      readonly status: number;
      readonly message: string;
      readonly retryAfterMs?: number;
      readonly body?: string;
    }
  /** The transport broke: connect refused, reset, spawn failure, process exit, bad framing. */
  | {
      readonly type: "transport";
      /** A Node error code (ECONNREFUSED, ENOENT, EACCES...) or our own (EXIT, ECLOSED, EOVERSIZE). */
      readonly code: string;
      readonly message: string;
      readonly exitCode?: number | null;
      readonly signal?: string | null;
      readonly stderrTail?: string;
    }
  /** The call's deadline passed. `phase` says whether it was connecting or waiting for the answer. */
  | { readonly type: "timeout"; readonly message: string; readonly phase: "connect" | "request" }
  /** A result arrived but breaks the protocol's shape (`content` not an array, a block without `type`...). */
  | {
      readonly type: "malformed";
      readonly message: string;
      readonly issues: readonly FieldIssue[];
      /** The result's content, when it is an array (kept as evidence). */
      readonly content?: readonly unknown[];
    }
  /** The caller's AbortSignal fired. */
  | { readonly type: "canceled"; readonly message: string }
  /** A task-augmented request ended without a result: the task failed, was cancelled by the server, or expired. */
  | { readonly type: "task"; readonly status: "failed" | "cancelled" | "expired"; readonly taskId: string; readonly message: string };

/** An outcome of one JSON-RPC request: the raw result, or a wire fault. */
export type RpcOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly fault: WireFault };
