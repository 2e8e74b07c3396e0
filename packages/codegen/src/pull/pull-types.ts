/**
 * The shapes `toolwright pull` takes and answers (`runPull`'s options and summary, the pull error),
 * apart from the pull itself so pull.ts stays a readable size. Re-exported by pull.ts.
 */
import type { LintFinding, SurfaceDrift, ToolDrift } from "@toolwright/runtime/catalogue";

/** Options for `runPull`. */
export interface PullOptions {
  readonly design: string;
  readonly cwd?: string;
  /** Pull only these servers; the lock keeps the other servers' entries as they are. */
  readonly servers?: readonly string[];
  /** Time allowed per server for connect plus `tools/list`, in ms; the prompts and resources lists get what is left. Default 20 s. */
  readonly timeoutMs?: number;
  /** Write nothing; report whether the lock is stale and which tools drifted (CI). */
  readonly check?: boolean;
  /** Deadline for loading the design, in ms (default 30 s). */
  readonly loadTimeoutMs?: number;
  /** Called as each server starts connecting and as it finishes (for live progress). */
  readonly onProgress?: (event: PullProgress) => void;
  /**
   * A high or medium poisoning-lint finding fails the pull: nothing is written and `strictFailed`
   * is set. Low findings (a long description, an honest one-script non-Latin name) are printed only.
   */
  readonly strict?: boolean;
}

/** One step of a pull, for live progress. */
export type PullProgress =
  | { readonly kind: "connecting"; readonly servers: readonly string[] }
  | { readonly kind: "listed"; readonly server: PulledServerSummary }
  | { readonly kind: "failed"; readonly server: string; readonly message: string };

/** One drifted tool of one server, as `--check` and `--json` report it. */
export interface LockDrift extends ToolDrift {
  readonly server: string;
}

/** One drifted prompt, resource or template of one server (only lists the previous lock recorded). */
export interface LockSurfaceDrift extends SurfaceDrift {
  readonly server: string;
}

/** What one pulled server contributed. */
export interface PulledServerSummary {
  readonly name: string;
  readonly transport: "stdio" | "http";
  readonly tools: number;
  readonly fingerprint: string;
  readonly ms: number;
}

/** The result of a pull. */
export interface PullSummary {
  /** Lock file path relative to the working directory. */
  readonly lock: string;
  /** False when the lock already had exactly these bytes (nothing was written). With `check`: true means stale. */
  readonly changed: boolean;
  /** Per-tool fingerprint differences from the previous lock (a server missing from it counts as all added). */
  readonly drift: readonly LockDrift[];
  /** Prompts, resources and templates that differ from the previous lock's, for the lists it recorded. */
  readonly surfaceDrift: readonly LockSurfaceDrift[];
  readonly servers: readonly PulledServerSummary[];
  readonly tools: number;
  /** Inline overrides that name no pulled tool (gen will reject them). */
  readonly warnings: readonly string[];
  /** Poisoning-lint findings on the pulled catalogues (`lintCatalogue`). */
  readonly findings: readonly LintFinding[];
  /** With `strict`: true when high or medium findings kept the lock from being written. */
  readonly strictFailed: boolean;
  /** Servers that could not be pulled while others could (a partial pull); each keeps its previous lock entry when there was one. */
  readonly failed: readonly PullFailure[];
  readonly ms: number;
}

/** One server a partial pull could not reach or list. */
export interface PullFailure {
  readonly server: string;
  /** `pull failed for server "x": ...` */
  readonly message: string;
  /** True when the lock keeps the server's previous entry; false when it had none (or the old lock was unreadable). */
  readonly kept: boolean;
}

/** A server could not be pulled: it is down, timed out, or answered something that is not a catalogue. */
export class PullError extends Error {
  override readonly name = "PullError";
  readonly server: string;
  constructor(server: string, problem: string) {
    super(`pull failed for server ${JSON.stringify(server)}: ${problem}`);
    this.server = server;
  }
}
