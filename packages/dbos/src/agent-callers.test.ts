/**
 * The registry that picks a durable call's caller: by the agent that made the call and its tool,
 * never by the server name alone, and a clear refusal (naming agent and server) when this worker
 * holds no caller for them.
 */
import { type Caller, createRuntime, type ToolFailure, type ToolSpec } from "@toolwright/runtime";
import type { DurableCall } from "@toolwright/runtime/durable";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentCallerMissingError, createAgentCallers } from "./agent-callers.js";

const spec = (toolset: string, name: string): ToolSpec => ({
  id: `${toolset}.${name}`,
  toolset,
  name,
  providerName: `${toolset}_${name}`,
  inputSchema: { type: "object" },
  decodePayload: (value) => ({ ok: true, value }),
});

/** A caller for `server` that answers with `credential` (what an agent's own credentials would show). */
function callerWith(server: string, credential: string): Caller {
  return {
    server,
    callTool: async () => ({ ok: true, value: { content: [{ type: "text", text: credential }] } }),
  };
}

function agentRuntime(server: string, credential: string) {
  const runtime = createRuntime();
  const caller = callerWith(server, credential);
  runtime.registerToolset({ toolset: "notes", caller, specs: [spec("notes", "add")] });
  return { runtime, caller };
}

const call = (server: string, tool = "notes.add"): DurableCall => ({
  runId: "run-1",
  index: 0,
  attempt: 0,
  server,
  tool,
  name: "add",
  arguments: {},
  idempotencyKey: "run-1/0",
  repeatable: false,
});

describe("durable agents' callers", () => {
  it("gives each agent its own caller for the same server name, whatever the names and the order they were defined in", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 2, maxLength: 6 }),
        fc.string({ minLength: 1 }),
        (names, server) => {
          const agents = createAgentCallers();
          const callers = new Map<string, Caller>();
          for (const name of names) {
            const { runtime, caller } = agentRuntime(server, `cred:${name}`);
            agents.add(name, runtime);
            callers.set(name, caller);
          }
          for (const name of [...names].reverse()) expect(agents.callerFor(name, call(server))).toBe(callers.get(name));
        },
      ),
    );
  });

  it("refuses a call whose agent, tool or server this worker does not hold, naming them, instead of using another agent's caller", () => {
    const agents = createAgentCallers();
    agents.add("agent-a", agentRuntime("ledger", "cred:a").runtime);
    const refused = (agent: unknown, c: DurableCall) => {
      try {
        agents.callerFor(agent, c);
      } catch (error) {
        expect(error).toBeInstanceOf(AgentCallerMissingError);
        return (error as Error).message;
      }
      throw new Error("a caller was handed out");
    };
    const missing = refused('agent-"b"', call("ledger"));
    expect(missing).toContain('agent "agent-\\"b\\"" is not defined on this worker');
    expect(missing).toContain('server "ledger"');
    expect(refused("agent-a", call("other-server"))).toMatch(/agent "agent-a" has no caller for server "other-server"/);
    expect(refused("agent-a", call("ledger", "notes.remove"))).toMatch(/tool "notes\.remove"/);
    expect(refused(undefined, call("ledger"))).toMatch(/names no agent/);
    expect(() => agents.add("agent-a", agentRuntime("ledger", "cred:again").runtime)).toThrow(/"agent-a" is already defined/);
  });

  it("sends a principal's call through that principal's registry, and refuses one the agent cannot place", async () => {
    const agents = createAgentCallers();
    const shared = agentRuntime("ledger", "cred:shared");
    const perUser = new Map([
      ["alice", agentRuntime("ledger", "cred:alice")],
      ["bob", agentRuntime("ledger", "cred:bob")],
    ]);
    agents.add("agent-p", shared.runtime, (p) => perUser.get(p.id)?.runtime ?? createRuntime());
    agents.add("agent-plain", shared.runtime);
    expect(await agents.callerForCall("agent-p", { ...call("ledger"), principal: "alice" })).toBe(perUser.get("alice")?.caller);
    expect(await agents.callerForCall("agent-p", { ...call("ledger"), principal: "bob" })).toBe(perUser.get("bob")?.caller);
    expect(await agents.callerForCall("agent-p", call("ledger"))).toBe(shared.caller);
    // A principal this worker has no registry for is refused, not sent through the shared caller.
    await expect(agents.callerForCall("agent-p", { ...call("ledger"), principal: "carol" })).rejects.toThrow(AgentCallerMissingError);
    const refusal = agents.callerForCall("agent-plain", { ...call("ledger"), principal: "mallory@example.com" });
    await expect(refusal).rejects.toThrow(/has no runtimeFor/);
    await expect(refusal).rejects.not.toThrow(/mallory/);
  });

  it("a principal's call whose server needs that principal's authorization is answered auth_required, not sent nor refused as missing", async () => {
    const failure = {
      kind: "auth_required",
      message: 'notes: server "notes" needs this principal\'s authorization',
      recovery: { action: "finish" },
      tool: "notes.add",
      server: "notes",
      retryable: false,
      source: "transport",
    } satisfies ToolFailure;
    const empty = Object.assign(createRuntime(), { unavailable: async (tool: string) => (tool === "notes.add" ? failure : undefined) });
    const agents = createAgentCallers();
    agents.add("a", createRuntime(), () => empty);
    const caller = await agents.callerForCall("a", { ...call("notes"), principal: "p1" });
    expect(await caller.callTool({ name: "add", arguments: {} })).toEqual({ ok: false, failure });
    // Nothing known about another tool: still the refusal naming agent and server.
    await expect(agents.callerForCall("a", { ...call("notes", "notes.other"), principal: "p1" })).rejects.toThrow(AgentCallerMissingError);
  });
});
