/**
 * The application's OAuth client when the authorization server forgets it, on a real PostgreSQL
 * against a scripted AS on 127.0.0.1: two worker processes and many principals whose refreshes
 * are refused with invalid_client at the same moment make exactly one registration, under the
 * vault's per-issuer advisory lock (and make more than one without it: the lock is taken away for
 * real, in the workers); with a client ID metadata document configured and now supported by the
 * AS, the forgotten registration is replaced by the CIMD client with no registration at all.
 */
import { createMemoryTokenStore, type TokenStore } from "@toolwright/runtime/auth";
import { describe, expect, it } from "vitest";
import { callerFor, useVaultPostgres } from "./support/cluster.js";
import { type Outcome, useFleet } from "./support/fleet.js";
import { startOAuthWorld } from "./support/oauth-world.js";

const db = useVaultPostgres();
const { cleanup, setUp, runWorkers } = useFleet(db);

const PER_WORKER = 8;
const CALLS = 3;
const CIMD_URL = "https://agent.example/oauth/client.json";

/**
 * 2 workers x 8 principals each (disjoint, one provider per principal, so every principal's refresh
 * reaches the AS at once), 3 concurrent calls per principal. The AS forgot `dyn-seed`, answers the
 * 16 refused refreshes together and takes 500 ms per registration.
 */
async function forgottenClient(registerLock: "on" | "off") {
  const principals = Array.from({ length: 2 * PER_WORKER }, (_, i) => `user-${i}`);
  const fleet = await setUp(principals, { registrationDelayMs: 500 });
  const { world, key, schema } = fleet;
  world.forgetClient("dyn-seed");
  world.holdInvalidClient(principals.length);
  const envOf = (part: readonly string[]) => ({
    TW_DB_URL: db.url(),
    TW_SCHEMA: schema,
    TW_KEY: key.key,
    TW_MCP_URL: world.mcpUrl,
    TW_PRINCIPALS: part.join(","),
    TW_PROVIDERS: "1",
    TW_CALLS: String(CALLS),
    TW_LOCK_CONNECTIONS: String(PER_WORKER + 2),
    TW_REGISTER_LOCK: registerLock,
  });
  const results: Outcome[] = await runWorkers([envOf(principals.slice(0, PER_WORKER)), envOf(principals.slice(PER_WORKER))]);
  return { ...fleet, principals, results };
}

describe("an AS that forgot the application's client, seen by every worker at once", () => {
  it("with the vault's registration lock: one registration reaches the AS, every grant is kept, every call succeeds", async () => {
    const { world, vault, principals, results } = await forgottenClient("on");
    expect(world.counts.invalidClient).toBe(principals.length); // all refused together (the AS held the answers)
    expect(world.counts.registrations).toBe(1);
    expect(results).toHaveLength(principals.length * CALLS);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    for (const r of results) expect(r.text).toBe(r.principal);
    expect(world.counts.invalidGrant).toBe(0);
    expect(world.counts.crossPrincipal).toBe(0);
    const client = await vault.tokenStore("anyone").loadClient(world.issuer);
    expect(client?.clientId).toMatch(/^dyn-/);
    expect(client?.clientId).not.toBe("dyn-seed");
    // Every retry used the one new client.
    expect(world.clientUses.get(client?.clientId as string)).toBe(principals.length);
    for (const principal of principals) {
      expect(world.counts.refreshes.get(principal)).toBe(2); // refused once, then through
      expect(await vault.needsReauthorization(principal)).toEqual([]);
      expect((await vault.tokenStore(principal).loadTokens(world.mcpUrl))?.accessToken).toMatch(new RegExp(`^at-${principal}-`));
    }
  });

  it("without it (the workers' stores lack registerExclusive): each worker registers its own client", async () => {
    const { world, results } = await forgottenClient("off");
    expect(world.counts.invalidClient).toBe(2 * PER_WORKER);
    // The in-process lock still spares each worker a second registration; nothing spares the other worker.
    expect(world.counts.registrations).toBe(2);
    expect(results.filter((r) => !r.ok)).toEqual([]);
  });
});

describe("an AS that forgot the dynamic client and now supports client ID metadata documents", () => {
  /** A store with the application's `dyn-seed` client and alice's live grant, in memory or in the vault. */
  async function seeded(kind: "memory" | "vault") {
    if (kind === "vault") {
      const fleet = await setUp([]);
      return { world: fleet.world, storeOf: (p: string): TokenStore => fleet.vault.tokenStore(p) };
    }
    const world = await startOAuthWorld();
    cleanup.push(() => world.close());
    world.knowClient("dyn-seed");
    const store = createMemoryTokenStore();
    await store.saveClient(world.issuer, {
      clientId: "dyn-seed",
      tokenEndpointAuthMethod: "none",
      issuer: world.issuer,
      source: "dynamic",
    });
    return { world, storeOf: () => store };
  }

  for (const kind of ["memory", "vault"] as const) {
    it(`${kind} store: invalid_client moves to the CIMD client, no registration, the grant is kept`, async () => {
      const { world, storeOf } = await seeded(kind);
      const store = storeOf("alice");
      const g = world.grant("alice", { expired: true });
      await store.saveTokens(world.mcpUrl, {
        accessToken: g.accessToken,
        refreshToken: g.refreshToken,
        tokenType: "Bearer",
        expiresAt: g.expiresAt,
        issuer: world.issuer,
      });
      const alice = callerFor(world.mcpUrl, store, "alice", { clientMetadataUrl: CIMD_URL });
      // First refresh with the dynamic client, while the AS does not support CIMD: its metadata is now cached.
      const first = await alice.caller.callTool({ name: "whoami", arguments: {} });
      expect(first.ok && first.value.content).toEqual([{ type: "text", text: "alice" }]);
      expect(world.clientUses.get("dyn-seed")).toBe(1);
      // The AS is reset: the dynamic client is gone, CIMD is on, the issued access tokens are void.
      world.forgetClient("dyn-seed");
      world.supportCimd(CIMD_URL);
      world.expireAccessTokens();
      const second = await alice.caller.callTool({ name: "whoami", arguments: {} });
      expect(second.ok && second.value.content).toEqual([{ type: "text", text: "alice" }]);
      expect(world.counts.invalidClient).toBe(1);
      expect(world.counts.registrations).toBe(0);
      expect(world.clientUses.get(CIMD_URL)).toBe(1);
      expect(world.counts.invalidGrant).toBe(0);
      expect(alice.errors).toEqual([]);
      expect(await store.loadClient(world.issuer)).toBeUndefined(); // the forgotten registration is dropped
      expect((await store.loadTokens(world.mcpUrl))?.accessToken).toMatch(/^at-alice-/);
      // The next call goes on with the refreshed grant: no refresh, no registration.
      const third = await alice.caller.callTool({ name: "whoami", arguments: {} });
      expect(third.ok).toBe(true);
      expect(world.counts.registrations).toBe(0);
      expect(world.counts.refreshes.get("alice")).toBe(3);
    });
  }
});
