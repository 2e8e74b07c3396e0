/**
 * Builds one client (a `SessionCaller`, the same type every caller is) from a resolved server
 * entry. The manager and `connectFromConfig` both use it; it holds no manager state.
 */
import type { SessionCaller } from "../caller/caller.js";
import { createHttpCaller } from "../caller/http-caller.js";
import { createStdioCaller } from "../caller/stdio-caller.js";
import type { MeterLike } from "../core/telemetry.js";
import type { RpcNotification } from "../protocol/json-rpc.js";
import type { EraPreference } from "../protocol/mcp-client.js";
import type { AuthProvider } from "../transport/auth-provider.js";
import type { OutboundPolicy } from "../transport/outbound.js";
import type { HttpServerConfig, ServerConfig } from "./config-types.js";

/**
 * The client the manager holds for one server: a `SessionCaller` like every caller (stdio, HTTP, or
 * a custom transport's), with the child's pid and stderr tail when there is a child.
 */
export type ServerClient = SessionCaller & { readonly pid?: number | undefined; stderrTail?(): string };

/** Options an HTTP caller factory receives (the shape of `createHttpCaller`). */
export interface HttpClientOptions {
  readonly name: string;
  readonly url: string;
  readonly headers: { readonly [key: string]: string };
  readonly era?: EraPreference;
  readonly connectTimeoutMs?: number;
  readonly timeoutMs?: number;
  readonly outbound?: OutboundPolicy;
  readonly onNotification?: (notification: RpcNotification) => void;
  /** Records `mcp.client.session.duration` (see `SessionCallerOptions.meter`). */
  readonly meter?: MeterLike;
  /** Authorization for this connection (a principal's OAuth provider, see `PrincipalOptions`). */
  readonly auth?: AuthProvider;
}

/** Makes an HTTP client; by default `createHttpCaller` from `@toolwright/runtime/http`. */
export type HttpClientFactory = (options: HttpClientOptions) => ServerClient;

/** Knobs for building clients. */
export interface ClientFactoryOptions {
  readonly onNotification?: (notification: RpcNotification) => void;
  /** Overrides the HTTP client factory (tests, custom transports). */
  readonly createHttpClient?: HttpClientFactory;
  /** stdio: grace period per close step (stdin end, SIGTERM), ms. */
  readonly closeGraceMs?: number;
  /** stdio: first restart delay after a crash, ms (doubles per crash). */
  readonly restartDelayMs?: number;
  readonly maxRestartDelayMs?: number;
  /** A meter for every client's `mcp.client.session.duration` (see `SessionCallerOptions.meter`). */
  readonly meter?: MeterLike;
  /**
   * The `AuthProvider` of one HTTP server's connection (undefined: none). A manager serving many
   * principals sets it per principal, so each connection sends only its own user's token.
   */
  readonly authFor?: (server: string, config: HttpServerConfig) => AuthProvider | undefined;
}

/**
 * The clients built here by `createStdioCaller` or `createHttpCaller`: their sessions check the
 * shape of every `tools/call` result (`shapedCallResult`), so the manager need not check it again.
 * A custom factory's client is not in it: its results get the full check.
 */
const shapingClients = new WeakSet<object>();

/** True when `client`'s call results are already shape-checked (a built-in caller made by this factory). */
export const checksResultShape = (client: object): boolean => shapingClients.has(client);

const shaping = <C extends object>(client: C): C => {
  shapingClients.add(client);
  return client;
};

/** The default HTTP client: `createHttpCaller` (the config's era names are the callers' own). */
const defaultHttpFactory: HttpClientFactory = (o) =>
  shaping(
    createHttpCaller({
      name: o.name,
      url: o.url,
      // Values were expanded by the config loader already; nothing is left to expand.
      headers: o.headers,
      env: {},
      ...(o.era ? { era: o.era } : {}),
      ...(o.connectTimeoutMs ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.outbound ? { outbound: o.outbound } : {}),
      ...(o.onNotification ? { onNotification: o.onNotification } : {}),
      ...(o.meter ? { meter: o.meter } : {}),
      ...(o.auth ? { auth: o.auth } : {}),
    }),
  );

function httpClient(name: string, config: HttpServerConfig, options: ClientFactoryOptions): ServerClient {
  const factory = options.createHttpClient ?? defaultHttpFactory;
  const auth = options.authFor?.(name, config);
  return factory({
    name,
    url: config.url,
    headers: config.headers,
    ...(config.era ? { era: config.era } : {}),
    ...(config.connectTimeoutMs ? { connectTimeoutMs: config.connectTimeoutMs } : {}),
    ...(config.requestTimeoutMs ? { timeoutMs: config.requestTimeoutMs } : {}),
    ...(config.outbound ? { outbound: config.outbound } : {}),
    ...(options.onNotification ? { onNotification: options.onNotification } : {}),
    ...(options.meter ? { meter: options.meter } : {}),
    ...(auth ? { auth } : {}),
  });
}

/** Creates (but does not connect) the client for one server entry. */
export function createServerClient(name: string, config: ServerConfig, options: ClientFactoryOptions = {}): ServerClient {
  if (config.transport === "http") return httpClient(name, config, options);
  // Entries name their variables explicitly; nothing else of the parent's environment leaks in.
  return shaping(
    createStdioCaller({
      name,
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      ...(config.era ? { era: config.era } : {}),
      ...(config.connectTimeoutMs ? { connectTimeoutMs: config.connectTimeoutMs } : {}),
      ...(config.requestTimeoutMs ? { timeoutMs: config.requestTimeoutMs } : {}),
      ...(options.onNotification ? { onNotification: options.onNotification } : {}),
      ...(options.closeGraceMs !== undefined ? { closeGraceMs: options.closeGraceMs } : {}),
      ...(options.restartDelayMs !== undefined ? { restartDelayMs: options.restartDelayMs } : {}),
      ...(options.maxRestartDelayMs !== undefined ? { maxRestartDelayMs: options.maxRestartDelayMs } : {}),
      ...(options.meter ? { meter: options.meter } : {}),
    }),
  );
}
