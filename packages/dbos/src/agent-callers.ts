/**
 * Which caller sends a durable call: the one of the agent whose run made it, found in that agent's
 * own registry by the call's tool. Two agents may each hold a caller for the same server name with
 * their own credentials, so a server name alone never picks a caller; a call whose agent (or tool)
 * is not registered on this worker fails, naming them, instead of going through someone else's.
 */
import type { Caller, Runtime } from "@toolwright/runtime";
import type { DurableCall } from "@toolwright/runtime/durable";

/** Thrown when this worker holds no caller for a call's agent and tool: the call is not sent. */
export class AgentCallerMissingError extends Error {
  readonly code = "ERR_TOOLWRIGHT_AGENT_CALLER_MISSING";
  constructor(message: string) {
    super(message);
    this.name = "AgentCallerMissingError";
  }
}

/** The agents defined on this worker, by workflow name. */
export interface AgentCallers {
  /** Adds an agent; refuses a second agent under the same name (its calls could not be told apart). */
  add(agent: string, runtime: Runtime): void;
  has(agent: string): boolean;
  /** The caller `agent`'s registry holds for `call.tool` on `call.server`; throws `AgentCallerMissingError` otherwise. */
  callerFor(agent: unknown, call: DurableCall): Caller;
}

/** Creates an empty registry of agents' callers. */
export function createAgentCallers(): AgentCallers {
  const runtimes = new Map<string, Runtime>();
  return {
    add(agent, runtime) {
      if (runtimes.has(agent)) throw new TypeError(`toolwright/dbos: a durable agent named ${JSON.stringify(agent)} is already defined`);
      runtimes.set(agent, runtime);
    },
    has: (agent) => runtimes.has(agent),
    callerFor(agent, call) {
      const what = `server ${JSON.stringify(call.server)} (tool ${JSON.stringify(call.tool)}, call ${call.index} of run ${JSON.stringify(call.runId)})`;
      if (typeof agent !== "string")
        throw new AgentCallerMissingError(
          `toolwright/dbos: the call to ${what} names no agent (it was enqueued by an older worker), so no caller can be chosen for it; it was not sent`,
        );
      const runtime = runtimes.get(agent);
      if (!runtime)
        throw new AgentCallerMissingError(
          `toolwright/dbos: agent ${JSON.stringify(agent)} is not defined on this worker, so its caller for ${what} is not here; ` +
            "the call was not sent through another agent's caller. Define every agent the same way on every worker",
        );
      // By the tool's id, in this agent's own registry: the entry found must be that very tool on that server.
      const entry = runtime.lookup(call.tool);
      if (!entry || entry.spec.id !== call.tool || entry.caller.server !== call.server)
        throw new AgentCallerMissingError(
          `toolwright/dbos: agent ${JSON.stringify(agent)} has no caller for ${what} registered on this worker; ` +
            "the call was not sent. Register the same toolsets for the agent on every worker",
        );
      return entry.caller;
    },
  };
}
