/**
 * A manager for many principals (users). The manager itself holds only the servers declared shared;
 * every other server connects per principal, inside that principal's own manager (its own slots,
 * sessions, tokens, approvals, tool registry and drift reports), so nothing of one principal can
 * reach another through a shared map. The per-principal managers live in an LRU pool bounded by
 * `maxPrincipals`, and an idle reaper closes those unused for `idleMs`. Neither ever closes a
 * principal with a call in flight: the bound is exceeded for as long as every older principal is
 * busy, which is better than failing a user's call halfway.
 *
 * Hand-written rather than an LRU library: the runtime has no dependencies, and the pool must know
 * about in-flight calls, which no general cache does.
 */
import { createOAuthProvider } from "../auth/oauth-provider.js";
import type { Caller } from "../caller/caller.js";
import { type Principal, principalKey } from "../caller/principal.js";
import { createRuntime, type Runtime } from "../core/runtime.js";
import { prototypeFree } from "../schema/prototype-free.js";
import type { AuthProvider } from "../transport/auth-provider.js";
import type { HttpServerConfig, McpConfig, ServerConfig } from "./config-types.js";
import type { McpManager, McpManagerOptions, PrincipalManager, PrincipalOptions } from "./manager-types.js";
import { runtimeSpecOf } from "./tool-registry.js";

/** Builds a plain manager (the manager without principals): passed in, so this file imports no manager.ts. */
export type CreateManagerCore = (config: McpConfig, options: McpManagerOptions) => McpManager;

interface Entry {
  readonly principal: Principal;
  ready: Promise<PrincipalManager>;
  lastUsed: number;
  /** Calls in flight (and the build itself, while it runs). */
  inFlight: number;
  /** Out of the pool: new calls reopen the principal; the manager stops once no call is in flight. */
  closed: boolean;
  stopped?: Promise<void>;
}

type Servers = { [name: string]: ServerConfig };

/** The servers of `config` that `keep` accepts, in a prototype-free map. */
function serversWhere(config: McpConfig, keep: (name: string) => boolean): Servers {
  const out = prototypeFree<Servers>({});
  for (const [name, entry] of Object.entries(config.mcpServers)) if (keep(name)) out[name] = entry;
  return out;
}

/** A principal manager refuses to nest: a principal's calls are made for that principal only. */
const nested = () => Promise.reject(new Error("forPrincipal(): this is already one principal's manager"));

/** The OAuth provider of one principal's connection to one HTTP server, or none. */
function authOf(p: PrincipalOptions, principal: Principal, server: string, config: HttpServerConfig): AuthProvider | undefined {
  if (p.authFor) return p.authFor(principal, server, config);
  if (!p.tokenStoreFor) return undefined;
  return createOAuthProvider({
    // No interactive flow by default: a backend cannot open a browser for a user who is not there.
    authorizationHandler: () =>
      Promise.reject(new Error(`server "${server}" needs this principal's authorization: store their grant first`)),
    ...p.oauthFor?.(principal, server, config),
    serverUrl: config.url,
    store: p.tokenStoreFor(principal),
  });
}

/** Creates the many-principal manager over `createCore`. */
export function createPrincipalPool(initial: McpConfig, options: McpManagerOptions, createCore: CreateManagerCore): McpManager {
  const p = options.principals as PrincipalOptions;
  const now = p.now ?? Date.now;
  const max = Math.max(1, Math.floor(p.maxPrincipals ?? 1000));
  const idleMs = p.idleMs ?? 600_000;
  const shared = new Set(p.sharedServers ?? []);
  const { principals: _principals, ...baseOptions } = options;
  // What a principal's manager inherits: knobs, not the shared servers' hooks and listeners.
  const { approve: _a, onChange: _c, approvals: _s, onConfigApplied: _o, registry: _r, ...inherited } = baseOptions;
  const checkShared = (config: McpConfig) => {
    for (const name of shared)
      if (!Object.hasOwn(config.mcpServers, name)) throw new Error(`principals.sharedServers: unknown server "${name}"`);
  };
  checkShared(initial);
  let current = initial;
  const sharedPart = (config: McpConfig): McpConfig => ({ ...config, mcpServers: serversWhere(config, (n) => shared.has(n)) });
  const base = createCore(sharedPart(initial), baseOptions);
  const pool = new Map<string, Entry>();
  let reaper: ReturnType<typeof setInterval> | undefined;
  let stopped = false;

  function stopWhenIdle(entry: Entry): void {
    if (entry.inFlight > 0 || entry.stopped) return;
    entry.stopped = entry.ready.then((m) => m.stop()).catch(() => undefined);
  }

  function close(entry: Entry): void {
    entry.closed = true;
    const key = entry.principal.id;
    if (pool.get(key) === entry) pool.delete(key);
    stopWhenIdle(entry);
  }

  async function track<T>(entry: Entry, run: () => Promise<T>): Promise<T> {
    entry.inFlight++;
    entry.lastUsed = now();
    try {
      return await run();
    } finally {
      entry.inFlight--;
      entry.lastUsed = now();
      if (entry.closed) stopWhenIdle(entry);
    }
  }

  /** The principal's runtime as handed out: every call counts as use, carries the principal, and reopens a closed principal. */
  function trackedRuntime(entry: Entry, runtime: Runtime): Runtime & { readonly principal: Principal } {
    return {
      principal: entry.principal,
      registerToolset: (registration) => runtime.registerToolset(registration),
      lookup: (tool) => runtime.lookup(tool),
      specs: () => runtime.specs(),
      async execute(request, callOptions) {
        if (entry.closed) return (await forPrincipal(entry.principal)).runtime.execute(request, callOptions);
        return track(entry, () => runtime.execute(request, { ...callOptions, principal: entry.principal }));
      },
      get policy() {
        return runtime.policy;
      },
      usage: () => runtime.usage(),
      resetRun: () => runtime.resetRun(),
    };
  }

  /** Shared servers' tools, registered in a principal's runtime as they are now (their calls go to the one shared connection). */
  function mirrorShared(runtime: Runtime): void {
    for (const name of shared) {
      const caller: Caller | undefined = base.getClient(name);
      const specs = base
        .tools()
        .filter((t) => t.server === name)
        .map((t) => runtimeSpecOf(t));
      if (caller && specs.length > 0) runtime.registerToolset({ toolset: name, specs, caller });
    }
  }

  async function build(entry: Entry): Promise<PrincipalManager> {
    const { principal } = entry;
    const servers = prototypeFree<Servers>({});
    for (const [name, config] of Object.entries(serversWhere(current, (n) => !shared.has(n)))) {
      servers[name] = p.configFor ? await p.configFor(principal, name, config) : config;
    }
    const approvals = p.approvalsFor ? await p.approvalsFor(principal) : undefined;
    const runtime = createRuntime(p.runtime ?? {});
    const { approve, onChange } = p;
    const own = createCore(
      { ...current, mcpServers: servers },
      {
        ...inherited,
        registry: runtime,
        client: { ...inherited.client, authFor: (server, config) => authOf(p, principal, server, config) },
        ...(approve ? { approve: (request) => approve(principal, request) } : {}),
        ...(onChange ? { onChange: (server, diff) => onChange(principal, server, diff) } : {}),
        ...(approvals ? { approvals } : {}),
      },
    );
    // Connected before the manager is handed out, so a provider adapter built on `runtime` lists
    // the principal's tools at once (`lazy: true` leaves every server to its first call instead).
    if (!inherited.lazy) await own.start();
    mirrorShared(runtime);
    const viaShared = (tool: string) => {
      const dot = tool.indexOf(".");
      if (dot > 0 && shared.has(tool.slice(0, dot))) return true;
      return !own.tools().some((t) => t.exposedName === tool) && base.tools().some((t) => t.exposedName === tool);
    };
    const manager: PrincipalManager = {
      ...own,
      principal,
      runtime: trackedRuntime(entry, runtime),
      async callTool(tool, args, callOptions) {
        if (entry.closed) return (await forPrincipal(principal)).callTool(tool, args, callOptions);
        const target = viaShared(tool) ? base : own;
        return track(entry, () => target.callTool(tool, args, { ...callOptions, principal }));
      },
      tools: () => [...base.tools(), ...own.tools()],
      listServers: () => [...base.listServers(), ...own.listServers()],
      getClient: (name) => (shared.has(name) ? base.getClient(name) : own.getClient(name)),
      forPrincipal: nested,
      livePrincipals: () => 1,
      reapPrincipals: async () => 0,
    };
    return manager;
  }

  /** Closes the least recently used idle principals beyond the bound; resolves once they are closed. */
  function evictOverflow(fresh: Entry): Promise<unknown> {
    const closing: Promise<void>[] = [];
    for (const entry of pool.values()) {
      if (pool.size <= max) break;
      if (entry === fresh || entry.inFlight > 0) continue;
      close(entry);
      if (entry.stopped) closing.push(entry.stopped);
    }
    return Promise.all(closing);
  }

  function ensureReaper(): void {
    if (reaper || idleMs <= 0 || stopped) return;
    reaper = setInterval(() => void reapPrincipals(), p.reapIntervalMs ?? 30_000);
    reaper.unref?.();
  }

  function forPrincipal(principal: Principal): Promise<PrincipalManager> {
    let key: string;
    try {
      key = principalKey(principal);
    } catch (error) {
      return Promise.reject(error);
    }
    if (stopped) return Promise.reject(new Error("forPrincipal(): the manager is stopped"));
    const known = pool.get(key);
    if (known) {
      // Recency: a Map iterates in insertion order, so re-inserting moves the principal to the end.
      pool.delete(key);
      pool.set(key, known);
      known.lastUsed = now();
      return known.ready;
    }
    // A copy: a caller mutating its object later cannot move this pool entry to another user.
    const own: Principal = Object.freeze(principal.label === undefined ? { id: key } : { id: key, label: principal.label });
    const entry: Entry = { principal: own, ready: Promise.resolve() as never, lastUsed: now(), inFlight: 1, closed: false };
    pool.set(key, entry);
    // The evicted principals' connections (and processes) close before this one opens its own:
    // the bound holds for resources, not only for map entries.
    const evicted = evictOverflow(entry);
    entry.ready = evicted
      .then(() => build(entry))
      .finally(() => {
        entry.inFlight--;
        if (entry.closed) stopWhenIdle(entry);
      });
    entry.ready.catch(() => close(entry));
    ensureReaper();
    return entry.ready;
  }

  async function reapPrincipals(): Promise<number> {
    const at = now();
    const idle = [...pool.values()].filter((e) => idleMs > 0 && e.inFlight === 0 && at - e.lastUsed >= idleMs);
    for (const entry of idle) close(entry);
    await Promise.all(idle.map((e) => e.stopped));
    return idle.length;
  }

  function closeAll(): Promise<unknown> {
    const all = [...pool.values()];
    for (const entry of all) close(entry);
    return Promise.all(all.map((e) => e.stopped));
  }

  return {
    ...base,
    forPrincipal,
    livePrincipals: () => pool.size,
    reapPrincipals,
    config: () => current,
    async applyConfig(next) {
      checkShared(next);
      current = next;
      // Principals rebuild from the new config on their next call; busy ones once their calls end.
      void closeAll();
      return base.applyConfig(sharedPart(next));
    },
    async addServer(name, config) {
      if (!shared.has(name))
        throw new Error(`addServer("${name}"): only shared servers can be added to a many-principal manager; use applyConfig`);
      current = { ...current, mcpServers: { ...current.mcpServers, [name]: config } };
      return base.addServer(name, config);
    },
    async stop() {
      stopped = true;
      if (reaper) clearInterval(reaper);
      await closeAll();
      // Closes still waiting for a call in flight finish with it; the shared servers close now.
      await base.stop();
    },
  };
}
