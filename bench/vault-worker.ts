/**
 * Bench worker for the vault section (one fresh process per repetition): the per-call cost of the
 * PostgreSQL token vault against the in-memory store, side by side in one process: a token read, a
 * token write, a call's credentials from a provider that has to load them (a new worker, or a
 * pooled connection rebuilt), and a refresh against a token endpoint on 127.0.0.1 (under the
 * vault's advisory lock). Prints `RESULT <json>`, µs per operation.
 * Usage: node --import tsx bench/vault-worker.ts <database url> <operations>
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createMemoryTokenStore, createOAuthProvider, type OAuthTokens, type TokenStore } from "@toolwright/runtime/auth";
import { createPostgresVault } from "@toolwright/vault";

const [databaseUrl, opsArg] = process.argv.slice(2);
if (!databaseUrl) throw new Error("usage: vault-worker.ts <database url> <operations>");
const ops = Number(opsArg ?? "1000");

let minted = 0;
const as = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" });
    if (req.url === "/.well-known/oauth-authorization-server") {
      res.end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          token_endpoint_auth_methods_supported: ["none"],
        }),
      );
      return;
    }
    minted++;
    res.end(JSON.stringify({ access_token: `at-${minted}`, refresh_token: `rt-${minted}`, token_type: "Bearer", expires_in: 3600 }));
  });
});
await new Promise<void>((resolve) => as.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;
const resource = "https://mcp.bench.test/mcp";

const vault = await createPostgresVault({
  connectionString: databaseUrl,
  schema: `bench_${process.pid}`,
  keys: [{ id: "bench", key: randomBytes(32).toString("base64") }],
});
const memory = createMemoryTokenStore();
const live = (i: number): OAuthTokens => ({
  accessToken: `a-${i}`,
  refreshToken: `r-${i}`,
  tokenType: "Bearer",
  expiresAt: Date.now() + 3_600_000,
  issuer,
});
const expired = (i: number): OAuthTokens => ({ ...live(i), expiresAt: Date.now() - 1000 });
const client = { clientId: "bench-client", tokenEndpointAuthMethod: "none", issuer, source: "pre-registered" as const };

/** µs per op, and the untimed `prepare` before each op. */
async function perOp(n: number, one: (i: number) => Promise<unknown>, prepare?: (i: number) => Promise<unknown>): Promise<number> {
  let total = 0;
  for (let i = 0; i < n; i++) {
    await prepare?.(i);
    const start = performance.now();
    await one(i);
    total += performance.now() - start;
  }
  return (total / n) * 1000;
}

const provider = (store: TokenStore) =>
  createOAuthProvider({
    serverUrl: resource,
    store,
    grant: "client_credentials",
    clientId: "bench-client",
    refreshSkewSeconds: 0,
    ...(process.env.TW_DEBUG ? { onError: (e: Error) => process.stderr.write(`${e.message}\n`) } : {}),
  });
const request = { url: resource, method: "POST" };

async function measure(store: TokenStore, principalCount: number) {
  await store.saveClient(issuer, client);
  // Warm-up: connections, JIT, the prepared plans.
  for (let i = 0; i < 50; i++) await store.loadTokens(resource);
  const save = await perOp(ops, (i) => Promise.resolve(store.saveTokens(resource, live(i % principalCount))));
  const load = await perOp(ops, () => Promise.resolve(store.loadTokens(resource)));
  const coldCall = await perOp(ops, () => Promise.resolve(provider(store).authorize(request)));
  const refreshes = Math.max(20, Math.floor(ops / 5));
  const refresh = await perOp(
    refreshes,
    () => Promise.resolve(provider(store).authorize(request)),
    (i) => Promise.resolve(store.saveTokens(resource, expired(i))),
  );
  return { save, load, coldCall, refresh, refreshes };
}

const memoryCost = await measure(memory, 1);
const before = minted;
const vaultCost = await measure(vault.tokenStore("bench-user"), 1);
const refreshesSent = minted - before;
// A refresh that failed would be timed as a cheap no-op: every timed refresh must have reached the endpoint.
if (before !== memoryCost.refreshes || refreshesSent !== vaultCost.refreshes) {
  throw new Error(`refreshes sent: memory ${before}, vault ${refreshesSent}; expected ${memoryCost.refreshes} each`);
}
await vault.close();
as.close();
process.stdout.write(`RESULT ${JSON.stringify({ memory: memoryCost, vault: vaultCost, refreshesSent })}\n`);
