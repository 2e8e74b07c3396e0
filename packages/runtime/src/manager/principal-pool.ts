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
import { type Principal, principalKey } from "../caller/principal.js";
import type { McpConfig } from "./config-types.js";
import type {
  ApprovalHook,
  McpManager,
  McpManagerOptions,
  McpManagerOptions as Options,
  PrincipalManager,
  PrincipalOptions,
} from "./manager-types.js";
import { type BuildContext, buildPrincipalManager, type CreateManagerCore, type Entry, serversWhere } from "./principal-view.js";
import { createSharedMirror, type SharedMirror } from "./shared-mirror.js";
import type { ToolsDiff } from "./tool-registry.js";

export type { CreateManagerCore } from "./principal-view.js";

/**
 * The shared servers' manager options: it mirrors into the shared mirror (so every principal's
 * runtime follows its tools), its drift is told to the application's `onChange` and to every live
 * principal's, and a principal's call is approved by the application's `approve` and by that
 * principal's (both must say yes).
 */
function sharedServersOptions(options: Options, p: PrincipalOptions, mirror: SharedMirror): Options {
  const { approve: top, onChange: told } = options;
  const per = p.approve;
  const perChange = p.onChange;
  const onChange = (server: string, diff: ToolsDiff) => {
    told?.(server, diff);
    for (const principal of mirror.principals()) {
      try {
        perChange?.(principal, server, diff);
      } catch {
        // One principal's listener failing must not keep the others from hearing of it.
      }
    }
  };
  const approve: ApprovalHook | undefined =
    top || per
      ? async (request, principal) => {
          if (top && (await top(request, principal)) !== true) return false;
          return per && principal ? (await per(principal, request)) === true : true;
        }
      : undefined;
  return { ...options, registry: mirror.registry, onChange, ...(approve ? { approve } : {}) };
}

/** Refuses a config without one of the shared servers, naming it. */
function checkShared(shared: ReadonlySet<string>, config: McpConfig): void {
  for (const name of shared)
    if (!Object.hasOwn(config.mcpServers, name)) throw new Error(`principals.sharedServers: unknown server "${name}"`);
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
  checkShared(shared, initial);
  let current = initial;
  const sharedPart = (config: McpConfig): McpConfig => ({ ...config, mcpServers: serversWhere(config, (n) => shared.has(n)) });
  const mirror = createSharedMirror(baseOptions.registry);
  const base = createCore(sharedPart(initial), sharedServersOptions(baseOptions, p, mirror));
  const pool = new Map<string, Entry>();
  let reaper: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  const context: BuildContext = {
    p,
    shared,
    base,
    mirror,
    inherited,
    createCore,
    current: () => current,
    track: (entry, run) => track(entry, run),
    reopen: (principal) => forPrincipal(principal),
    close: (entry) => close(entry),
  };

  function stopWhenIdle(entry: Entry): void {
    if (entry.inFlight > 0 || entry.stopped) return;
    entry.stopped = entry.ready.then(() => entry.stopOwn?.()).catch(() => undefined);
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
      .then(() => buildPrincipalManager(context, entry))
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
      checkShared(shared, next);
      current = next;
      // Principals rebuild from the new config on their next call; busy ones once their calls end.
      void closeAll();
      return base.applyConfig(sharedPart(next));
    },
    async addServer(name, config) {
      if (!shared.has(name))
        throw new Error(`addServer("${name}"): only shared servers can be added to a many-principal manager; use applyConfig`);
      current = { ...current, mcpServers: { ...serversWhere(current, () => true), [name]: config } };
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
