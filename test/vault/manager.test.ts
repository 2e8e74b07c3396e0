/**
 * The vault under the many-principal manager (issue 31 points 1, 2 and 4 together), on a real
 * PostgreSQL and a scripted OAuth world on 127.0.0.1: each principal's connection gets an OAuth
 * provider over that principal's vault store, expired grants are refreshed once each, each call
 * carries its own user's token, and each principal's first-use approvals land in the database.
 */
import { createMcpManager, type McpManager, parseMcpConfig } from "@toolwright/runtime/manager";
import { createPostgresVault } from "@toolwright/vault";
import { afterEach, expect, it } from "vitest";
import { newKey, useVaultPostgres } from "./support/cluster.js";
import { startOAuthWorld } from "./support/oauth-world.js";

const db = useVaultPostgres();
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

it("forPrincipal over vault stores: one refresh per user, each call its user's token, approvals per user in PostgreSQL", async () => {
  const world = await startOAuthWorld();
  cleanup.push(() => world.close());
  const vault = await createPostgresVault({ connectionString: db.url(), schema: db.schema(), keys: [newKey("k1")] });
  cleanup.push(() => vault.close());
  world.knowClient("dyn-seed");
  await vault
    .tokenStore("app")
    .saveClient(world.issuer, { clientId: "dyn-seed", tokenEndpointAuthMethod: "none", issuer: world.issuer, source: "dynamic" });
  const people = ["alice", "bob", "carol"];
  for (const id of people) {
    const g = world.grant(id, { expired: true });
    await vault.tokenStore(id).saveTokens(world.mcpUrl, {
      accessToken: g.accessToken,
      refreshToken: g.refreshToken,
      tokenType: "Bearer",
      expiresAt: g.expiresAt,
      issuer: world.issuer,
    });
  }
  const manager: McpManager = createMcpManager(
    parseMcpConfig(JSON.stringify({ mcpServers: { who: { url: world.mcpUrl, era: "legacy" } } })),
    {
      principals: { tokenStoreFor: (p) => vault.tokenStore(p), approvalsFor: (p) => vault.approvalStore(p) },
    },
  );
  cleanup.push(() => manager.stop());
  const answers = await Promise.all(
    [...people, ...people].map(async (id) => {
      const mine = await manager.forPrincipal({ id });
      const result = await mine.callTool("who.whoami", {});
      return [id, result.ok ? JSON.stringify(result.value) : result.failure.message] as const;
    }),
  );
  for (const [id, text] of answers) expect(text).toContain(`"${id}"`);
  expect(Object.fromEntries(world.counts.refreshes)).toEqual({ alice: 1, bob: 1, carol: 1 });
  for (const id of people) expect(await vault.approvals(id).approved("who", "whoami")).toMatch(/^sha256:/);
  expect(await vault.approvals("dave").approved("who", "whoami")).toBeUndefined();
});

it("a principal's runtime whose grant was revoked answers auth_required naming the server, and its tools once the grant is renewed", async () => {
  const world = await startOAuthWorld();
  cleanup.push(() => world.close());
  const vault = await createPostgresVault({ connectionString: db.url(), schema: db.schema(), keys: [newKey("k1")] });
  cleanup.push(() => vault.close());
  world.knowClient("dyn-seed");
  await vault
    .tokenStore("app")
    .saveClient(world.issuer, { clientId: "dyn-seed", tokenEndpointAuthMethod: "none", issuer: world.issuer, source: "dynamic" });
  const save = (g: { accessToken: string; refreshToken: string; expiresAt: number }) =>
    vault.tokenStore("erin").saveTokens(world.mcpUrl, { ...g, tokenType: "Bearer", issuer: world.issuer });
  const revoked = world.grant("erin", { expired: true });
  world.revoke(revoked.refreshToken);
  await save(revoked);
  const manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { who: { url: world.mcpUrl, era: "legacy" } } })), {
    principals: { tokenStoreFor: (p) => vault.tokenStore(p) },
  });
  cleanup.push(() => manager.stop());
  const mine = await manager.forPrincipal({ id: "erin" });
  expect(mine.runtime.lookup("who.whoami")).toBeUndefined(); // the connect failed: nothing was listed
  const refused = await mine.runtime.execute({ tool: "who.whoami", arguments: {} });
  expect(refused.ok ? "ok" : refused.failure).toMatchObject({ kind: "auth_required", server: "who", tool: "who.whoami" });
  expect(JSON.stringify(refused)).not.toContain(revoked.refreshToken);
  // The user authorized again: the next call connects, finds the tool and runs as erin.
  await save(world.grant("erin"));
  const answered = await mine.runtime.execute({ tool: "who.whoami", arguments: {} });
  expect(answered.ok ? JSON.stringify(answered.value) : answered.failure.message).toContain('"erin"');
});
