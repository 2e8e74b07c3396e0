/**
 * Server declarations: `mcpServer` (a server the design implements) and `externalServer` (a live
 * server whose catalogue `toolwright pull` snapshots), with the connection details pull uses.
 */

import { createSurfaceCollector } from "./design-surface.js";
import { checkName, collectTools } from "./design-tool.js";
import type {
  ConnectionDecl,
  ExternalServerDecl,
  McpJsonApp,
  McpJsonConnectionDecl,
  McpServerDecl,
  ToolDecl,
  ToolsetBuilder,
} from "./design-types.js";
import { fail, isPlainObject, locate, show } from "./errors.js";
/** Protocol versions an `mcpServer` may pin. */
export const SERVER_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** What `mcpServer` accepts as its second argument. */
export interface McpServerInfo {
  readonly version: string;
  readonly protocolVersion?: (typeof SERVER_PROTOCOL_VERSIONS)[number];
  readonly description?: string;
  readonly title?: string;
  readonly instructions?: string;
}

/** Declares an MCP server implemented by this design; `build` declares its tools, prompts, resources and templates. */
export function mcpServer(name: string, info: McpServerInfo, build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[]): McpServerDecl {
  checkName("mcpServer()", "the server name", name);
  return locate({ server: name }, () => buildMcpServer(name, info, build));
}

function buildMcpServer(
  name: string,
  info: McpServerInfo,
  build: ((t: ToolsetBuilder) => void) | readonly ToolDecl[] | undefined,
): McpServerDecl {
  const where = `mcpServer(${show(name)})`;
  if (!isPlainObject(info)) fail(where, "the second argument must be { version, protocolVersion? }");
  for (const key of Object.keys(info)) {
    if (!["version", "protocolVersion", "description", "title", "instructions"].includes(key)) fail(where, `unknown option "${key}"`);
  }
  if (typeof info.version !== "string" || info.version === "") fail(where, 'version must be a non-empty string such as "1.0.0"');
  if (info.protocolVersion !== undefined && !(SERVER_PROTOCOL_VERSIONS as readonly string[]).includes(info.protocolVersion)) {
    fail(where, `protocolVersion ${show(info.protocolVersion)} is not supported (use one of ${SERVER_PROTOCOL_VERSIONS.join(", ")})`);
  }
  for (const key of ["description", "title", "instructions"] as const) {
    if (info[key] !== undefined && typeof info[key] !== "string") fail(where, `${key} must be a string`);
  }
  let description = info.description;
  const surface = createSurfaceCollector(`mcpServer "${name}"`);
  const tools = collectTools(
    `mcpServer "${name}"`,
    build,
    (text) => {
      description = text;
    },
    surface,
  );
  return Object.freeze({
    ...info,
    kind: "mcp-server",
    name,
    ...(description === undefined ? {} : { description }),
    tools: Object.freeze(tools),
    ...surface.fields(),
  });
}

/**
 * Reads the server's connection from an `mcp.json` file (default `.toolwright/mcp.json`, relative
 * to the design's folder; `~/` for one under the home directory; Claude, Cursor and VS Code files
 * work too), or from an application's own config found per platform when the design is loaded
 * (`mcpJson({ app: "claude-desktop" })`), so the design holds no one's home path. `entry` names
 * the file's entry when it differs from the server's name.
 */
export function mcpJson(
  file: string | { readonly app: McpJsonApp } = ".toolwright/mcp.json",
  options: { readonly entry?: string } = {},
): McpJsonConnectionDecl {
  const app = isPlainObject(file) ? checkApp(file) : undefined;
  if (app === undefined && (typeof file !== "string" || file === "")) {
    fail("mcpJson()", 'the file must be a non-empty path such as ".toolwright/mcp.json", or { app: "claude-desktop" }');
  }
  if (!isPlainObject(options)) fail("mcpJson()", "the options must be { entry? }");
  for (const key of Object.keys(options)) if (key !== "entry") fail("mcpJson()", `unknown option "${key}"`);
  if (options.entry !== undefined && (typeof options.entry !== "string" || options.entry === "")) {
    fail("mcpJson()", "entry must be a non-empty string");
  }
  const entry = options.entry === undefined ? {} : { entry: options.entry };
  return Object.freeze(app === undefined ? { kind: "mcp-json", file: file as string, ...entry } : { kind: "mcp-json", app, ...entry });
}

function checkApp(value: { readonly [key: string]: unknown }): McpJsonApp {
  for (const key of Object.keys(value)) if (key !== "app") fail("mcpJson()", `unknown field "${key}" (give { app })`);
  if (!(MCP_JSON_APPS as readonly unknown[]).includes(value.app)) {
    fail("mcpJson()", `app must be one of ${MCP_JSON_APPS.join(", ")}; got ${show(value.app)}`);
  }
  return value.app as McpJsonApp;
}

/** The applications `mcpJson({ app })` knows; codegen resolves each one's path per platform. */
export const MCP_JSON_APPS: readonly McpJsonApp[] = Object.freeze(["claude-desktop"]);

const OUTBOUND_FLAGS = ["allowInsecureHttp", "allowPrivateNetworks", "allowLoopback"];

function checkOutbound(where: string, outbound: unknown): void {
  if (!isPlainObject(outbound))
    fail(where, "outbound must be an object { allowedHosts?, allowInsecureHttp?, allowPrivateNetworks?, allowLoopback? }");
  for (const key of Object.keys(outbound)) {
    if (key === "allowedHosts") {
      const hosts = outbound.allowedHosts;
      if (!Array.isArray(hosts) || hosts.some((h) => typeof h !== "string"))
        fail(where, "outbound.allowedHosts must be an array of host names");
    } else if (!OUTBOUND_FLAGS.includes(key))
      fail(where, `outbound.${key} is not a known field (${["allowedHosts", ...OUTBOUND_FLAGS].join(", ")})`);
    else if (typeof outbound[key] !== "boolean") fail(where, `outbound.${key} must be a boolean`);
  }
}

function checkConnection(where: string, connection: unknown): void {
  if (!isPlainObject(connection)) fail(where, "the connection must be { command, args? }, { url, headers? } or mcpJson()");
  if (connection.kind === "mcp-json") {
    const hasApp = (MCP_JSON_APPS as readonly unknown[]).includes(connection.app);
    if (!hasApp && (typeof connection.file !== "string" || connection.file === "")) fail(where, "mcpJson() needs a file or an app");
    return;
  }
  const strings = (what: string, v: unknown) => {
    if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== "string"))) fail(where, `${what} must be an array of strings`);
  };
  if (connection.capabilities !== undefined && !isPlainObject(connection.capabilities)) {
    fail(where, "capabilities must be an object such as { roots: {}, sampling: {} }");
  }
  if ("command" in connection) {
    if ("url" in connection) fail(where, "give either command (stdio) or url (HTTP), not both");
    if (typeof connection.command !== "string" || connection.command === "") fail(where, "command must be a non-empty string");
    strings("args", connection.args);
    strings("env", connection.env);
    if (connection.cwd !== undefined && typeof connection.cwd !== "string") fail(where, "cwd must be a string");
  } else if ("url" in connection) {
    let url: URL | undefined;
    try {
      url = new URL(String(connection.url));
    } catch {
      fail(where, `url ${show(connection.url)} is not a valid URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") fail(where, `url must use http or https; got ${url.protocol}`);
    if (connection.headers !== undefined) {
      if (!isPlainObject(connection.headers) || Object.values(connection.headers).some((v) => typeof v !== "string")) {
        fail(where, "headers must map names to strings (use ${VAR} for secrets)");
      }
    }
    if (connection.outbound !== undefined) checkOutbound(where, connection.outbound);
  } else {
    fail(where, "the connection needs command (stdio), url (streamable HTTP) or mcpJson() (an mcp.json entry)");
  }
}

/** Declares a live server to pull a catalogue from; `build` may override single tools inline. */
export function externalServer(
  name: string,
  connection: ConnectionDecl,
  build?: ((t: ToolsetBuilder) => void) | readonly ToolDecl[],
): ExternalServerDecl {
  checkName("externalServer()", "the server name", name);
  return locate({ server: name }, () => {
    checkConnection(`externalServer(${show(name)})`, connection);
    const overrides = collectTools(`externalServer "${name}"`, build, () => {});
    return Object.freeze({ kind: "external-server", name, connection, overrides: Object.freeze(overrides) });
  });
}
