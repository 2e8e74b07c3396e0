/**
 * Which caller sends a durable call: the one of the agent whose run made it, found in that agent's
 * own registry by the call's tool. Two agents may each hold a caller for the same server name with
 * their own credentials, so a server name alone never picks a caller; a call whose agent (or tool)
 * is not registered on this worker fails, naming them, instead of going through someone else's.
 */
import type { Caller, Runtime } from "@toolwright/runtime";
import type { Principal } from "@toolwright/runtime/caller";
import type { DurableCall } from "@toolwright/runtime/durable";

/** One principal's registry for an agent (e.g. `(p) => manager.forPrincipal(p).then((m) => m.runtime)`). */
export type RuntimeFor = (principal: Principal) => Runtime | Promise<Runtime>;

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
  add(agent: string, runtime: Runtime, runtimeFor?: RuntimeFor): void;
  has(agent: string): boolean;
  /** The caller `agent`'s registry holds for `call.tool` on `call.server`; throws `AgentCallerMissingError` otherwise. */
  callerFor(agent: unknown, call: DurableCall): Caller;
  /**
   * As `callerFor`, for a call that may be a principal's (`call.principal`): it goes through that
   * principal's registry (`runtimeFor`), never the agent's shared one nor another principal's.
   */
  callerForCall(agent: unknown, call: DurableCall): Promise<Caller>;
  /** The registry a run of `agent` for `principal` uses (the agent's own without a principal). */
  runtimeOf(agent: string, principal: Principal | undefined): Promise<Runtime>;
}

/** Creates an empty registry of agents' callers. */
export function createAgentCallers(): AgentCallers {
  const runtimes = new Map<string, Runtime>();
  const perPrincipal = new Map<string, RuntimeFor>();
  async function runtimeOf(agent: string, principal: Principal | undefined): Promise<Runtime> {
    if (principal === undefined) return runtimes.get(agent) as Runtime;
    const runtimeFor = perPrincipal.get(agent);
    // The principal's id is never put in the message: it may be personal data.
    if (!runtimeFor)
      throw new AgentCallerMissingError(
        `toolwright/dbos: a run of agent ${JSON.stringify(agent)} is made for a principal, but the agent has no runtimeFor on this worker; the call was not sent through a shared caller`,
      );
    return runtimeFor(principal);
  }
  const agents: AgentCallers = {
    add(agent, runtime, runtimeFor) {
      if (runtimes.has(agent)) throw new TypeError(`toolwright/dbos: a durable agent named ${JSON.stringify(agent)} is already defined`);
      runtimes.set(agent, runtime);
      if (runtimeFor) perPrincipal.set(agent, runtimeFor);
    },
    has: (agent) => runtimes.has(agent),
    runtimeOf,
    async callerForCall(agent, call) {
      if (call.principal === undefined || typeof agent !== "string" || !runtimes.has(agent)) return agents.callerFor(agent, call);
      const runtime = await runtimeOf(agent, { id: call.principal });
      // The principal's server may be unreachable for want of their grant (revoked after the run
      // was enqueued): the call is answered with that `auth_required`, naming the server, and not sent.
      const why = runtime.lookup(call.tool) ? undefined : await runtime.unavailable?.(call.tool);
      if (why) return { server: call.server, callTool: async () => ({ ok: false, failure: why }) };
      return pick(agent, runtime, call);
    },
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
      return pick(agent, runtime, call);
    },
  };
  return agents;
}

/** By the tool's id, in this agent's (or principal's) own registry: the entry found must be that very tool on that server. */
function pick(agent: string, runtime: Runtime, call: DurableCall): Caller {
  const entry = runtime.lookup(call.tool);
  if (!entry || entry.spec.id !== call.tool || entry.caller.server !== call.server) {
    const what = `server ${JSON.stringify(call.server)} (tool ${JSON.stringify(call.tool)}, call ${call.index} of run ${JSON.stringify(call.runId)})`;
    throw new AgentCallerMissingError(
      `toolwright/dbos: agent ${JSON.stringify(agent)} has no caller for ${what} registered on this worker; ` +
        "the call was not sent. Register the same toolsets for the agent on every worker",
    );
  }
  return entry.caller;
}
