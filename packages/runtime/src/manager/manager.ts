/**
 * `createMcpManager`: many MCP servers behind one registry. Connects in parallel with per-server
 * isolation, refreshes on `list_changed`, applies config changes selectively, and runs a small pool
 * (lazy connect, health probe, idle reaper, crash restart with a cap).
 */
import type { Caller, CallOptions, CallRequest, CallResponse } from "../caller/caller.js";
import type { McpSurface } from "../caller/surface.js";
import { resultFromCall } from "../core/invoke.js";
import { toolUnavailable } from "../core/tool-request.js";
import { type FailureReason, redactFailure, type ToolFailure } from "../failure/failure.js";
import {
  type FailureContext,
  failureFromFault,
  failureFromInvalidInput,
  failureFromLocal,
  messageWithoutServer,
} from "../failure/failure-mapping.js";
import type { RpcNotification } from "../protocol/json-rpc.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import type { WireFault } from "../protocol/wire-fault.js";
import { prototypeFree } from "../schema/prototype-free.js";
import { createServerClient, type ServerClient } from "./client-factory.js";
import { applyConfigToSlots } from "./config-apply.js";
import type { McpConfig, ServerConfig } from "./config-types.js";
import type { ApplySummary, McpManager, McpManagerOptions } from "./manager-types.js";
import { probeSlot, reapIdleSlots } from "./pool.js";
import { createSlot, idleTimeoutOf, type ServerSlot, type ServerStatus, statusOf } from "./server-slot.js";
import { createManagerSurface } from "./surface.js";
import { createToolRegistry, type ManagedTool, runtimeSpecOf, type ToolsDiff } from "./tool-registry.js";
import { approveSlot, gateListing, heldMessage, heldWarnings, lintSlots } from "./trust.js";
import { createArgumentValidator } from "./validation.js";

const fault = (message: string, code = "ECLOSED"): WireFault => ({ type: "transport", code, message });

/** A server name the config does not hold: a local reason, no server was asked. */
const notConfigured = (name: string, context: FailureContext) =>
  failureFromLocal("server_not_configured", `${name}: server "${name}" is not configured`, context);

/** Creates a manager for a resolved config. Nothing connects until `start()` or a call. */
export function createMcpManager(initial: McpConfig, options: McpManagerOptions = {}): McpManager {
  let current = initial;
  const slots = new Map<string, ServerSlot>();
  const registry = createToolRegistry();
  const validation = createArgumentValidator(options.validateArguments);
  const callers = new Map<string, Caller>();
  const closers: (() => void | Promise<void>)[] = [];
  let stopped = false;
  let reaper: ReturnType<typeof setInterval> | undefined;
  let prober: ReturnType<typeof setInterval> | undefined;
  let applying: Promise<unknown> = Promise.resolve();
  const maxRestarts = options.maxRestarts ?? 5;
  const baseDelay = options.client?.restartDelayMs ?? 100;
  const maxDelay = options.client?.maxRestartDelayMs ?? 5000;

  for (const [name, config] of Object.entries(initial.mcpServers)) slots.set(name, createSlot(name, config));

  const policyOf = (slot: ServerSlot) => ({
    allowTools: slot.config.allowTools,
    denyTools: slot.config.denyTools,
    collisionPolicy: options.collisionPolicy ?? slot.config.collisionPolicy ?? current.collisionPolicy ?? "prefix-on-collision",
    trusted: slot.config.trusted === true,
  });
  const status = (slot: ServerSlot) => statusOf(slot, registry.ofServer(slot.name).length);

  const gate = (slot: ServerSlot, tools: readonly ToolDescriptor[]) => gateListing(options.approvals, slot, tools, policyOf(slot));

  function syncRuntime(name: string): void {
    if (!options.registry) return;
    void validation.ready(); // the mirrored specs validate with it once loaded
    const specs = registry.ofServer(name).map((t) => runtimeSpecOf(t, validation.decoderFor));
    options.registry.registerToolset({ toolset: name, specs, caller: clientFor(name) });
  }

  function notifyChange(name: string, diff: ToolsDiff): void {
    if (diff.added.length + diff.removed.length + diff.changed.length === 0) return;
    try {
      options.onChange?.(name, diff);
    } catch {
      // A throwing listener must not break the manager.
    }
  }

  /** Clients being closed after a failure; stop() waits for them. */
  const closing = new Set<Promise<void>>();

  /**
   * Drops a slot's client. A deliberate eviction (`error` undefined: disconnect, idle) waits until
   * it is closed. A failure answers at once: a call's deadline must not wait for a process that
   * ignores SIGTERM to be killed, so that close goes on in the background and stop() waits for it.
   */
  async function evict(slot: ServerSlot, error: string | undefined, state: ServerSlot["state"]): Promise<void> {
    const client = slot.client;
    slot.client = undefined;
    slot.generation++;
    slot.state = state;
    slot.error = error;
    if (!client) return;
    const tail = client.stderrTail?.();
    if (error !== undefined && tail) slot.stderrTail = tail;
    const done = client.close().catch(() => undefined);
    if (error === undefined) return done;
    const tracked = done.finally(() => closing.delete(tracked));
    closing.add(tracked);
  }

  function onNotification(slot: ServerSlot, generation: number, notification: RpcNotification): void {
    if (notification.method !== "notifications/tools/list_changed" || slot.generation !== generation || stopped) return;
    if (slot.refreshTimer) clearTimeout(slot.refreshTimer);
    slot.refreshTimer = setTimeout(() => {
      slot.refreshTimer = undefined;
      void refresh(slot);
    }, options.listChangedDebounceMs ?? 100);
    slot.refreshTimer.unref?.();
  }

  function ensureTimers(): void {
    if (stopped) return;
    if (!reaper && [...slots.values()].some((s) => idleTimeoutOf(s.config) !== undefined)) {
      reaper = setInterval(() => void reapIdle(), options.reapIntervalMs ?? 1000);
      reaper.unref?.();
    }
    if (!prober && (options.probeIntervalMs ?? 0) > 0) {
      prober = setInterval(() => {
        for (const slot of slots.values()) if (slot.state === "connected") void probe(slot.name);
      }, options.probeIntervalMs);
      prober.unref?.();
    }
  }

  /** Connects one server. `registerAfter` orders registration (not I/O) so names are deterministic. */
  function connectSlot(slot: ServerSlot, registerAfter?: Promise<unknown>): Promise<ServerStatus> {
    if (slot.connecting) return slot.connecting;
    const started = performance.now();
    let connected: number | undefined;
    // A failed connect keeps its durations too: a slow failure is worth seeing.
    const fail = async (message: string, stderrTail?: string) => {
      const now = performance.now();
      await evict(slot, message, "failed");
      if (stderrTail) slot.stderrTail = stderrTail;
      const connectMs = (connected ?? now) - started;
      slot.durations = { connectMs, listToolsMs: connected === undefined ? 0 : now - connected, totalMs: now - started };
      // Automatic reconnects back off (and stop after maxRestarts) so a broken server is not respawned per call.
      slot.connectFailures++;
      slot.retryAt = Date.now() + Math.min(baseDelay * 2 ** (slot.connectFailures - 1), maxDelay);
      if (slot.connectFailures > maxRestarts) slot.gaveUp = true;
      return status(slot);
    };
    slot.connecting = (async (): Promise<ServerStatus> => {
      if (stopped) return status(slot);
      slot.state = "connecting";
      slot.gaveUp = false;
      if (!slot.client) {
        const generation = ++slot.generation;
        try {
          slot.client = createServerClient(slot.name, slot.config, {
            ...options.client,
            onNotification: (n) => onNotification(slot, generation, n),
          });
        } catch (error) {
          return fail((error as Error).message);
        }
      }
      const client = slot.client;
      const handshake = await client.connect();
      if (slot.client !== client) return status(slot);
      if (!handshake.ok) {
        const failure = failureFromFault(handshake.fault, { tool: "initialize", server: slot.name });
        return fail(messageWithoutServer(failure), failure.stderrTail);
      }
      connected = performance.now();
      const listed = await client.listTools(slot.config.requestTimeoutMs ? { timeoutMs: slot.config.requestTimeoutMs } : {});
      const listedAt = performance.now();
      if (slot.client !== client) return status(slot);
      if (!listed.ok) return fail(`tools/list failed: ${messageWithoutServer(listed.failure)}`);
      if (registerAfter) await registerAfter;
      if (slot.client !== client || stopped) return status(slot);
      const outcome = registry.replace(slot.name, gate(slot, listed.tools), policyOf(slot), true);
      if (!outcome.ok) {
        registry.remove(slot.name);
        syncRuntime(slot.name);
        return fail(outcome.message);
      }
      announceMoves(outcome.moved);
      const warnings = [...outcome.warnings, ...heldWarnings(slot)];
      // "0 tools" must not pass silently as success.
      if (listed.tools.length === 0) warnings.push("the server lists no tools");
      else if (outcome.hidden === listed.tools.length) warnings.push("allowTools/denyTools hide every tool of this server");
      Object.assign(slot, {
        allTools: listed.tools,
        hidden: outcome.hidden,
        warnings,
        state: "connected",
        error: undefined,
        stderrTail: undefined,
        connectedAt: new Date(),
        lastUsed: Date.now(),
        durations: { connectMs: connected - started, listToolsMs: listedAt - connected, totalMs: listedAt - started },
        connectFailures: 0,
        retryAt: 0,
      });
      syncRuntime(slot.name);
      notifyChange(slot.name, outcome.diff);
      ensureTimers();
      return status(slot);
    })()
      .catch((error: unknown) => fail(`connect failed: ${(error as Error).message}`))
      .finally(() => {
        slot.connecting = undefined;
      });
    return slot.connecting;
  }

  async function refresh(slot: ServerSlot): Promise<{ ok: true; diff: ToolsDiff } | { ok: false; failure: ToolFailure }> {
    const client = slot.client;
    if (!client || slot.state !== "connected") {
      const before = new Set(registry.ofServer(slot.name).map((t) => t.name));
      const after = await connectSlot(slot);
      if (!after.connected)
        return { ok: false, failure: failureFromFault(fault(after.error ?? "not connected"), { tool: "tools/list", server: slot.name }) };
      const now = registry.ofServer(slot.name).map((t) => t.name);
      return {
        ok: true,
        diff: { added: now.filter((n) => !before.has(n)), removed: [...before].filter((n) => !now.includes(n)), changed: [] },
      };
    }
    const listed = await client.listTools(slot.config.requestTimeoutMs ? { timeoutMs: slot.config.requestTimeoutMs } : {});
    if (!listed.ok) {
      if (listed.failure.kind === "unavailable" && slot.client === client)
        await evict(slot, messageWithoutServer(listed.failure), "failed");
      return listed;
    }
    if (slot.client !== client) return { ok: true, diff: { added: [], removed: [], changed: [] } };
    return { ok: true, diff: refilter(slot, listed.tools) };
  }

  /** Another server's sanitized tool gave its exposed name back to a real one: its registry and listeners learn of it. */
  function announceMoves(moved: readonly { readonly server: string; readonly name: string }[]): void {
    for (const server of new Set(moved.map((m) => m.server))) {
      syncRuntime(server);
      notifyChange(server, { added: [], removed: [], changed: moved.filter((m) => m.server === server).map((m) => m.name) });
    }
  }

  function refilter(slot: ServerSlot, tools: ServerSlot["allTools"]): ToolsDiff {
    const outcome = registry.replace(slot.name, gate(slot, tools), policyOf(slot), false);
    if (!outcome.ok) return { added: [], removed: [], changed: [] };
    announceMoves(outcome.moved);
    slot.allTools = tools;
    slot.hidden = outcome.hidden;
    slot.warnings = [...outcome.warnings, ...heldWarnings(slot)];
    syncRuntime(slot.name);
    notifyChange(slot.name, outcome.diff);
    return outcome.diff;
  }

  async function disconnectSlot(slot: ServerSlot, state: ServerSlot["state"]): Promise<void> {
    if (slot.refreshTimer) clearTimeout(slot.refreshTimer);
    slot.refreshTimer = undefined;
    const pending = slot.connecting;
    // Evict first: a connect still under way sees its client replaced and registers nothing.
    await evict(slot, undefined, state);
    if (pending) await pending;
    slot.state = state;
    slot.error = undefined;
    const removed = registry.remove(slot.name);
    syncRuntime(slot.name);
    if (removed.length > 0) notifyChange(slot.name, { added: [], removed, changed: [] });
    slot.allTools = [];
    slot.hidden = 0;
    slot.held = [];
  }

  async function callOnServer(slot: ServerSlot, request: CallRequest, callOptions: CallOptions = {}): Promise<CallResponse> {
    const context = { tool: `${slot.name}.${request.name}`, server: slot.name, input: request.arguments };
    const fail = (f: WireFault): CallResponse => ({ ok: false, failure: failureFromFault(f, context) });
    const refuse = (reason: FailureReason, message: string): CallResponse => ({
      ok: false,
      failure: failureFromLocal(reason, `${slot.name}: ${message}`, context),
    });
    if (stopped) return refuse("manager_stopped", "the manager is stopped");
    if (slot.config.enabled === false) return refuse("server_disabled", `server "${slot.name}" is disabled`);
    if (slot.gaveUp) {
      const message = `server "${slot.name}" is not restarted any more (${slot.error ?? "failed"}); call connect("${slot.name}") to try again`;
      return fail({ type: "transport", code: "EXIT", message, ...(slot.stderrTail ? { stderrTail: slot.stderrTail } : {}) });
    }
    if (slot.state !== "connected" || !slot.client) {
      const wait = slot.retryAt - Date.now();
      if (slot.state === "failed" && wait > 0 && !slot.connecting) {
        const message = `${slot.error ?? "connect failed"} (next attempt in ${wait} ms)`;
        return fail({ type: "transport", code: "EXIT", message, ...(slot.stderrTail ? { stderrTail: slot.stderrTail } : {}) });
      }
      const after = await connectSlot(slot);
      if (!after.connected) {
        return fail({
          type: "transport",
          code: "EXIT",
          message: after.error ?? "not connected",
          ...(after.stderrTail ? { stderrTail: after.stderrTail } : {}),
        });
      }
    }
    const tool = registry.lookup(context.tool);
    if (!tool) {
      const listed = slot.allTools.some((t) => t.name === request.name);
      const held = heldMessage(slot, request.name);
      if (held) return refuse("tool_held", held);
      if (listed) return refuse("tool_hidden", `${request.name} is hidden by the allow/deny lists of server "${slot.name}"`);
      // As the runtime does: the closest names the model could use instead.
      return {
        ok: false,
        failure: toolUnavailable(
          context.tool,
          registry.all().map((t) => runtimeSpecOf(t)),
        ),
      };
    }
    if (!autoApproved(slot, tool) && !(await approved(slot, tool, request.arguments)))
      return refuse("not_approved", `call to ${tool.id} was not approved`);
    const client = slot.client;
    if (!client) return fail(fault(`server "${slot.name}" was disconnected`));
    slot.inFlight++;
    slot.lastUsed = Date.now();
    const timeout = callOptions.timeoutMs ?? slot.config.requestTimeoutMs;
    try {
      const response = await client.callTool(request, timeout === undefined ? callOptions : { ...callOptions, timeoutMs: timeout });
      const f = response.ok ? undefined : response.failure;
      if (!f) slot.crashes = 0;
      else if (f.source === "transport" && f.kind === "unavailable" && slot.config.transport === "http") {
        // The HTTP connection itself broke (refused, reset): drop it so the next call builds a new one.
        if (slot.client === client) await evict(slot, messageWithoutServer(f), "failed");
      } else if (f.source === "transport" && f.exitCode !== undefined && slot.client === client) {
        // The process died under this call; the stdio client restarts it (with backoff) on the next one.
        // Every call in flight fails in the same turn of the event loop: count the crash once.
        if (slot.crashCounted) return { ok: false, failure: { ...f, tool: context.tool } };
        slot.crashCounted = true;
        setImmediate(() => {
          slot.crashCounted = false;
        });
        slot.crashes++;
        if (slot.crashes > maxRestarts) {
          slot.gaveUp = true;
          await evict(slot, `crashed ${slot.crashes} times in a row; not restarting until connect()`, "failed");
        }
      }
      return response.ok ? response : { ok: false, failure: { ...response.failure, tool: context.tool } };
    } finally {
      slot.inFlight--;
      slot.lastUsed = Date.now();
    }
  }

  /** True when no approval hook needs asking (checked before awaiting one, so most calls skip the hop). */
  function autoApproved(slot: ServerSlot, tool: ManagedTool): boolean {
    const auto = slot.config.autoApprove;
    return auto === true || (Array.isArray(auto) && auto.includes(tool.name)) || !options.approve;
  }

  async function approved(slot: ServerSlot, tool: ManagedTool, args: CallRequest["arguments"]): Promise<boolean> {
    if (autoApproved(slot, tool) || !options.approve) return true;
    try {
      return (
        (await options.approve({
          server: slot.name,
          id: tool.id,
          name: tool.name,
          exposedName: tool.exposedName,
          arguments: args,
          risk: tool.risk,
        })) === true
      );
    } catch {
      return false;
    }
  }

  function clientFor(name: string): Caller {
    let caller = callers.get(name);
    if (!caller) {
      caller = {
        server: name,
        callTool: async (request, callOptions) => {
          const slot = slots.get(name);
          if (!slot) return { ok: false, failure: notConfigured(name, { tool: request.name, server: name, input: request.arguments }) };
          return callOnServer(slot, request, callOptions);
        },
        listTools: async () => {
          const slot = slots.get(name);
          if (slot && slot.state !== "connected") await connectSlot(slot);
          if (slot?.state !== "connected") {
            return { ok: false, failure: failureFromFault(fault(slot?.error ?? "not connected"), { tool: "tools/list", server: name }) };
          }
          return { ok: true, tools: registry.ofServer(name).map((t) => t.descriptor) };
        },
      };
      callers.set(name, caller);
    }
    return caller;
  }

  async function probe(name: string): Promise<{ ok: boolean; failure?: ToolFailure }> {
    const slot = slots.get(name);
    return slot ? probeSlot(slot, options.probeTimeoutMs ?? 5000, evict) : { ok: false };
  }

  const reapIdle = () => reapIdleSlots([...slots.values()], evict);

  async function apply(next: McpConfig): Promise<ApplySummary> {
    const previous = current;
    current = next;
    const summary = await applyConfigToSlots(
      {
        slots,
        lazy: options.lazy === true,
        connect: connectSlot,
        disconnect: disconnectSlot,
        refilter: (slot) => refilter(slot, slot.allTools),
        forget: (name) => callers.delete(name),
      },
      previous,
      next,
    );
    ensureTimers();
    const nothing = summary.added.length + summary.removed.length + summary.changed.length + summary.updated.length === 0;
    try {
      if (!nothing) options.onConfigApplied?.(summary);
    } catch {
      // listeners must not break reloads
    }
    return summary;
  }

  return {
    async start() {
      const targets = [...slots.values()].filter((s) => s.config.enabled !== false && s.config.autoStart !== false && !options.lazy);
      // I/O runs in parallel; registration follows config order, so prefix-on-collision is stable.
      let previous: Promise<unknown> = Promise.resolve();
      await Promise.all(
        targets.map((s) => {
          const run = connectSlot(s, previous);
          previous = run;
          return run;
        }),
      );
      ensureTimers();
      return [...slots.values()].map(status);
    },
    async connect(name) {
      const slot = slots.get(name);
      if (!slot) throw new Error(`unknown server "${name}"`);
      if (slot.config.enabled === false) return status(slot);
      slot.crashes = 0;
      slot.connectFailures = 0;
      slot.retryAt = 0;
      return connectSlot(slot);
    },
    async disconnect(name) {
      const slot = slots.get(name);
      if (slot) await disconnectSlot(slot, slot.config.enabled === false ? "disabled" : "disconnected");
    },
    ...createManagerSurface({
      servers: () => [...slots.values()].filter((slot) => slot.config.enabled !== false).map((slot) => slot.name),
      surfaceOf: async (name) => {
        const slot = slots.get(name);
        const failed = (message: string) => ({
          ok: false as const,
          failure: failureFromFault(fault(message), { tool: name, server: name }),
        });
        if (!slot) return { ok: false as const, failure: notConfigured(name, { tool: name, server: name }) };
        if (slot.state !== "connected") await connectSlot(slot);
        const client = slot.client as (ServerClient & Partial<McpSurface>) | undefined;
        if (!client || slot.state !== "connected") return failed(slot.error ?? `server "${name}" is not connected`);
        if (typeof client.listPrompts !== "function") return failed(`the client of server "${name}" has no resources or prompts`);
        return { ok: true, value: client as McpSurface };
      },
    }),
    listServers: () => [...slots.values()].map(status),
    getClient: (name) => (slots.has(name) ? clientFor(name) : undefined),
    async refreshTools(name) {
      const slot = slots.get(name);
      if (!slot) return { ok: false, failure: notConfigured(name, { tool: "tools/list", server: name }) };
      return refresh(slot);
    },
    tools: () => registry.all(),
    lint: (lintOptions) => lintSlots(slots.values(), lintOptions),
    heldTools: () => [...slots.values()].flatMap((slot) => slot.held),
    async approve(server, tool) {
      if (!options.approvals) throw new Error("approve(): the manager has no approval store (pass options.approvals)");
      const targets = server === undefined ? [...slots.values()] : [slots.get(server)].filter((s): s is ServerSlot => s !== undefined);
      if (server !== undefined && targets.length === 0) throw new Error(`unknown server "${server}"`);
      const done: string[] = [];
      for (const slot of targets) {
        if (slot.state !== "connected") await connectSlot(slot);
        done.push(...approveSlot(options.approvals, slot, tool, policyOf(slot)));
        refilter(slot, slot.allTools);
      }
      return done;
    },
    async callTool(key, args = {}, callOptions = {}) {
      let tool = registry.lookup(key);
      const dot = key.indexOf(".");
      const slot = tool ? slots.get(tool.server) : dot > 0 ? slots.get(key.slice(0, dot)) : undefined;
      if (!slot)
        return {
          ok: false,
          failure: toolUnavailable(
            key,
            registry.all().map((t) => runtimeSpecOf(t)),
          ),
        };
      const name = tool ? tool.name : key.slice(dot + 1);
      if (tool) {
        const issues = await validation.check(tool.descriptor.inputSchema, args);
        if (issues) return { ok: false, failure: failureFromInvalidInput(issues, args, undefined, { tool: tool.id, server: slot.name }) };
      }
      const response = await callOnServer(slot, { name, arguments: args }, callOptions);
      tool = registry.lookup(`${slot.name}.${name}`);
      // The same result mapping as every typed call: isError, malformed shapes, redaction.
      if (!response.ok) return { ok: false, failure: redactFailure(response.failure) };
      return resultFromCall({ id: tool?.id ?? `${slot.name}.${name}` }, slot.name, response.result, args);
    },
    probe,
    reapIdle,
    applyConfig(next) {
      const run = applying.then(() => apply(next));
      applying = run.catch(() => undefined);
      return run.then((s) => s.changed);
    },
    async addServer(name, config) {
      const servers = Object.assign(prototypeFree<{ [name: string]: ServerConfig }>({}), current.mcpServers);
      servers[name] = config;
      const run = applying.then(() => apply({ ...current, mcpServers: servers }));
      applying = run.catch(() => undefined);
      await run;
      const slot = slots.get(name) as ServerSlot;
      if (slot.config.enabled !== false && slot.state !== "connected") await connectSlot(slot);
      return status(slot);
    },
    config: () => current,
    onStop(close) {
      closers.push(close);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (reaper) clearInterval(reaper);
      if (prober) clearInterval(prober);
      await Promise.all(closers.map(async (c) => c()));
      await applying;
      await Promise.all([...slots.values()].map((slot) => disconnectSlot(slot, "disconnected")));
      while (closing.size > 0) await Promise.all([...closing]);
    },
  };
}
