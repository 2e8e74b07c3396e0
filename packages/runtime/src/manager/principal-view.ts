/**
 * One principal's manager, as the pool builds it: the config entries with that principal's secrets
 * (`configFor`), its auth per HTTP server (`authFor`, or an OAuth provider over `tokenStoreFor`), its
 * approvals, its own runtime registry (the shared servers' tools kept current in it by the
 * shared mirror), and routing of shared servers' tools to the one shared connection. The pool (`principal-pool.ts`) decides when one is built and closed.
 */
import { createOAuthProvider } from "../auth/oauth-provider.js";
import type { Principal } from "../caller/principal.js";
import { createRuntime, type Runtime } from "../core/runtime.js";
import type { ToolFailure } from "../failure/failure.js";
import { prototypeFree } from "../schema/prototype-free.js";
import type { AuthProvider } from "../transport/auth-provider.js";
import type { HttpServerConfig, McpConfig, ServerConfig } from "./config-types.js";
import type { McpManager, McpManagerOptions, PrincipalManager, PrincipalOptions } from "./manager-types.js";
import type { SharedMirror } from "./shared-mirror.js";

/** Builds a plain manager (the manager without principals): passed in, so nothing here imports manager.ts. */
export type CreateManagerCore = (config: McpConfig, options: McpManagerOptions) => McpManager;

/** One principal's place in the pool. */
export interface Entry {
  readonly principal: Principal;
  ready: Promise<PrincipalManager>;
  lastUsed: number;
  /** Calls in flight (and the build itself, while it runs). */
  inFlight: number;
  /** Out of the pool: new calls reopen the principal; the manager stops once no call is in flight. */
  closed: boolean;
  stopped?: Promise<void>;
  /** Stops the principal's own manager (set once it is built). */
  stopOwn?: () => Promise<void>;
}

/** Server entries by name. */
export type Servers = { [name: string]: ServerConfig };

/** The servers of `config` that `keep` accepts, in a prototype-free map. */
export function serversWhere(config: McpConfig, keep: (name: string) => boolean): Servers {
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

/** What building a principal's manager needs from the pool. */
export interface BuildContext {
  readonly p: PrincipalOptions;
  readonly shared: ReadonlySet<string>;
  /** The manager of the shared servers. */
  readonly base: McpManager;
  /** The shared servers' tools, kept current in every attached principal's runtime. */
  readonly mirror: SharedMirror;
  /** The options a principal's manager inherits (knobs, not the shared servers' hooks). */
  readonly inherited: McpManagerOptions;
  readonly createCore: CreateManagerCore;
  readonly current: () => McpConfig;
  /** Counts a call as use of the principal while it runs. */
  readonly track: <T>(entry: Entry, run: () => Promise<T>) => Promise<T>;
  /** The principal's manager now (a closed one is rebuilt). */
  readonly reopen: (principal: Principal) => Promise<PrincipalManager>;
  /** Takes the principal out of the pool; its manager stops once no call is in flight. */
  readonly close: (entry: Entry) => void;
}

/**
 * Why a tool of one of the principal's own servers is not in its registry: that server is not
 * connected. It is connected again now (the user may have renewed the grant: then the tool is there,
 * undefined); if that fails for want of the user's authorization, the answer is that `auth_required`
 * failure, naming the server, instead of "no tool named ...": a run made for a user whose grant was
 * revoked is told what to ask the user for.
 */
async function whyUnavailable(own: McpManager, servers: Servers, tool: string): Promise<ToolFailure | undefined> {
  const dot = tool.indexOf(".");
  const server = dot > 0 ? tool.slice(0, dot) : "";
  if (!Object.hasOwn(servers, server)) return undefined;
  const now = own.listServers().find((s) => s.name === server);
  if (!now || now.connected || !now.enabled) return undefined;
  const after = await own.connect(server);
  return after.connected || !after.authFailure ? undefined : { ...after.authFailure, tool };
}

/** The principal's runtime as handed out: every call counts as use, carries the principal, and reopens a closed principal. */
function trackedRuntime(
  ctx: BuildContext,
  entry: Entry,
  runtime: Runtime,
  unavailable: (tool: string) => Promise<ToolFailure | undefined>,
): Runtime & { readonly principal: Principal } {
  return {
    principal: entry.principal,
    registerToolset: (registration) => runtime.registerToolset(registration),
    lookup: (tool) => runtime.lookup(tool),
    specs: () => runtime.specs(),
    unavailable,
    async execute(request, callOptions) {
      if (entry.closed) return (await ctx.reopen(entry.principal)).runtime.execute(request, callOptions);
      // Handed to the registry as a rejection, so it counts in the run's usage like any failed call.
      const why = request.rejection || runtime.lookup(request.tool) ? undefined : await unavailable(request.tool);
      const asked = why ? { ...request, rejection: why } : request;
      return ctx.track(entry, () => runtime.execute(asked, { ...callOptions, principal: entry.principal }));
    },
    get policy() {
      return runtime.policy;
    },
    usage: () => runtime.usage(),
    resetRun: () => runtime.resetRun(),
  };
}

/** Builds one principal's manager: its entries (with its secrets), approvals, runtime and connections. */
export async function buildPrincipalManager(ctx: BuildContext, entry: Entry): Promise<PrincipalManager> {
  const { principal } = entry;
  const { p, shared, base, inherited, createCore } = ctx;
  const current = ctx.current();
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
  // The shared servers' tools, now and as they change (a list_changed reaches every principal).
  const detach = ctx.mirror.attach(principal, runtime);
  entry.stopOwn = () => {
    detach();
    return own.stop();
  };
  // Connected before the manager is handed out, so a provider adapter built on `runtime` lists
  // the principal's tools at once (`lazy: true` leaves every server to its first call instead).
  if (!inherited.lazy) await own.start();
  const viaShared = (tool: string) => {
    const dot = tool.indexOf(".");
    if (dot > 0 && shared.has(tool.slice(0, dot))) return true;
    return !own.tools().some((t) => t.exposedName === tool) && base.tools().some((t) => t.exposedName === tool);
  };
  const manager: PrincipalManager = {
    ...own,
    principal,
    runtime: trackedRuntime(ctx, entry, runtime, (tool) => whyUnavailable(own, servers, tool)),
    async callTool(tool, args, callOptions) {
      if (entry.closed) return (await ctx.reopen(principal)).callTool(tool, args, callOptions);
      const target = viaShared(tool) ? base : own;
      return ctx.track(entry, () => target.callTool(tool, args, { ...callOptions, principal }));
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
