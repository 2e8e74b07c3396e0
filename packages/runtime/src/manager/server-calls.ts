/**
 * One call through the manager: the refusals that need no server (stopped, disabled, given up,
 * backing off), a connect when the server is not connected, the tool lookup (held, hidden,
 * unknown), the approval, the call itself with its lease counters, and the crash accounting of
 * its outcome. Also the per-server `Caller` the runtime registry and `getClient` hand out.
 */
import type { Caller, CallOptions, CallRequest, CallResponse } from "../caller/caller.js";
import { resultFromCall, resultFromShaped } from "../caller/invoke.js";
import { toolUnavailable } from "../caller/tool-request.js";
import type { ToolResult } from "../caller/tool-spec.js";
import { type FailureReason, type FieldIssue, redactFailure } from "../failure/failure.js";
import { type CallFacts, callContext, failureFromFault, failureFromInvalidInput, failureFromLocal } from "../failure/failure-mapping.js";
import type { WireFault } from "../failure/wire-fault.js";
import type { CallApproval } from "./approval-flow.js";
import { checksResultShape } from "./client-factory.js";
import type { CrashAccounting } from "./crash-accounting.js";
import type { ServerSlot, ServerStatus } from "./server-slot.js";
import { notConfigured, type SlotController } from "./slot-controller.js";
import { type ManagedTool, runtimeSpecOf, type ToolRegistry } from "./tool-registry.js";
import { heldMessage } from "./trust.js";
import type { ArgumentValidator } from "./validation.js";

/** No options given: one shared object, not one per call. */
const NO_OPTIONS: CallOptions = Object.freeze({});

/** The failure for arguments the live `inputSchema` rejects. */
function invalidArguments(
  issues: readonly FieldIssue[],
  tool: ManagedTool,
  slot: ServerSlot,
  args: { readonly [key: string]: unknown },
): ToolResult<unknown> {
  return { ok: false, failure: failureFromInvalidInput(issues, args, undefined, { tool: tool.id, server: slot.name }) };
}

/** What calls need from the manager. */
export interface ServerCallsContext {
  readonly slots: ReadonlyMap<string, ServerSlot>;
  readonly registry: ToolRegistry;
  readonly controller: SlotController;
  readonly crash: CrashAccounting;
  readonly approval: CallApproval;
  readonly validation: ArgumentValidator;
  readonly stopped: () => boolean;
}

/** Calls into the manager's servers. */
export interface ServerCalls {
  /** Calls `request.name` on one server (a wire name); the failure names `server.tool`. */
  callOnServer(slot: ServerSlot, request: CallRequest, options?: CallOptions): Promise<CallResponse>;
  /** The manager's `callTool`: by id or exposed name, arguments checked against the live schema (none given: `{}`), the result mapped. */
  callTool(key: string, args?: { readonly [key: string]: unknown }, options?: CallOptions): Promise<ToolResult<unknown>>;
  /** The `Caller` for one server, made once: the runtime registry keeps it across reconnects. */
  callerFor(name: string): Caller;
  /** Forgets a removed server's `Caller`. */
  forget(name: string): void;
}

// Failures are built on the failure path only: a call that succeeds builds no failure context.
const fail = (slot: ServerSlot, request: CallRequest, facts: CallFacts, fault: WireFault): CallResponse => ({
  ok: false,
  failure: failureFromFault(fault, callContext(slot.name, request, facts)),
});
/**
 * A failed connect or a refusal in its backoff: an `auth_required` connect failure is kept as it
 * was built (only the user can fix it: re-running the connect cannot), anything else is a
 * connection that may come back (`fault`).
 */
const connectFailure = (
  slot: ServerSlot,
  request: CallRequest,
  facts: CallFacts & { readonly tool: string },
  fault: WireFault,
): CallResponse =>
  slot.authFailure ? { ok: false, failure: { ...slot.authFailure, tool: facts.tool } } : fail(slot, request, facts, fault);
const refuse = (slot: ServerSlot, request: CallRequest, facts: CallFacts, reason: FailureReason, message: string): CallResponse => ({
  ok: false,
  failure: failureFromLocal(reason, `${slot.name}: ${message}`, callContext(slot.name, request, facts)),
});

/**
 * What a call answers with: the response as is (a server's `Caller`), or mapped (`callTool`).
 * `tool` is the registry's entry the call went to (undefined when it was refused before one was
 * found); `shaped`: the response came from a built-in caller, whose session checked the result's shape.
 */
type Finish<T> = (slot: ServerSlot, request: CallRequest, response: CallResponse, key: string, tool?: ManagedTool, shaped?: boolean) => T;
const asResponse: Finish<CallResponse> = (_slot, _request, response) => response;
const asToolResult: Finish<ToolResult<unknown>> = (slot, request, response, key, tool, shaped = false) => {
  // The same result mapping as every typed call: isError, malformed shapes, redaction.
  if (!response.ok) return { ok: false, failure: redactFailure(response.failure) };
  // A managed tool has an id and no example or result decoder: it is the result's spec as it is.
  // Its id is `key` (server.tool), which a list_changed during the call may drop but never changes.
  const spec = tool ?? { id: key };
  // A custom factory's client gets the full shape check; a built-in one's session did it already.
  return shaped
    ? resultFromShaped(spec, slot.name, response.value, request.arguments)
    : resultFromCall(spec, slot.name, response.value, request.arguments);
};

/** Why a call found its server unconnectable: the connect's error, with the child's stderr tail when there is one. */
function connectFault(after: ServerStatus): WireFault {
  const message = after.error ?? "not connected";
  return { type: "transport", code: "EXIT", message, ...(after.stderrTail ? { stderrTail: after.stderrTail } : {}) };
}

/** The `Caller` of one managed server; the slot is looked up per call (a config reload may have replaced or removed it). */
function managedCaller(
  name: string,
  slots: ReadonlyMap<string, ServerSlot>,
  controller: SlotController,
  registry: ToolRegistry,
  callOnServer: (slot: ServerSlot, request: CallRequest, callOptions?: CallOptions) => Promise<CallResponse>,
): Caller {
  return {
    server: name,
    // The slot is looked up per call: a config reload may have replaced or removed it.
    // Not async: the typed path's calls add no frame over callOnServer's.
    callTool: (request, callOptions) => {
      const slot = slots.get(name);
      if (!slot)
        return Promise.resolve({
          ok: false,
          failure: notConfigured(name, { tool: request.name, server: name, input: request.arguments }),
        });
      return callOnServer(slot, request, callOptions);
    },
    listTools: async () => {
      const slot = slots.get(name);
      if (slot && slot.state !== "connected") await controller.connect(slot);
      if (slot?.state !== "connected") {
        const fault: WireFault = { type: "transport", code: "ECLOSED", message: slot?.error ?? "not connected" };
        return { ok: false, failure: failureFromFault(fault, { tool: "tools/list", server: name }) };
      }
      return { ok: true, value: registry.ofServer(name).map((t) => t.descriptor) };
    },
  };
}

/** Creates the call path over the manager's slots. */
export function createServerCalls(context: ServerCallsContext): ServerCalls {
  // Read once: each property read is one more inline cache per call until V8 optimises the path.
  const { slots, registry, controller, crash, approval, validation } = context;
  const callers = new Map<string, Caller>();
  const unknownTool = (key: string) =>
    toolUnavailable(
      key,
      // As the runtime does: the closest names the model could use instead.
      registry.all().map((t) => runtimeSpecOf(t)),
    );

  /**
   * One call on one server, answered through `finish`. `known` is the registry's entry for the
   * tool, looked up in this same turn by the caller (saves looking it up again).
   */
  async function send<T>(
    slot: ServerSlot,
    request: CallRequest,
    callOptions: CallOptions,
    known: ManagedTool | undefined,
    finish: Finish<T>,
  ): Promise<T> {
    const key = known ? known.id : `${slot.name}.${request.name}`;
    // The manager's id names the tool unless the typed path handed down its own; the client builds with the same facts.
    const given = callOptions.facts;
    const facts: CallFacts & { readonly tool: string } = given === undefined ? { tool: key } : { ...given, tool: given.tool ?? key };
    if (context.stopped()) return finish(slot, request, refuse(slot, request, facts, "manager_stopped", "the manager is stopped"), key);
    if (slot.config.enabled === false)
      return finish(slot, request, refuse(slot, request, facts, "server_disabled", `server "${slot.name}" is disabled`), key);
    // A connected slot is refused only when given up on (`crash.refusal`'s first test): the common case asks nothing more.
    const refusal = slot.state === "connected" && slot.client && !slot.gaveUp ? undefined : crash.refusal(slot);
    if (refusal) return finish(slot, request, connectFailure(slot, request, facts, refusal), key);
    let tool = known;
    if (slot.state !== "connected" || !slot.client) {
      const after = await controller.connect(slot);
      if (!after.connected) {
        return finish(slot, request, connectFailure(slot, request, facts, connectFault(after)), key);
      }
      tool = undefined; // the connect listed the tools anew
    }
    tool ??= registry.lookup(key);
    if (!tool) return finish(slot, request, notListed(slot, request, facts, key), key);
    if (!approval.autoApproved(slot, tool) && !(await approval.ask(slot, tool, request.arguments, callOptions.principal)))
      return finish(slot, request, refuse(slot, request, facts, "not_approved", `call to ${tool.id} was not approved`), key);
    // The approval may have taken long (a human): the server can be gone by now.
    const client = slot.client;
    if (!client)
      return finish(
        slot,
        request,
        fail(slot, request, facts, { type: "transport", code: "ECLOSED", message: `server "${slot.name}" was disconnected` }),
        key,
        tool,
      );
    // The idle reaper never closes a connection with a call in flight, and reads lastUsed only once none is.
    slot.inFlight++;
    // The caller's deadline wins; the server's configured one applies when the caller gives none.
    const timeout = callOptions.timeoutMs ?? slot.config.requestTimeoutMs;
    try {
      const response = await client.callTool(
        request,
        timeout === undefined || timeout === callOptions.timeoutMs
          ? callOptions === NO_OPTIONS
            ? { facts }
            : { ...callOptions, facts }
          : { ...callOptions, facts, timeoutMs: timeout },
      );
      // Only a failure needs accounting that waits (an eviction); a success just resets the crash count.
      const accounting = crash.callEnded(slot, client, response.ok ? undefined : response.failure);
      if (accounting) await accounting;
      // A client from a custom factory may ignore the facts: the failure still names the tool's id.
      if (!response.ok && response.failure.tool !== facts.tool)
        return finish(slot, request, { ok: false, failure: { ...response.failure, tool: facts.tool } }, key);
      return finish(slot, request, response, key, tool, response.ok && checksResultShape(client));
    } finally {
      slot.inFlight--;
      slot.lastUsed = Date.now();
    }
  }

  /** Why a tool the registry does not hold cannot be called: held back, hidden, or unknown. */
  function notListed(slot: ServerSlot, request: CallRequest, facts: CallFacts, key: string): CallResponse {
    const held = heldMessage(slot, request.name);
    if (held) return refuse(slot, request, facts, "tool_held", held);
    if (slot.allTools.some((t) => t.name === request.name))
      return refuse(slot, request, facts, "tool_hidden", `${request.name} is hidden by the allow/deny lists of server "${slot.name}"`);
    return { ok: false, failure: unknownTool(key) };
  }

  const callOnServer = (slot: ServerSlot, request: CallRequest, callOptions: CallOptions = NO_OPTIONS) =>
    send(slot, request, callOptions, undefined, asResponse);

  /**
   * `callTool` up to the send: not async, so a call adds one async frame over the client's, not
   * two, and a plain function with no closure per call (its frames and allocations run interpreted
   * for the first thousands of calls, until V8 optimises them).
   */
  function callTool(
    key: string,
    args: { readonly [key: string]: unknown } = {},
    callOptions: CallOptions = NO_OPTIONS,
  ): Promise<ToolResult<unknown>> {
    try {
      const tool = registry.lookup(key);
      if (!tool) return callUnlisted(key, args, callOptions);
      const slot = slots.get(tool.server);
      if (!slot) return Promise.resolve({ ok: false, failure: unknownTool(key) });
      const request = { name: tool.name, arguments: args };
      // Synchronous once the library is loaded; the first call waits for it to load.
      const issues = validation.checkNow(tool.descriptor.inputSchema, args);
      if (issues === false)
        return validation
          .check(tool.descriptor.inputSchema, args)
          .then((found) => (found ? invalidArguments(found, tool, slot, args) : send(slot, request, callOptions, undefined, asToolResult)));
      if (issues) return Promise.resolve(invalidArguments(issues, tool, slot, args));
      return send(slot, request, callOptions, tool, asToolResult);
    } catch (error) {
      return Promise.reject(error); // as an async function would: a promise, never a throw
    }
  }

  /** A key the registry does not hold: `server.tool` of a configured server still gets the server's answer (held, hidden, unknown). */
  function callUnlisted(key: string, args: { readonly [key: string]: unknown }, callOptions: CallOptions): Promise<ToolResult<unknown>> {
    const dot = key.indexOf(".");
    const slot = dot > 0 ? slots.get(key.slice(0, dot)) : undefined;
    if (!slot) return Promise.resolve({ ok: false, failure: unknownTool(key) });
    return send(slot, { name: key.slice(dot + 1), arguments: args }, callOptions, undefined, asToolResult);
  }

  return {
    callOnServer,
    callTool,
    callerFor(name) {
      let caller = callers.get(name);
      if (!caller) {
        caller = managedCaller(name, slots, controller, registry, callOnServer);
        callers.set(name, caller);
      }
      return caller;
    },
    forget(name) {
      callers.delete(name);
    },
  };
}
