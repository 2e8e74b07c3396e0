/**
 * One worker process of the many-users load test (forked by the driver). It serves calls for any
 * principal on any of the servers, as a stateless worker behind a load balancer does: the driver
 * sends `{ call }` messages over IPC and gets `{ done }` back. Each (principal, server) gets an
 * HTTP caller with an OAuth provider whose token store is, by mode:
 *   vault  - `@toolwright/vault` on the shared PostgreSQL (one refresh across workers);
 *   memory - a per-process memory store seeded with the same grants (what the vault replaces:
 *            every worker refreshes on its own, and rotated refresh tokens get revoked);
 *   static - no OAuth, one static bearer token for every call (the latency baseline).
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createMemoryTokenStore, createOAuthProvider, type OAuthTokens, type TokenStore } from "@toolwright/runtime/auth";
import { createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { CLIENT_ID } from "./auth-server.js";
import type { CallMessage, DoneMessage, WorkerConfig } from "./protocol.js";

const config = JSON.parse(process.env.TW_MANY_USERS ?? "{}") as WorkerConfig;
const redirectUri = "http://127.0.0.1:9/callback";
// Generous: the load test measures latency, it does not fail a call for being slow on a busy machine.
const connectTimeoutMs = 60_000;

/** The grants the driver seeded, for the memory mode: principal -> server url -> tokens. */
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
    const vault = await createPostgresVault({ connectionString: config.databaseUrl, keys: [config.vaultKey ?? ""], maxConnections: 8 });
    return { storeFor: (p) => vault.tokenStore(p), close: () => vault.close() };
  }
  const seed = readSeed();
  const stores = new Map<string, TokenStore>();
  return {
    storeFor(principal) {
      let store = stores.get(principal);
      if (!store) {
        const fresh = createMemoryTokenStore();
        for (const server of config.servers) {
          const tokens = seed.get(`${principal} ${server}`);
          if (tokens) fresh.saveTokens(server, tokens);
        }
        stores.set(principal, fresh);
        store = fresh;
      }
      return store;
    },
    close: async () => undefined,
  };
}

const stores = await openStores();
const callers = new Map<string, HttpCaller>();

/** The caller of one (principal, server); created on first use and kept (bounded by principals x servers). */
function callerFor(principal: string, server: string): HttpCaller {
  const key = `${principal} ${server}`;
  let caller = callers.get(key);
  if (caller) return caller;
  if (config.mode === "static") {
    caller = createHttpCaller({ url: server, headers: { authorization: `Bearer ${config.staticToken}` }, connectTimeoutMs });
  } else {
    const auth = createOAuthProvider({
      serverUrl: server,
      clientId: CLIENT_ID,
      tokenEndpointAuthMethod: "none",
      redirectUri,
      authorizationHandler: consentAs(principal),
      store: stores.storeFor(principal),
      refreshSkewSeconds: 1,
      dpop: false,
      maxAttempts: 5,
    });
    caller = createHttpCaller({ url: server, auth, connectTimeoutMs });
  }
  callers.set(key, caller);
  return caller;
}

async function serve(message: CallMessage): Promise<DoneMessage> {
  const started = performance.now();
  try {
    const out = await callerFor(message.principal, message.server).callTool(
      { name: "whoami", arguments: { principal: message.principal } },
      { timeoutMs: 60_000 },
    );
    const ms = performance.now() - started;
    if (!out.ok) return { done: message.id, ok: false, ms, failure: `${out.failure.kind}: ${out.failure.message.slice(0, 160)}` };
    const echoed = out.value.structuredContent as { principal?: unknown } | undefined;
    if (out.value.isError || echoed?.principal !== message.principal) {
      return { done: message.id, ok: false, ms, failure: "the server answered for another principal or with an error" };
    }
    return { done: message.id, ok: true, ms };
  } catch (error) {
    return { done: message.id, ok: false, ms: performance.now() - started, failure: `threw: ${String(error).slice(0, 160)}` };
  }
}

process.on("message", (message: CallMessage | { stop: true }) => {
  if ("stop" in message) {
    void (async () => {
      await Promise.allSettled([...callers.values()].map((c) => c.close()));
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
