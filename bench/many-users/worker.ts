/**
 * One worker process of the many-users load test (forked by the driver). It serves calls for any
 * principal on any of the servers, as a stateless worker behind a load balancer does: the driver
 * sends `{ call }` messages over IPC and gets `{ done }` back. Calls go through the runtime's
 * many-principal manager (`createMcpManager({ principals })`, `forPrincipal`): one connection per
 * (principal, server), each with an OAuth provider whose token store is, by mode:
 *   vault  - `@toolwright/vault` on the shared PostgreSQL (one refresh across workers);
 *   memory - a per-process memory store seeded with the same grants (what the vault replaces:
 *            every worker refreshes on its own, and rotated refresh tokens get revoked);
 *   static - no OAuth, one static bearer token in the config (the latency baseline).
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createMemoryTokenStore, type OAuthTokens, type TokenStore } from "@toolwright/runtime/auth";
import { createMcpManager, parseMcpConfig } from "@toolwright/runtime/manager";
import { CLIENT_ID } from "./auth-server.js";
import type { CallMessage, DoneMessage, WorkerConfig } from "./protocol.js";

const config = JSON.parse(process.env.TW_MANY_USERS ?? "{}") as WorkerConfig;
const redirectUri = "http://127.0.0.1:9/callback";

/** The grants the driver seeded, for the memory mode, keyed "principal serverUrl". */
function readSeed(): Map<string, OAuthTokens> {
  if (!config.seedFile) return new Map();
  return new Map(Object.entries(JSON.parse(readFileSync(config.seedFile, "utf8")) as Record<string, OAuthTokens>));
}

/** The scripted user at the AS: follows the authorization URL as `principal` and returns the redirect's parameters. */
function consentAs(principal: string) {
  return async (url: string) => {
    const at = new URL(url);
    at.searchParams.set("login_hint", principal);
    const answer = await fetch(at, { redirect: "manual" });
    const back = new URL(answer.headers.get("location") ?? redirectUri);
    return {
      code: back.searchParams.get("code") ?? "",
      state: back.searchParams.get("state") ?? "",
      iss: back.searchParams.get("iss") ?? "",
    };
  };
}

async function openStores(): Promise<{ storeFor(principal: string): TokenStore; close(): Promise<void> }> {
  if (config.mode === "vault") {
    // Loaded only in this mode so the memory and static modes run without PostgreSQL.
    const { createPostgresVault } = await import("@toolwright/vault");
    const vault = await createPostgresVault({
      connectionString: config.databaseUrl,
      keys: [{ id: "k1", key: config.vaultKey ?? "" }],
      maxConnections: 8,
      // A refresh waiting on another worker holds a lock connection: enough for the calls in flight.
      lockConnections: 16,
    });
    return { storeFor: (p) => vault.tokenStore(p), close: () => vault.close() };
  }
  const seed = readSeed();
  const stores = new Map<string, TokenStore>();
  return {
    storeFor(principal) {
      let store = stores.get(principal);
      if (!store) {
        store = createMemoryTokenStore();
        for (const { url } of config.servers) {
          const tokens = seed.get(`${principal} ${url}`);
          if (tokens) store.saveTokens(url, tokens);
        }
        stores.set(principal, store);
      }
      return store;
    },
    close: async () => undefined,
  };
}

const stores = await openStores();
const headers = config.mode === "static" ? { authorization: `Bearer ${config.staticToken}` } : {};
// Generous connect timeout: the load test measures latency, it does not fail a call for being slow on a busy machine.
const servers = Object.fromEntries(config.servers.map((s) => [s.name, { url: s.url, headers, connectTimeoutMs: 60_000 }]));
const manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: servers })), {
  principals: {
    maxPrincipals: 1000,
    ...(config.mode === "static"
      ? {}
      : {
          tokenStoreFor: (p) => stores.storeFor(p.id),
          oauthFor: (p) => ({
            clientId: CLIENT_ID,
            tokenEndpointAuthMethod: "none",
            redirectUri,
            authorizationHandler: consentAs(p.id),
            refreshSkewSeconds: config.refreshSkewSeconds ?? 1,
            dpop: false,
            maxAttempts: 5,
            // Tags this worker's requests so the AS can tell a refresh lost to a kill -9 from a race.
            fetch: (input: string, init?: RequestInit) => {
              const headers = new Headers(init?.headers);
              headers.set("x-tw-worker", String(process.pid));
              return fetch(input, { ...init, headers });
            },
          }),
        }),
  },
});

async function serve(message: CallMessage): Promise<DoneMessage> {
  const started = performance.now();
  try {
    const mine = await manager.forPrincipal({ id: message.principal });
    const out = await mine.callTool(`${message.server}.whoami`, { principal: message.principal }, { timeoutMs: 60_000 });
    const ms = performance.now() - started;
    if (!out.ok) return { done: message.id, ok: false, ms, failure: `${out.failure.kind}: ${out.failure.message.slice(0, 160)}` };
    const echoed = out.structured as { principal?: unknown } | undefined;
    if (echoed?.principal !== message.principal)
      return { done: message.id, ok: false, ms, failure: "the server answered for another principal" };
    return { done: message.id, ok: true, ms };
  } catch (error) {
    return { done: message.id, ok: false, ms: performance.now() - started, failure: `threw: ${String(error).slice(0, 160)}` };
  }
}

process.on("message", (message: CallMessage | { stop: true }) => {
  if ("stop" in message) {
    void (async () => {
      await manager.stop().catch(() => undefined);
      await stores.close();
      process.exit(0);
    })();
    return;
  }
  void serve(message).then((done) => process.send?.(done));
});
// The driver is the only reason to live: without it, end (no orphan after the driver's kill -9).
process.on("disconnect", () => process.exit(0));
process.send?.({ ready: true });
