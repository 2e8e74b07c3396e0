/**
 * `createRuntime()`: a registry of toolsets, filled by the generated `register*Toolset` helpers,
 * that runs calls by tool id, wire name or provider-safe name.
 */
import type { Caller, CallOptions } from "./caller.js";
import { invokeTool } from "./invoke.js";
import type { ToolResult, ToolSpec } from "./tool-spec.js";

/** A registered toolset. */
export interface ToolsetRegistration {
  readonly toolset: string;
  readonly specs: readonly ToolSpec[];
  readonly caller: Caller;
}

/** A request to run one tool. `tool` is an id (`toolset.tool`) or a provider-safe name. */
export interface ExecuteRequest {
  readonly tool: string;
  readonly arguments: unknown;
}

/** The runtime registry. */
export interface Runtime {
  /** Adds a toolset. Registering the same toolset name twice replaces it. */
  registerToolset(registration: ToolsetRegistration): void;
  /** Looks up a spec by id or provider-safe name. */
  lookup(tool: string): { readonly spec: ToolSpec; readonly caller: Caller } | undefined;
  /** Every registered spec. */
  specs(): readonly ToolSpec[];
  /** Runs a call. Never throws; unknown tools are failures. */
  execute(request: ExecuteRequest, options?: CallOptions): Promise<ToolResult<unknown>>;
}

/** Creates an empty runtime registry. */
export function createRuntime(): Runtime {
  const toolsets = new Map<string, ToolsetRegistration>();
  const index = new Map<string, { spec: ToolSpec; caller: Caller }>();

  function reindex(): void {
    index.clear();
    for (const reg of toolsets.values()) {
      for (const spec of reg.specs) {
        index.set(spec.id, { spec, caller: reg.caller });
        index.set(spec.providerName, { spec, caller: reg.caller });
      }
    }
  }

  return {
    registerToolset(registration) {
      toolsets.set(registration.toolset, registration);
      reindex();
    },
    lookup: (tool) => index.get(tool),
    specs: () => [...toolsets.values()].flatMap((r) => r.specs),
    async execute(request, options) {
      const entry = index.get(request.tool);
      if (!entry) {
        return {
          ok: false,
          failure: {
            kind: "invalid_call",
            message: `unknown tool ${JSON.stringify(request.tool)}`,
            recovery: { action: "replan" },
            tool: request.tool,
            server: "",
            retryable: false,
          },
        };
      }
      return invokeTool(entry.caller, entry.spec, request.arguments, options);
    },
  };
}
