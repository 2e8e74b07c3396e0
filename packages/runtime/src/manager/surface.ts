/**
 * The manager's view of resources, templates and prompts across its servers, under namespaced
 * names: prompts as `server.prompt`, resources and templates tagged with their server. Each server
 * is reached through its own session caller; one failing server never hides the others.
 */
import type { CallOptions } from "../caller/caller.js";
import type { McpSurface, SurfaceResult } from "../caller/surface.js";
import type { ToolFailure } from "../failure/failure.js";
import { failureFromLocal } from "../failure/failure-mapping.js";
import type {
  GetPromptResult,
  PromptDescriptor,
  ResourceContents,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
} from "../protocol/mcp-types.js";

/** A prompt of one managed server; `id` is `server.prompt`. */
export type ManagedPrompt = PromptDescriptor & { readonly id: string; readonly server: string };
/** A resource of one managed server. */
export type ManagedResource = ResourceDescriptor & { readonly server: string };
/** A resource template of one managed server. */
export type ManagedResourceTemplate = ResourceTemplateDescriptor & { readonly server: string };

/** What an aggregated list returns: every server's items, and the failures of servers that could not answer. */
export interface ManagedList<T> {
  readonly items: readonly T[];
  readonly failures: readonly { readonly server: string; readonly failure: ToolFailure }[];
}

/** The manager's surface methods. */
export interface ManagerSurface {
  listPrompts(options?: CallOptions): Promise<ManagedList<ManagedPrompt>>;
  /** Gets `server.prompt`. */
  getPrompt(id: string, args?: { readonly [name: string]: string }, options?: CallOptions): Promise<SurfaceResult<GetPromptResult>>;
  listResources(options?: CallOptions): Promise<ManagedList<ManagedResource>>;
  listResourceTemplates(options?: CallOptions): Promise<ManagedList<ManagedResourceTemplate>>;
  readResource(server: string, uri: string, options?: CallOptions): Promise<SurfaceResult<readonly ResourceContents[]>>;
}

/** How the manager hands out a connected server's surface. */
export interface ManagerSurfaceDeps {
  /** Enabled servers, in config order. */
  servers(): readonly string[];
  /** The connected session caller of a server, or a failure (unknown, disabled, could not connect, no surface). */
  surfaceOf(server: string): Promise<SurfaceResult<McpSurface>>;
}

/** Creates the manager's surface. */
export function createManagerSurface(deps: ManagerSurfaceDeps): ManagerSurface {
  async function gather<T, U>(
    list: (surface: McpSurface) => Promise<SurfaceResult<readonly T[]>>,
    tag: (server: string, item: T) => U,
  ): Promise<ManagedList<U>> {
    const answers = await Promise.all(
      deps.servers().map(async (server) => {
        const surface = await deps.surfaceOf(server);
        return { server, answer: surface.ok ? await list(surface.value) : surface };
      }),
    );
    const items: U[] = [];
    const failures: { server: string; failure: ToolFailure }[] = [];
    for (const { server, answer } of answers) {
      if (answer.ok) for (const item of answer.value) items.push(tag(server, item));
      else failures.push({ server, failure: answer.failure });
    }
    return { items, failures };
  }

  return {
    listPrompts: (options) =>
      gather(
        (s) => s.listPrompts(options),
        (server, p) => ({ ...p, id: `${server}.${p.name}`, server }),
      ),
    listResources: (options) =>
      gather(
        (s) => s.listResources(options),
        (server, r) => ({ ...r, server }),
      ),
    listResourceTemplates: (options) =>
      gather(
        (s) => s.listResourceTemplates(options),
        (server, t) => ({ ...t, server }),
      ),
    async getPrompt(id, args, options) {
      const dot = id.indexOf(".");
      const server = dot > 0 ? id.slice(0, dot) : "";
      if (!deps.servers().includes(server)) {
        const message = `unknown prompt ${JSON.stringify(id)}: expected server.prompt with a configured server`;
        // No server was asked: the local tool_unavailable reason (was an invented -32602; same kind and action).
        return { ok: false, failure: failureFromLocal("tool_unavailable", message, { tool: id, server }) };
      }
      const surface = await deps.surfaceOf(server);
      return surface.ok ? surface.value.getPrompt(id.slice(dot + 1), args, options) : surface;
    },
    async readResource(server, uri, options) {
      const surface = await deps.surfaceOf(server);
      return surface.ok ? surface.value.readResource(uri, options) : surface;
    },
  };
}
