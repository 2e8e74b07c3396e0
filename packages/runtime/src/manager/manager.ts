import { failureFromFault } from "../failure/failure-mapping.js";
import { prototypeFree } from "../schema/prototype-free.js";
import { approveTools, createCallApproval } from "./approval-flow.js";
import { applyConfigToSlots } from "./config-apply.js";
import type { McpConfig, ServerConfig } from "./config-types.js";
import { createCrashAccounting } from "./crash-accounting.js";
import type { ApplySummary, McpManager, McpManagerOptions } from "./manager-types.js";
import { createPrincipalPool } from "./principal-pool.js";
import { createServerCalls } from "./server-calls.js";
import { createSlot, type ServerSlot } from "./server-slot.js";
import { createSlotController, notConfigured, type SlotController } from "./slot-controller.js";
import { createManagerSurface } from "./surface.js";
import { createToolRegistry, runtimeSpecOf } from "./tool-registry.js";
import { lintSlots } from "./trust.js";
import { createArgumentValidator } from "./validation.js";

/** The connected client of server `name` (connecting it first), or a failure naming why there is none. */
async function connectedClient(slots: ReadonlyMap<string, ServerSlot>, controller: SlotController, name: string) {
  const slot = slots.get(name);
  const failed = (message: string) => ({
    ok: false as const,
    failure: failureFromFault({ type: "transport", code: "ECLOSED", message }, { tool: name, server: name }),
  });
  if (!slot) return { ok: false as const, failure: notConfigured(name, { tool: name, server: name }) };
  if (slot.state !== "connected") await controller.connect(slot);
  const client = slot.client;
  if (!client || slot.state !== "connected") return failed(slot.error ?? `server "${name}" is not connected`);
  return { ok: true as const, value: client };
}

/**
 * Creates a manager for a resolved config. Nothing connects until `start()` or a call. With
 * `options.principals` it serves many principals: see `forPrincipal` and docs/guides/many-users.md.
 */
export function createMcpManager(initial: McpConfig, options: McpManagerOptions = {}): McpManager {
  return options.principals ? createPrincipalPool(initial, options, createManagerCore) : createManagerCore(initial, options);
}

/** The manager of one set of servers, for one principal (or none). */
function createManagerCore(initial: McpConfig, options: McpManagerOptions): McpManager {
  let current = initial;
  const slots = new Map<string, ServerSlot>();
  const registry = createToolRegistry();
  const validation = createArgumentValidator(options.validateArguments);
  const closers: (() => void | Promise<void>)[] = [];
  let stopped = false;
  // Config changes apply one after another: two reloads racing would interleave their connects.
  let applying: Promise<unknown> = Promise.resolve();

  for (const [name, config] of Object.entries(initial.mcpServers)) slots.set(name, createSlot(name, config));

  const policyOf = (slot: ServerSlot) => ({
    allowTools: slot.config.allowTools,
    denyTools: slot.config.denyTools,
    collisionPolicy: options.collisionPolicy ?? slot.config.collisionPolicy ?? current.collisionPolicy ?? "prefix-on-collision",
    trusted: slot.config.trusted === true,
  });

  /** Mirrors one server's tools into the runtime registry (one toolset per server), if there is one. */
  function syncRuntime(name: string): void {
    if (!options.registry) return;
    void validation.ready(); // the mirrored specs validate with it once loaded
    const specs = registry.ofServer(name).map((t) => runtimeSpecOf(t, validation.decoderFor));
    options.registry.registerToolset({ toolset: name, specs, caller: calls.callerFor(name) });
  }

  const isStopped = () => stopped;
  // The accounting evicts through the controller, which counts connect failures through the accounting.
  const crash = createCrashAccounting(options, (slot, error, state) => controller.evict(slot, error, state));
  const controller = createSlotController({ slots, registry, options, crash, policyOf, syncRuntime, stopped: isStopped });
  const approval = createCallApproval(options.approve);
  const calls = createServerCalls({ slots, registry, controller, crash, approval, validation, stopped: isStopped });
  const { status } = controller;

  async function apply(next: McpConfig): Promise<ApplySummary> {
    const previous = current;
    current = next;
    const summary = await applyConfigToSlots(
      {
        slots,
        lazy: options.lazy === true,
        connect: controller.connect,
        disconnect: controller.disconnect,
        refilter: (slot) => controller.refilter(slot, slot.allTools),
        forget: (name) => calls.forget(name),
      },
      previous,
      next,
    );
    controller.ensureTimers();
    const nothing = summary.added.length + summary.removed.length + summary.changed.length + summary.updated.length === 0;
    try {
      if (!nothing) options.onConfigApplied?.(summary);
    } catch {
      // listeners must not break reloads
    }
    return summary;
  }

  function serialized<T>(run: () => Promise<T>): Promise<T> {
    const next = applying.then(run);
    applying = next.catch(() => undefined);
    return next;
  }

  return {
    async start() {
      const targets = [...slots.values()].filter((s) => s.config.enabled !== false && s.config.autoStart !== false && !options.lazy);
      // I/O runs in parallel; registration follows config order, so prefix-on-collision is stable.
      let previous: Promise<unknown> = Promise.resolve();
      await Promise.all(
        targets.map((s) => {
          const run = controller.connect(s, previous);
          previous = run;
          return run;
        }),
      );
      controller.ensureTimers();
      return [...slots.values()].map(status);
    },
    async connect(name) {
      const slot = slots.get(name);
      if (!slot) throw new Error(`unknown server "${name}"`);
      if (slot.config.enabled === false) return status(slot);
      crash.reset(slot);
      return controller.connect(slot);
    },
    async disconnect(name) {
      const slot = slots.get(name);
      if (slot) await controller.disconnect(slot, slot.config.enabled === false ? "disabled" : "disconnected");
    },
    ...createManagerSurface({
      servers: () => [...slots.values()].filter((slot) => slot.config.enabled !== false).map((slot) => slot.name),
      surfaceOf: (name) => connectedClient(slots, controller, name),
    }),
    listServers: () => [...slots.values()].map(status),
    getClient: (name) => (slots.has(name) ? calls.callerFor(name) : undefined),
    async refreshTools(name) {
      const slot = slots.get(name);
      if (!slot) return { ok: false, failure: notConfigured(name, { tool: "tools/list", server: name }) };
      return controller.refresh(slot);
    },
    tools: () => registry.all(),
    lint: (lintOptions) => lintSlots(slots.values(), lintOptions),
    heldTools: () => [...slots.values()].flatMap((slot) => slot.held),
    approve: (server, tool) =>
      approveTools(
        {
          store: options.approvals,
          slots,
          connect: (slot) => controller.connect(slot),
          policyOf,
          refilter: (slot) => controller.refilter(slot, slot.allTools),
        },
        server,
        tool,
      ),
    // The call path itself: no wrapper frame per call (`args` defaults to `{}` there).
    callTool: calls.callTool,
    probe: controller.probe,
    reapIdle: controller.reapIdle,
    applyConfig: (next) => serialized(() => apply(next)).then((s) => s.changed),
    async addServer(name, config) {
      const servers = Object.assign(prototypeFree<{ [name: string]: ServerConfig }>({}), current.mcpServers);
      servers[name] = config;
      await serialized(() => apply({ ...current, mcpServers: servers }));
      const slot = slots.get(name) as ServerSlot;
      if (slot.config.enabled !== false && slot.state !== "connected") await controller.connect(slot);
      return status(slot);
    },
    config: () => current,
    onStop(close) {
      closers.push(close);
    },
    forPrincipal: () => Promise.reject(new Error("forPrincipal(): this manager was created without options.principals")),
    livePrincipals: () => 0,
    reapPrincipals: async () => 0,
    async stop() {
      if (stopped) return;
      stopped = true;
      controller.stopTimers();
      await Promise.all(closers.map(async (c) => c()));
      await applying;
      await Promise.all([...slots.values()].map((slot) => controller.disconnect(slot, "disconnected")));
      await controller.drain();
    },
  };
}
