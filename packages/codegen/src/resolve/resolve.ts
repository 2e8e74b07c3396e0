/**
 * `resolveDesign`: checks a design once and builds the read-only IR. All validation lives here
 * (names, duplicates, schemas, refs, providers, subsets), so emitters can trust what they read.
 */
import { basename, dirname } from "node:path";
import {
  type DesignDecl,
  toJsonSchema as dslToJsonSchema,
  type ExternalServerDecl,
  type JsonSchema,
  type McpServerDecl,
  type ToolDecl,
  type ToolsetDecl,
} from "@toolwright/dsl";
import { type FingerprintedTool, fingerprintCatalogue } from "@toolwright/runtime/catalogue";
import { camelName, pascalName, providerNames } from "../emit/names.js";
import { DesignError } from "../errors.js";
import type { IrConnection, IrDesign, IrMcpServer, IrTool, IrToolset } from "../ir/ir.js";
import { resolveAgents } from "./agents.js";
import { resolveConnection } from "./connection.js";
import { type LockFile, lockPathFor, readLock, toolFromListing } from "./lock.js";
import { LockError } from "./lock-shape.js";
import { surfaceFromLock } from "./lock-surface.js";
import { createAjv } from "./schema.js";
import { serverNames, serverSymbols } from "./symbols.js";
import { type Ctx, type Origin, resolveToolset } from "./toolset.js";

/** Options for `resolveDesign`. */
export interface ResolveOptions {
  /** Design file label (relative to cwd) used in headers and errors. */
  readonly file: string;
  /** Absolute design path; needed to find the lock file for live catalogues. */
  readonly designPath?: string;
  /** The DSL instance's `toJsonSchema` that built the design (see `LoadedDesign`). */
  readonly toJsonSchema?: ((schema: unknown) => JsonSchema) | undefined;
  /** Working directory: paths in generated callers are relative to it. Default `process.cwd()`. */
  readonly cwd?: string;
}

/** The IR is frozen once built; only the resolver fills in fields it computes after the fact (provider names). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The lock file as the user knows it: next to the design's label (`designs/app.lock.json`). */
function lockLabel(file: string, designPath: string): string {
  const name = basename(lockPathFor(designPath));
  const dir = dirname(file);
  return dir === "." ? name : `${dir}/${name}`;
}

/** Resolves and validates a design. Throws `DesignError` on the first problem. */
export function resolveDesign(design: DesignDecl, options: ResolveOptions): IrDesign {
  const file = options.file;
  const ajv = createAjv();
  const toJson = options.toJsonSchema ?? (dslToJsonSchema as (schema: unknown) => JsonSchema);
  // Toolsets name their server (fromMCP("x")): two servers of one name would make that ambiguous.
  const servers = new Map<string, McpServerDecl | ExternalServerDecl>();
  for (const server of design.servers ?? []) {
    if (servers.has(server.name)) throw new DesignError({ file, server: server.name }, "duplicate server name");
    servers.set(server.name, server);
  }
  // The lock is read on first need, once: a design with only inline toolsets needs no lock file, and
  // a broken lock is reported at the first toolset that reads it. null: not read yet; undefined: no
  // design path, so no lock to read.
  let lock: LockFile | undefined | null = null;
  const getLock = (): LockFile | undefined => {
    if (lock !== null) return lock;
    if (options.designPath === undefined) {
      lock = undefined;
      return lock;
    }
    // A malformed lock is the lock's problem (LockError names the file, server, tool and field), not the design's.
    lock = readLock(options.designPath, lockLabel(file, options.designPath));
    return lock;
  };

  // One connection per external server, however many toolsets use it. The mcp.json files they came
  // from are inputs of the generation (an edited entry changes the generated caller, so the cache
  // must not serve the old output), sorted so the list is stable.
  const configFiles = new Set<string>();
  const connections = new Map<string, IrConnection>();
  const connectionOf = (name: string): IrConnection | undefined => {
    const server = servers.get(name);
    if (server?.kind !== "external-server") return undefined;
    let found = connections.get(name);
    if (!found) {
      const made = resolveConnection(server, { file, designPath: options.designPath, cwd: options.cwd ?? process.cwd() });
      if (made.configFile) configFiles.add(made.configFile);
      found = made.connection;
      connections.set(name, found);
    }
    return found;
  };

  const toolsets: IrToolset[] = [];
  const byName = new Map<string, IrToolset>();
  const dirs = new Map<string, string>();
  const pascals = new Map<string, string>();
  for (const decl of design.toolsets) {
    const loc = { file, toolset: decl.name };
    if (typeof decl.name !== "string" || decl.name === "") throw new DesignError({ file }, "a toolset has an empty name");
    if (byName.has(decl.name)) throw new DesignError(loc, "duplicate toolset name");
    const { tools, ...origin } = catalogueOf(decl, servers, getLock, file, options.designPath);
    const ts = resolveToolset(decl, tools, { ...origin, connection: connectionOf(origin.server) }, { ajv, file, toJson });
    // Distinct names can map to one folder or identifier ("my-tools" and "my_tools"); generating both
    // would overwrite one toolset's files with the other's, so that is an error naming both.
    for (const [map, key, what] of [
      [dirs, ts.dirName, "output folder"],
      [pascals, ts.pascalName, "identifier"],
    ] as const) {
      const other = map.get(key);
      if (other !== undefined)
        throw new DesignError(loc, `its ${what} ${JSON.stringify(key)} collides with toolset ${JSON.stringify(other)}`);
      map.set(key, decl.name);
    }
    byName.set(decl.name, ts);
    toolsets.push(ts);
  }
  if (dirs.has("agents") && design.agents.length > 0) {
    throw new DesignError({ file, toolset: dirs.get("agents")! }, 'the output folder "agents" is reserved for agent modules');
  }

  // Provider names are unique across the whole design, not per toolset: one agent may hand tools of
  // several toolsets to one model, and a provider rejects two tools of one name.
  const all = toolsets.flatMap((t) => t.tools as Mutable<IrTool>[]);
  const names = providerNames(all.map((t) => ({ id: t.id, toolset: t.toolset.name, name: t.name })));
  all.forEach((t, i) => {
    t.providerName = names[i]!;
  });

  const agents = resolveAgents(design.agents ?? [], byName, file);
  const mcpServers = resolveMcpServers([...servers.values()], { ajv, file, toJson });
  // Frozen: plugins read one IR in turn, so none may change what the next one sees.
  return Object.freeze({
    kind: "design",
    file,
    toolsets: Object.freeze(toolsets),
    agents: Object.freeze(agents),
    mcpServers: Object.freeze(mcpServers),
    configFiles: Object.freeze([...configFiles].sort()),
  });
}

/**
 * Where a toolset's tools come from, and what drift is judged against: written inline
 * (fromExternalMCP: no lock, no fingerprint), served by a server this design implements
 * (fromMCP of an mcpServer: its tools), or pulled from a live server (fromMCP of an external
 * server: the lock's listing, with the design's overrides).
 */
function catalogueOf(
  decl: ToolsetDecl,
  servers: Map<string, McpServerDecl | ExternalServerDecl>,
  getLock: () => LockFile | undefined,
  file: string,
  designPath: string | undefined,
): { tools: readonly ToolDecl[] } & Origin {
  const loc = { file, toolset: decl.name };
  const provider = decl.provider;
  if (provider?.kind === "external-mcp")
    return { tools: decl.tools, source: "inline", server: provider.server, fingerprint: undefined, toolFingerprints: undefined };
  if (provider?.kind !== "mcp") throw new DesignError(loc, "provider must be fromExternalMCP(...) or fromMCP(...)");
  const server = servers.get(provider.server);
  if (!server) {
    throw new DesignError(
      loc,
      `fromMCP(${JSON.stringify(provider.server)}) refers to a server that is not declared in the design's servers`,
    );
  }
  if (server.kind === "mcp-server")
    return {
      tools: [...server.tools, ...decl.tools],
      source: "mcp-server",
      server: server.name,
      fingerprint: undefined,
      toolFingerprints: undefined,
      // The client of a server the design implements reads what the server serves, plus the toolset's own.
      surface: {
        prompts: [...(server.prompts ?? []), ...(decl.prompts ?? [])],
        resources: [...(server.resources ?? []), ...(decl.resources ?? [])],
        resourceTemplates: [...(server.resourceTemplates ?? []), ...(decl.resourceTemplates ?? [])],
      },
    };
  const lockName = designPath === undefined ? "the design's lock file" : lockPathFor(designPath).split(/[\\/]/).pop()!;
  const entry = getLock()?.servers[server.name];
  if (!entry) {
    throw new DesignError(loc, `missing lock for server ${JSON.stringify(server.name)} in ${lockName}; run \`toolwright pull ${file}\``);
  }
  // A tool the design declares replaces the pulled one of that name (sharper types, an example);
  // the toolset's own declaration wins over the server's, being more specific.
  const overrides = new Map([...server.overrides, ...decl.tools].map((t) => [t.name, t]));
  const tools = entry.tools.map((raw, i) => {
    try {
      const pulled = toolFromListing(raw, i);
      return overrides.get(pulled.name) ?? pulled;
    } catch (error) {
      throw new LockError(
        designPath === undefined ? lockName : lockLabel(file, designPath),
        { server: server.name, field: `tools[${i}]` },
        error instanceof Error ? error.message : String(error),
      );
    }
  });
  // An override of a tool the server does not list would generate nothing: most likely a typo.
  const pulledNames = new Set(tools.map((t) => t.name));
  for (const o of overrides.values()) {
    if (!pulledNames.has(o.name)) throw new DesignError({ ...loc, tool: o.name }, "overrides a tool the pulled catalogue does not have");
  }
  // Drift is judged against what the server listed at pull time, so overrides do not change these.
  const listed = entry.tools.filter((t): t is FingerprintedTool => typeof (t as { name?: unknown })?.name === "string");
  // null: the server sent none (checked); absent from an older lock: not checked.
  const instructions = typeof entry.instructions === "string" ? entry.instructions : entry.instructions === null ? null : undefined;
  const computed = fingerprintCatalogue(listed, {
    ...(typeof instructions === "string" ? { instructions } : {}),
    prompts: entry.prompts,
    resources: entry.resources,
    resourceTemplates: entry.resourceTemplates,
  });
  // The listing as pulled, per tool, for the drift report's field-by-field diff. Tool names come from
  // a server: "__proto__" must be a key like any other.
  const snapshots: { [tool: string]: unknown } = Object.create(null);
  for (const t of listed) snapshots[t.name] = t;
  const pulled = surfaceFromLock(entry);
  // A prompt, resource or template the toolset declares replaces the pulled one of the same name or URI.
  const merge = <T>(from: readonly T[] | undefined, own: readonly T[] | undefined, key: (item: T) => string) => {
    const mine = new Set((own ?? []).map(key));
    return [...(from ?? []).filter((item) => !mine.has(key(item))), ...(own ?? [])];
  };
  return {
    tools,
    source: "lock",
    server: server.name,
    // Recomputed, not read: an edited lock cannot carry a fingerprint that does not match its entries.
    fingerprint: computed.fingerprint,
    toolFingerprints: computed.tools,
    ...(instructions === undefined ? {} : { instructions }),
    snapshots,
    surface: {
      prompts: merge(pulled.surface.prompts, decl.prompts, (p) => p.name),
      resources: merge(pulled.surface.resources, decl.resources, (r) => r.uri),
      resourceTemplates: merge(pulled.surface.resourceTemplates, decl.resourceTemplates, (t) => t.uriTemplate),
    },
    ...(pulled.fingerprints ? { surfaceFingerprints: pulled.fingerprints } : {}),
  };
}

/**
 * The servers this design implements (mcpServer). Each is resolved as a toolset over its own tools,
 * so the server side gets the same schema, identifier and validator checks as a client, and both
 * ends of a round trip agree on every name.
 */
function resolveMcpServers(decls: readonly (McpServerDecl | ExternalServerDecl)[], ctx: Ctx): IrMcpServer[] {
  const out: IrMcpServer[] = [];
  const dirs = new Map<string, string>();
  for (const server of decls) {
    if (server.kind !== "mcp-server") continue;
    const named = { name: server.name, pascalName: pascalName(server.name) };
    const { dir } = serverNames(named);
    const clash = dirs.get(dir);
    if (clash !== undefined)
      throw new DesignError(
        { file: ctx.file, server: server.name },
        `its output folder ${dir} collides with server ${JSON.stringify(clash)}; rename one`,
      );
    dirs.set(dir, server.name);
    const pseudo = {
      kind: "toolset",
      name: server.name,
      provider: { kind: "mcp", server: server.name },
      tools: server.tools,
      prompts: server.prompts,
      resources: server.resources,
      resourceTemplates: server.resourceTemplates,
    } as const;
    let ts: IrToolset;
    try {
      ts = resolveToolset(
        pseudo as unknown as ToolsetDecl,
        server.tools,
        { source: "mcp-server", server: server.name, fingerprint: undefined, toolFingerprints: undefined, dirName: dir },
        ctx,
      );
    } catch (error) {
      // Report the problem against the server declaration, not the pseudo toolset.
      if (!(error instanceof DesignError)) throw error;
      const { toolset: _toolset, ...rest } = error.location;
      throw new DesignError({ ...rest, server: server.name }, error.problem, { cause: error });
    }
    // Per server: a served server's tools reach a model only through that server.
    const names = providerNames(ts.tools.map((t) => ({ id: t.id, toolset: ts.name, name: t.name })));
    ts.tools.forEach((t, i) => {
      (t as Mutable<IrTool>).providerName = names[i]!;
    });
    out.push(
      Object.freeze({
        kind: "mcp-server",
        name: server.name,
        version: server.version,
        protocolVersion: server.protocolVersion,
        title: (server as { title?: string }).title,
        description: server.description,
        instructions: (server as { instructions?: string }).instructions,
        pascalName: pascalName(server.name),
        camelName: camelName(server.name),
        toolset: ts,
        symbols: serverSymbols(named),
        toString: () => `server ${server.name}`,
      }),
    );
  }
  return out;
}
