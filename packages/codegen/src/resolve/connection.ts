/**
 * Resolves an `externalServer(...)` connection for generated code (`create<Server>Caller`) and for
 * `pull`. A server declared with `mcpJson()` is read from that file by the manager's own parser,
 * so the design, `pull`, the generated caller and the manager all use one declaration.
 * Literal env and header values are never copied into generated code (they may be secrets);
 * `${VAR}` references stay references, expanded when the caller is created.
 */
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import type { ExternalServerDecl, McpJsonConnectionDecl } from "@toolwright/dsl";
import { copyOutboundPolicy } from "@toolwright/runtime/http";
import type { RawServerConfig } from "@toolwright/runtime/manager";
import { pascalName } from "../emit/names.js";
import { DesignError } from "../errors.js";
import type { IrConnection, IrEnvEntry } from "../ir/ir.js";
import { mcpJsonPath, readMcpJson } from "../mcp-json/read-mcp-json.js";

/** What resolving a connection needs to know about the design. */
export interface ConnectionContext {
  /** Design label, for errors. */
  readonly file: string;
  readonly designPath: string | undefined;
  /** Working directory of the run: relative paths in generated code are relative to it. */
  readonly cwd: string;
  /** Where `mcpJson({ app })` and `~/` paths are found (HOME, APPDATA...); default `process.env`. */
  readonly env?: { readonly [key: string]: string | undefined };
  /** The platform whose places apply; default `process.platform`. */
  readonly platform?: NodeJS.Platform;
}

/** An `mcp.json` entry a design points at, unexpanded. */
export interface McpJsonEntry {
  /** Absolute path of the file. */
  readonly path: string;
  /** The file relative to the working directory, `/`-separated. */
  readonly label: string;
  readonly name: string;
  readonly raw: RawServerConfig;
}

const posix = (p: string) => p.split(sep).join("/");
const REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/;

/** Reads the `mcp.json` entry of a server declared with `mcpJson()`. Throws `DesignError` naming the file and server. */
export function readMcpJsonEntry(
  server: ExternalServerDecl & { readonly connection: McpJsonConnectionDecl },
  ctx: ConnectionContext,
): McpJsonEntry {
  const c = server.connection;
  const base = ctx.designPath === undefined ? ctx.cwd : dirname(ctx.designPath);
  // An app's config or a `~/` path is found on this machine, for whoever runs pull or gen.
  const path = mcpJsonPath(c, base, ctx.env ?? process.env, ctx.platform ?? process.platform);
  const label = posix(relative(ctx.cwd, path)) || path;
  const loc = { file: ctx.file, server: server.name };
  let parsed: ReturnType<typeof readMcpJson>;
  try {
    parsed = readMcpJson(path, label);
  } catch (error) {
    const call = c.app === undefined ? JSON.stringify(c.file) : `{ app: ${JSON.stringify(c.app)} }`;
    throw new DesignError(loc, `mcpJson(${call}): ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const name = c.entry ?? server.name;
  const raw = Object.hasOwn(parsed.servers, name) ? parsed.servers[name] : undefined;
  if (raw === undefined) {
    const have = Object.keys(parsed.servers);
    throw new DesignError(
      loc,
      `no server ${JSON.stringify(name)} in ${label} (${have.length > 0 ? `has: ${have.join(", ")}` : "it lists no servers"})`,
    );
  }
  return { path, label, name, raw };
}

/** True for a server declared with `mcpJson()`. */
export function isMcpJson(server: ExternalServerDecl): server is ExternalServerDecl & { readonly connection: McpJsonConnectionDecl } {
  return (server.connection as { kind?: unknown }).kind === "mcp-json";
}

/** The connection generated code uses for `server`, plus the `mcp.json` it came from (if any). */
export function resolveConnection(server: ExternalServerDecl, ctx: ConnectionContext): { connection: IrConnection; configFile?: string } {
  const factoryName = `create${pascalName(server.name)}Caller`;
  const withheld: string[] = [];
  if (isMcpJson(server)) {
    const entry = readMcpJsonEntry(server, ctx);
    const r = entry.raw;
    // The same options the manager's client factory passes on from an entry (era names are the spec's).
    const options = {
      ...(r.era === undefined ? {} : { era: r.era }),
      ...(r.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: r.connectTimeoutMs }),
      ...(r.requestTimeoutMs === undefined ? {} : { timeoutMs: r.requestTimeoutMs }),
    };
    const common = { server: server.name, declaredIn: entry.label, factoryName, withheld, options };
    if (r.command !== undefined) {
      const env: IrEnvEntry[] = [];
      for (const [name, value] of Object.entries(r.env ?? {})) {
        // `${NAME}` is expanded too (not passed through): unset without a default is an error, as in the manager.
        if (REFERENCE.test(value)) env.push({ kind: "expand", name, template: value });
        else {
          withheld.push(name);
          env.push({ kind: "pass", name });
        }
      }
      return {
        configFile: entry.path,
        connection: { ...common, transport: "stdio", command: r.command, args: [...(r.args ?? [])], env, cwd: r.cwd },
      };
    }
    return {
      configFile: entry.path,
      connection: {
        ...common,
        transport: "http",
        url: r.url ?? "",
        headers: headersOf(r.headers, withheld),
        ...(r.outbound === undefined ? {} : { outbound: copyOutboundPolicy(r.outbound) }),
      },
    };
  }
  const c = server.connection;
  const common = { server: server.name, declaredIn: ctx.file, factoryName, withheld, options: {} };
  if ("url" in c) {
    const outbound = c.outbound === undefined ? {} : { outbound: copyOutboundPolicy(c.outbound) };
    return { connection: { ...common, transport: "http", url: c.url, headers: headersOf(c.headers, withheld), ...outbound } };
  }
  if (!("command" in c)) throw new DesignError({ file: ctx.file, server: server.name }, "unknown connection kind");
  const env: IrEnvEntry[] = (c.env ?? []).map((entry) => {
    const eq = entry.indexOf("=");
    if (eq === -1) return { kind: "pass", name: entry };
    withheld.push(entry.slice(0, eq));
    return { kind: "pass", name: entry.slice(0, eq) };
  });
  // pull runs the server in the design's folder (or its cwd); the generated caller does the same from the run's folder.
  const designDir = ctx.designPath === undefined ? ctx.cwd : dirname(ctx.designPath);
  const cwd = c.cwd !== undefined && isAbsolute(c.cwd) ? c.cwd : posix(relative(ctx.cwd, resolve(designDir, c.cwd ?? ".")));
  return {
    connection: { ...common, transport: "stdio", command: c.command, args: [...(c.args ?? [])], env, cwd: cwd === "" ? undefined : cwd },
  };
}

function headersOf(headers: { readonly [name: string]: string } | undefined, withheld: string[]): { [name: string]: string } {
  const out: { [name: string]: string } = Object.create(null);
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (REFERENCE.test(value)) out[name] = value;
    else withheld.push(name);
  }
  return out;
}
