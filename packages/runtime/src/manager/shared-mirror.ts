/**
 * The shared servers' tools in every principal's runtime, kept current: the manager of the shared
 * servers mirrors its tools into this registry (as a plain manager mirrors into `registry`), which
 * hands each toolset on to the application's registry and to every principal's runtime attached
 * now, and to those attached later. A `list_changed` of a shared server (or its reconnect, or a
 * filter change) thus reaches every principal at once, not only principals built after it.
 */
import type { Principal } from "../caller/principal.js";
import { createRuntime, type Runtime, type ToolsetRegistration } from "../core/runtime.js";

/** The fan-out of the shared servers' toolsets. */
export interface SharedMirror {
  /** What the shared servers' manager mirrors into (its `registry` option). */
  readonly registry: Runtime;
  /** Registers every shared toolset in `runtime`, now and on each change; returns the detach. */
  attach(principal: Principal, runtime: Runtime): () => void;
  /** The principals attached now (their managers are built and not stopped). */
  principals(): Principal[];
}

/** Creates the mirror over the application's own registry, if it gave one. */
export function createSharedMirror(app: Runtime | undefined): SharedMirror {
  const inner = app ?? createRuntime();
  const latest = new Map<string, ToolsetRegistration>();
  const attached = new Map<Runtime, Principal>();
  const registry: Runtime = {
    registerToolset(registration) {
      latest.set(registration.toolset, registration);
      inner.registerToolset(registration);
      for (const runtime of attached.keys()) runtime.registerToolset(registration);
    },
    lookup: (tool) => inner.lookup(tool),
    specs: () => inner.specs(),
    execute: (request, options) => inner.execute(request, options),
    get policy() {
      return inner.policy;
    },
    usage: () => inner.usage(),
    resetRun: () => inner.resetRun(),
  };
  return {
    registry,
    attach(principal, runtime) {
      for (const registration of latest.values()) runtime.registerToolset(registration);
      attached.set(runtime, principal);
      return () => {
        attached.delete(runtime);
      };
    },
    principals: () => [...attached.values()],
  };
}
