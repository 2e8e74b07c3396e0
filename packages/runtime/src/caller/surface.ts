/**
 * The MCP surface beyond tools, shared by the stdio and HTTP callers: resources, resource
 * templates and prompts paged through every page (cached for the `ttlMs` the 2026-07-28 era sends,
 * dropped on `list_changed`), `resources/read`, subscriptions (legacy `resources/subscribe`, or the
 * `resourceSubscriptions` of `subscriptions/listen` in 2026-07-28), `prompts/get`,
 * `completion/complete` and `logging/setLevel`. Failures are `ToolFailure` values.
 */

import type { ToolFailure } from "../failure/failure.js";
import { failureFromFault, failureFromLocal } from "../failure/failure-mapping.js";
import type { Result } from "../failure/result.js";
import type { RpcNotification } from "../protocol/json-rpc.js";
import type { Session } from "../protocol/mcp-client.js";
import type {
  Completion,
  CompletionReference,
  GetPromptResult,
  LogLevel,
  PromptDescriptor,
  ResourceContents,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
} from "../protocol/mcp-types.js";
import { revisionOf } from "../revisions/registry.js";
import type { CallOptions, SurfaceRequest } from "./call-options.js";
import type { SkillsSurface } from "./skills.js";

/** A surface answer: a `Result`. The name stays because generated clients print it. */
export type SurfaceResult<T> = Result<T>;

/** The lists a server can announce changes of. */
export type ListName = "tools" | "prompts" | "resources";

/** Options for the list methods. */
export interface ListOptions extends CallOptions {
  /** Skip the cache a previous list left (its `ttlMs` not yet elapsed). */
  readonly fresh?: boolean;
}

/** Resources, prompts, completions, logging and skills (SEP-2640) on one server. */
export interface McpSurface extends SkillsSurface {
  listResources(options?: ListOptions): Promise<SurfaceResult<readonly ResourceDescriptor[]>>;
  listResourceTemplates(options?: ListOptions): Promise<SurfaceResult<readonly ResourceTemplateDescriptor[]>>;
  listPrompts(options?: ListOptions): Promise<SurfaceResult<readonly PromptDescriptor[]>>;
  /** `resources/read`: text items carry `text`, binary ones a base64 `blob`. */
  readResource(uri: string, options?: CallOptions): Promise<SurfaceResult<readonly ResourceContents[]>>;
  /** Subscribes to `notifications/resources/updated` for `uri`; `onUpdated` runs for each one. */
  subscribe(uri: string, onUpdated?: (uri: string) => void, options?: CallOptions): Promise<SurfaceResult<void>>;
  unsubscribe(uri: string, options?: CallOptions): Promise<SurfaceResult<void>>;
  getPrompt(name: string, args?: { readonly [name: string]: string }, options?: CallOptions): Promise<SurfaceResult<GetPromptResult>>;
  /** `completion/complete` for a prompt argument or a template variable. */
  complete(
    ref: CompletionReference,
    argument: { readonly name: string; readonly value: string },
    context?: { readonly arguments?: { readonly [name: string]: string } },
    options?: CallOptions,
  ): Promise<SurfaceResult<Completion>>;
  /** `logging/setLevel` (legacy era; 2026-07-28 has no such request). */
  setLogLevel(level: LogLevel, options?: CallOptions): Promise<SurfaceResult<void>>;
}

/** What the surface needs from its caller. */
export interface SurfaceDeps {
  readonly server: string;
  readonly request: SurfaceRequest;
  /** Connects (if not yet) so the era is known. */
  connect(options: CallOptions): Promise<SurfaceResult<void>>;
  /** The live connection (undefined before connecting): its era and the capabilities its server declared. */
  live(): { readonly session: Session | undefined } | undefined;
  /**
   * Makes notifications for these subscriptions arrive: re-opens `subscriptions/listen` with them
   * as `resourceSubscriptions` (modern), or opens the notification stream if it is not (legacy).
   */
  listenTo(uris: readonly string[]): SurfaceResult<void>;
  readonly onListChanged?: ((list: ListName) => void) | undefined;
}

/** The surface's methods (made once, for the caller to hold) and the hook its caller feeds every server notification to. */
export interface SurfaceHandle {
  methods(): McpSurface;
  observe(notification: RpcNotification): void;
}

// Bounds a server whose cursors never end; together with the repeated-cursor check below no list loops forever.
const MAX_PAGES = 1000;
const LIST_CHANGED: { readonly [method: string]: ListName } = {
  "notifications/tools/list_changed": "tools",
  "notifications/prompts/list_changed": "prompts",
  "notifications/resources/list_changed": "resources",
};

/** Creates the surface over a caller's `request`. */
export function createSurface(deps: SurfaceDeps): SurfaceHandle {
  return new Surface(deps);
}

// A class: what only the surface calls lives on the prototype, and just the public methods are
// closures, held by the caller (one set per connection otherwise; docs/performance.md, "Heap").
class Surface implements SurfaceHandle {
  private readonly deps: SurfaceDeps;
  // Both made when first needed: most callers never list prompts or resources, nor subscribe.
  private cache: Map<string, { readonly items: readonly unknown[]; readonly until: number }> | undefined;
  private subscriptions: Map<string, ((uri: string) => void) | undefined> | undefined;
  private skills: Promise<SkillsSurface> | undefined;

  constructor(deps: SurfaceDeps) {
    this.deps = deps;
  }

  methods(): McpSurface {
    const deps = this.deps;
    const readResource = (uri: string, options: CallOptions = {}) =>
      this.call("resources/read", { uri }, options, (r) => (Array.isArray(r.contents) ? (r.contents as ResourceContents[]) : undefined));
    return {
      listSkills: async (options) => (await this.loadSkills(readResource)).listSkills(options),
      getSkill: async (uri, options) => (await this.loadSkills(readResource)).getSkill(uri, options),
      loadSkill: async (skill, options) => (await this.loadSkills(readResource)).loadSkill(skill, options),
      listResources: (options) => this.listAll<ResourceDescriptor>("resources/list", "resources", options),
      listResourceTemplates: (options) =>
        this.listAll<ResourceTemplateDescriptor>("resources/templates/list", "resourceTemplates", options),
      listPrompts: (options) => this.listAll<PromptDescriptor>("prompts/list", "prompts", options),
      readResource,
      getPrompt: (name, args = {}, options = {}) =>
        this.call("prompts/get", { name, arguments: args }, options, (r) =>
          Array.isArray(r.messages) ? (r as unknown as GetPromptResult) : undefined,
        ),
      complete: (ref, argument, context, options = {}) =>
        this.call("completion/complete", { ref, argument, ...(context ? { context } : {}) }, options, (r) =>
          Array.isArray((r.completion as Completion | undefined)?.values) ? (r.completion as Completion) : undefined,
        ),
      setLogLevel: async (level, options = {}) => {
        const answer = await deps.request("logging/setLevel", { level }, options);
        return answer.ok ? { ok: true, value: undefined } : answer;
      },
      subscribe: async (uri, onUpdated, options = {}) => {
        this.subscriptions ??= new Map();
        const had = this.subscriptions.has(uri);
        this.subscriptions.set(uri, onUpdated);
        // Subscribing again only swaps the callback; before any connection the request still has to go out.
        if (had && deps.live()?.session?.era !== undefined) return { ok: true, value: undefined };
        const answer = await this.changeSubscription("resources/subscribe", uri, options);
        // A refused subscription is forgotten, so a later listen does not carry it.
        if (!answer.ok) this.subscriptions?.delete(uri);
        return answer;
      },
      unsubscribe: async (uri, options = {}) => {
        if (!this.subscriptions?.delete(uri)) return { ok: true, value: undefined };
        return this.changeSubscription("resources/unsubscribe", uri, options);
      },
    };
  }

  private malformed(method: string, message: string): { ok: false; failure: ToolFailure } {
    return {
      ok: false,
      failure: failureFromFault(
        { type: "rpc", code: -32603, message: `${method}: ${message}` },
        { tool: method, server: this.deps.server },
      ),
    };
  }

  /** Pages `method` through every page; caches the items for the smallest `ttlMs` of the pages. */
  private async listAll<T>(method: string, key: string, options: ListOptions = {}): Promise<SurfaceResult<readonly T[]>> {
    const hit = this.cache?.get(method);
    if (hit && !options.fresh && hit.until > Date.now()) return { ok: true, value: hit.items as T[] };
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let ttl = Number.POSITIVE_INFINITY;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.deps.request(method, cursor === undefined ? {} : { cursor }, options);
      if (!answer.ok) return answer;
      const result = answer.value as { [k: string]: unknown } | undefined;
      const list = result?.[key];
      if (!Array.isArray(list)) return this.malformed(method, `result has no ${key} array`);
      items.push(...(list as T[]));
      // One page without a ttl (legacy servers send none) makes the whole list uncached.
      ttl = typeof result?.ttlMs === "number" && result.ttlMs >= 0 ? Math.min(ttl, result.ttlMs) : 0;
      const next = result?.nextCursor;
      if (typeof next !== "string" || next === "" || seen.has(next)) break;
      seen.add(next);
      cursor = next;
    }
    if (ttl > 0 && Number.isFinite(ttl)) {
      this.cache ??= new Map();
      this.cache.set(method, { items, until: Date.now() + ttl });
    } else this.cache?.delete(method);
    return { ok: true, value: items };
  }

  private async call<T>(
    method: string,
    params: { readonly [key: string]: unknown },
    options: CallOptions,
    pick: (r: { readonly [key: string]: unknown }) => T | undefined,
  ) {
    const answer = await this.deps.request(method, params, options);
    if (!answer.ok) return answer;
    const value = pick((answer.value ?? {}) as { readonly [key: string]: unknown });
    return value === undefined ? this.malformed(method, "result has an unexpected shape") : ({ ok: true, value } as const);
  }

  // Skills (with their frontmatter parser) load on the first skills call, not with the runtime
  // (docs/performance.md, "Import cost").
  private loadSkills(readResource: McpSurface["readResource"]): Promise<SkillsSurface> {
    const deps = this.deps;
    this.skills ??= import("./skills.js").then(({ createSkills }) =>
      createSkills({
        server: deps.server,
        request: deps.request,
        readResource,
        async capabilities(options) {
          const connected = await deps.connect(options);
          return connected.ok ? { ok: true, value: deps.live()?.session?.handshake.capabilities ?? {} } : connected;
        },
      }),
    );
    return this.skills;
  }

  /** Legacy: one request per change. Modern: the listen request carries the whole set. */
  private async changeSubscription(method: string, uri: string, options: CallOptions): Promise<SurfaceResult<void>> {
    const deps = this.deps;
    const connected = await deps.connect(options);
    if (!connected.ok) return connected;
    const session = deps.live()?.session;
    if (session !== undefined && revisionOf(session).subscriptions === "listen")
      return deps.listenTo([...(this.subscriptions?.keys() ?? [])]);
    const answer = await deps.request(method, { uri }, options);
    if (!answer.ok) return answer;
    return method === "resources/subscribe" ? deps.listenTo([...(this.subscriptions?.keys() ?? [])]) : { ok: true, value: undefined };
  }

  observe(notification: RpcNotification): void {
    const list = LIST_CHANGED[notification.method];
    if (list !== undefined) {
      // The cached list is stale now whatever its ttl said. Tools are not cached here (the core lists them).
      if (list === "prompts") this.cache?.delete("prompts/list");
      if (list === "resources") {
        this.cache?.delete("resources/list");
        this.cache?.delete("resources/templates/list");
      }
      this.deps.onListChanged?.(list);
      return;
    }
    if (notification.method === "notifications/resources/updated") {
      const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri === "string") this.subscriptions?.get(uri)?.(uri);
    }
  }
}

/**
 * A caller that may or may not speak the surface (in-memory and function callers do not); the
 * prompt and resource helpers answer a failure when it does not.
 */
export type MaybeSurface = { readonly server: string } & Partial<Pick<McpSurface, "getPrompt" | "readResource">>;

const unsupported = (caller: MaybeSurface, method: string): { ok: false; failure: ToolFailure } => ({
  ok: false,
  // A local reason, not an invented -32601: the caller has no such method, no server was asked.
  failure: failureFromLocal("tool_unavailable", `${caller.server}: this caller does not offer ${method} (use a stdio or HTTP caller)`, {
    tool: method,
    server: caller.server,
  }),
});

/** `prompts/get` through any caller (generated clients): a caller without prompts gives an `invalid_call` failure. */
export function getPromptVia(
  caller: MaybeSurface,
  name: string,
  args: { readonly [name: string]: string },
  options?: CallOptions,
): Promise<SurfaceResult<GetPromptResult>> {
  return caller.getPrompt ? caller.getPrompt(name, args, options) : Promise.resolve(unsupported(caller, "prompts/get"));
}

/** `resources/read` through any caller (generated clients): a caller without resources gives an `invalid_call` failure. */
export function readResourceVia(
  caller: MaybeSurface,
  uri: string,
  options?: CallOptions,
): Promise<SurfaceResult<readonly ResourceContents[]>> {
  return caller.readResource ? caller.readResource(uri, options) : Promise.resolve(unsupported(caller, "resources/read"));
}
