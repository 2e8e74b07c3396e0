import { failureFrom } from "../failure/failure-mapping.js";
import type { Result } from "../failure/result.js";
import { type ClientFactoryOptions, createServerClient, type ServerClient } from "./client-factory.js";
import { type LoadMcpConfigOptions, loadMcpConfig } from "./config-load.js";
import type { ServerConfig } from "./config-types.js";

/** A connected client, or why it could not connect (the client is closed then). */
export type ConnectOutcome = Result<ServerClient>;

/** Creates and connects the client for one resolved server entry. Never throws. */
export async function connectFromConfig(
  config: ServerConfig & { readonly name?: string },
  options: ClientFactoryOptions = {},
): Promise<ConnectOutcome> {
  const name = config.name ?? (config.transport === "stdio" ? config.command : new URL(config.url).host);
  let client: ServerClient;
  try {
    client = createServerClient(name, config, options);
  } catch (error) {
    // The config cannot make a client (a bad URL scheme...): no retry can fix that, so it is a local reason.
    return { ok: false, failure: failureFrom(error, { tool: "initialize", server: name }, "config_rejected", "cannot create its client") };
  }
  const handshake = await client.connect();
  if (handshake.ok) return { ok: true, value: client };
  await client.close().catch(() => undefined);
  return handshake;
}

/** One server found in the config files. */
export interface DiscoveredServer {
  readonly name: string;
  /** The file it came from. */
  readonly source: string;
  readonly transport: "stdio" | "http";
  readonly enabled: boolean;
  /** The resolved entry, ready for `connectFromConfig`. */
  readonly config: ServerConfig & { readonly name: string };
  /** Variables the entry uses that are unset (they expanded to empty strings). */
  readonly missingVariables: readonly string[];
}

/**
 * Lists the servers of the global and project `mcp.json` (project wins). Unset variables do not
 * fail discovery; they are reported per server. A malformed file still throws `McpConfigError`.
 */
export function discoverServers(
  projectDir: string,
  options: Omit<LoadMcpConfigOptions, "projectDir" | "onMissing"> = {},
): DiscoveredServer[] {
  const missing = new Map<string, string[]>();
  const config = loadMcpConfig({
    ...options,
    projectDir,
    onMissing: (variable, where) => {
      const list = missing.get(where.server) ?? [];
      if (!list.includes(variable)) list.push(variable);
      missing.set(where.server, list);
      return "";
    },
  });
  return Object.entries(config.mcpServers)
    .map(([name, entry]) => ({
      name,
      source: entry.source ?? "inline",
      transport: entry.transport,
      enabled: entry.enabled !== false,
      config: { ...entry, name },
      missingVariables: missing.get(name) ?? [],
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
