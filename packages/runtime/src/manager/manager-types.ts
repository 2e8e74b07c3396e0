/**
 * The manager's public shapes: options, the approval hook, the apply summary and the manager itself.
 */

import type { OAuthProviderOptions } from "../auth/oauth-options.js";
import type { TokenStore } from "../auth/token-store.js";
import type { Caller, CallOptions } from "../caller/caller.js";
import type { Principal } from "../caller/principal.js";
import type { ToolResult } from "../caller/tool-spec.js";
import type { LintFinding, LintOptions } from "../catalogue/catalogue-lint.js";
import type { Runtime, RuntimeOptions } from "../core/runtime.js";
import type { Result } from "../failure/result.js";
import type { AuthProvider } from "../transport/auth-provider.js";
import type { ApprovalStore, HeldTool } from "./approval-store.js";
import type { ClientFactoryOptions } from "./client-factory.js";
import type { CollisionPolicy, HttpServerConfig, McpConfig, ServerConfig } from "./config-types.js";
import type { ToolRisk } from "./risk.js";
import type { ServerStatus } from "./server-slot.js";
import type { ManagerSurface } from "./surface.js";
import type { ManagedTool, ToolsDiff } from "./tool-registry.js";
import type { ArgumentValidation } from "./validation.js";

/** What the approval hook sees. */
export interface CallApprovalRequest {
  readonly server: string;
  /** `server.tool`. */
  readonly id: string;
  readonly name: string;
  readonly exposedName: string;
  readonly arguments: { readonly [key: string]: unknown };
  readonly risk: ToolRisk;
}

/**
 * Decides whether a call may run. Servers (or tools) with `autoApprove` skip it. `principal` is the
 * principal the call is made for, when it was made for one (a shared server's call through
 * `forPrincipal`).
 */
export type ApprovalHook = (request: CallApprovalRequest, principal?: Principal) => boolean | Promise<boolean>;

/** What `applyConfig` did. */
export interface ApplySummary {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Servers reconnected because command, args, env, cwd, url, headers or era changed. */
  readonly changed: readonly string[];
  /** Servers whose other settings (filters, timeouts, enabled...) were updated in place. */
  readonly updated: readonly string[];
}

/** Options for `createMcpManager`. */
export interface McpManagerOptions {
  /** A runtime registry that mirrors the manager's tools, one toolset per server. */
  readonly registry?: Runtime;
  /** Called when a server's exposed tools change (list_changed, reconnect, filter change). */
  readonly onChange?: (server: string, diff: ToolsDiff) => void;
  readonly approve?: ApprovalHook;
  /** Called after `applyConfig` (or a watched reload) changed something. */
  readonly onConfigApplied?: (summary: ApplySummary) => void;
  /** Overrides the config's collision policy. Default `prefix-on-collision`. */
  readonly collisionPolicy?: CollisionPolicy;
  /** Connect nothing in `start()`; every server connects on its first call. */
  readonly lazy?: boolean;
  /** Quiet period before a `list_changed` refresh. Default 100 ms. */
  readonly listChangedDebounceMs?: number;
  /** How often the idle reaper looks. Default 1000 ms. */
  readonly reapIntervalMs?: number;
  /** Probe every connected server this often (0 = never). Default 0. */
  readonly probeIntervalMs?: number;
  /** Health probe timeout when the server sets none. Default 5000 ms. */
  readonly probeTimeoutMs?: number;
  /** Consecutive crashes after which a server is not restarted until `connect(name)`. Default 5. */
  readonly maxRestarts?: number;
  /**
   * Argument checks against each tool's live `inputSchema` before sending: `"auto"` (default) uses
   * `ajv` (an optional peer, loaded on first use) when installed and otherwise leaves it to the
   * server; `"off"`; or a compiler you pass in.
   */
  readonly validateArguments?: ArgumentValidation;
  /** Client knobs (stdio grace and restart backoff, HTTP client factory). */
  readonly client?: Omit<ClientFactoryOptions, "onNotification">;
  /**
   * Trust on first use: tools whose fingerprint differs from the approved one (and, under
   * `newTools: "hold"`, tools never approved) are held back from the model until approved.
   */
  readonly approvals?: ApprovalStore;
  /**
   * Serve many principals (users): the servers not listed as shared connect per principal through
   * `forPrincipal(principal)`; the manager itself then holds only the shared servers.
   */
  readonly principals?: PrincipalOptions;
}

/** The manager: tools, and resources, templates and prompts under namespaced names (`ManagerSurface`). */
export interface McpManager extends ManagerSurface {
  /** Connects every enabled autoStart server in parallel; one failure never blocks the others. */
  start(): Promise<readonly ServerStatus[]>;
  connect(name: string): Promise<ServerStatus>;
  disconnect(name: string): Promise<void>;
  listServers(): readonly ServerStatus[];
  /** A client for one server that goes through the pool (lazy connect, filters, approval). */
  getClient(name: string): Caller | undefined;
  refreshTools(name: string): Promise<Result<ToolsDiff>>;
  /** Every exposed tool. */
  tools(): readonly ManagedTool[];
  /** Runs the poisoning lint on every connected server's live catalogue (held tools included) and its instructions. */
  lint(options?: LintOptions): readonly LintFinding[];
  /** Tools held back by the approval store (changed since approved, or new under `hold`). */
  heldTools(): readonly HeldTool[];
  /**
   * Approves the listed tools of `server` (every server when omitted; only `tool` when given) at
   * their current fingerprints, writes the store and exposes them. Returns the approved ids.
   */
  approve(server?: string, tool?: string): Promise<readonly string[]>;
  /** Calls a tool by id (`server.tool`) or exposed name. Never throws. */
  callTool(tool: string, args?: { readonly [key: string]: unknown }, options?: CallOptions): Promise<ToolResult<unknown>>;
  /** Health-checks one server (ping on legacy, `tools/list` on 2026); a dead connection is evicted. */
  probe(name: string): Promise<Result<void>>;
  /** Closes connections idle longer than their `idleTimeoutMs`; returns the server names. */
  reapIdle(): Promise<readonly string[]>;
  /** Applies a new config; reconnects only servers whose connection fields changed and returns them. */
  applyConfig(next: McpConfig): Promise<readonly string[]>;
  /** Adds one server (used by `mcp_register`) and connects it unless it is lazy or disabled. */
  addServer(name: string, config: ServerConfig): Promise<ServerStatus>;
  /** The config currently applied. */
  config(): McpConfig;
  /** Closes every connection, timer and watcher. */
  stop(): Promise<void>;
  /** Registers something `stop()` must close (config watchers). */
  onStop(close: () => void | Promise<void>): void;
  /**
   * The manager of one principal (built on first use, then kept in an LRU pool): rejects on a
   * manager created without `principals`, and for a malformed principal.
   */
  forPrincipal(principal: Principal): Promise<PrincipalManager>;
  /** How many principals have a manager open now (at most `maxPrincipals` beyond calls in flight). */
  livePrincipals(): number;
  /** Closes the managers of principals idle longer than `idleMs`; returns how many. */
  reapPrincipals(): Promise<number>;
}

/**
 * How a manager partitions everything by principal. Every server NOT listed in `sharedServers` gets
 * its own connection per principal (a stdio server its own process, an HTTP server its own session
 * and token); a shared server has one connection for everybody and never sees a per-user secret:
 * `configFor`, `authFor` and `tokenStoreFor` are not asked about it.
 */
export interface PrincipalOptions {
  /** Most principals with open connections at once; the least recently used is closed first. Default 1000. */
  readonly maxPrincipals?: number;
  /** A principal unused this long (ms) has its connections closed by the reaper. Default 600000; 0 never. */
  readonly idleMs?: number;
  /** How often the reaper looks, ms. Default 30000. */
  readonly reapIntervalMs?: number;
  /** Clock in ms for recency and idleness; injectable for tests. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Servers one connection may serve for every principal. Only servers holding no per-user secret
   * belong here: their entry is used as written, with no principal's env, args, headers or token.
   */
  readonly sharedServers?: readonly string[];
  /**
   * One principal's entry for one server: the place to add that user's env, args or headers
   * (secrets from the application's per-user source). Default: the entry as written.
   */
  readonly configFor?: (principal: Principal, server: string, config: ServerConfig) => ServerConfig | Promise<ServerConfig>;
  /** The auth provider of one principal's connection to one HTTP server. Wins over `tokenStoreFor`. */
  readonly authFor?: (principal: Principal, server: string, config: HttpServerConfig) => AuthProvider | undefined;
  /**
   * The principal's token store (a vault row set, a file per user...): each HTTP server then gets
   * `createOAuthProvider({ ...oauthFor(...), serverUrl: config.url, store })`.
   */
  readonly tokenStoreFor?: (principal: Principal) => TokenStore;
  /**
   * OAuth options of one principal's provider (grant, client, handler). Default: no interactive
   * flow (a principal without a stored grant fails `auth_required`; authorize them out of band).
   */
  readonly oauthFor?: (principal: Principal, server: string, config: HttpServerConfig) => Omit<OAuthProviderOptions, "store" | "serverUrl">;
  /** The principal's approval store (trust on first use), loaded once when its manager is built. */
  readonly approvalsFor?: (principal: Principal) => ApprovalStore | Promise<ApprovalStore>;
  /** Decides whether one call of one principal may run (the per-principal `approve` hook). */
  readonly approve?: (principal: Principal, request: CallApprovalRequest) => boolean | Promise<boolean>;
  /** Drift of a per-principal server (list_changed, reconnect), reported to that principal only. */
  readonly onChange?: (principal: Principal, server: string, diff: ToolsDiff) => void;
  /** Options of each principal's own runtime registry (`PrincipalManager.runtime`), e.g. telemetry. */
  readonly runtime?: RuntimeOptions;
}

/**
 * One principal's manager: every call, session, token, discovery result, approval, drift report and
 * held tool is that principal's. Get one per request from `forPrincipal`; it stays valid after the
 * pool closed it for idleness (the next call reopens), but its `tools()` are empty until then.
 */
export interface PrincipalManager extends McpManager {
  readonly principal: Principal;
  /** A registry mirroring this principal's tools (shared servers' tools included): hand it to a provider adapter. */
  readonly runtime: Runtime & { readonly principal: Principal };
}
