/**
 * Enterprise paths with the vault on a real PostgreSQL, against a scripted authorization server
 * and IdP on 127.0.0.1: OAuth client credentials for a machine principal, and enterprise-managed
 * authorization (RFC 8693 token exchange of the user's ID token for an ID-JAG at the IdP, then the
 * RFC 7523 jwt-bearer grant at the MCP authorization server). Each failure ends as auth_required
 * naming the server, keeps secrets out of failures, and stores nothing.
 */
import { requestIdJag } from "@toolwright/runtime/auth";
import { createPostgresVault, type PostgresVault } from "@toolwright/vault";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { callerFor, newKey, useVaultPostgres } from "./support/cluster.js";
import { type OAuthWorld, startOAuthWorld } from "./support/oauth-world.js";

const db = useVaultPostgres();
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const MACHINE = { id: "reporter", secret: "MACHINE-SECRET-42" };

async function setUp(): Promise<{ world: OAuthWorld; vault: PostgresVault; schema: string }> {
  const world = await startOAuthWorld({ machineClient: MACHINE });
  cleanup.push(() => world.close());
  const schema = db.schema();
  const vault = await createPostgresVault({ connectionString: db.url(), schema, keys: [newKey("k1")] });
  cleanup.push(() => vault.close());
  return { world, vault, schema };
}

async function rawRows(schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: db.url() });
  await client.connect();
  try {
    const { rows } = await client.query(`SELECT t::text AS line, encode(t.sealed, 'escape') AS bytes FROM ${schema}.tokens t`);
    return rows.map((r) => `${r.line}${r.bytes}`).join("\n");
  } finally {
    await client.end();
  }
}

const machine = (secret: string) => ({ grant: "client_credentials" as const, clientId: MACHINE.id, clientSecret: secret });

describe("client credentials for a machine principal", () => {
  it("gets a token with client_secret_basic, stores it sealed, and a second worker reuses it without a token request", async () => {
    const { world, vault, schema } = await setUp();
    const principal = `machine:${MACHINE.id}`;
    const first = callerFor(world.mcpUrl, vault.tokenStore(principal), principal, machine(MACHINE.secret));
    const result = await first.caller.callTool({ name: "whoami", arguments: {} });
    expect(result.ok && result.value.content).toEqual([{ type: "text", text: principal }]);
    expect(world.counts.clientCredentials).toBe(1);
    const stored = await vault.tokenStore(principal).loadTokens(world.mcpUrl);
    expect(stored?.accessToken).toMatch(/^at-machine:reporter-/);
    expect(await rawRows(schema)).not.toContain(stored?.accessToken as string);
    const second = callerFor(world.mcpUrl, vault.tokenStore(principal), principal, machine(MACHINE.secret));
    const again = await second.caller.callTool({ name: "whoami", arguments: {} });
    expect(again.ok).toBe(true);
    expect(world.counts.clientCredentials).toBe(1);
  });

  it("a refused client secret: auth_required naming the server, the secret in no failure, nothing stored", async () => {
    const { world, vault } = await setUp();
    const principal = `machine:${MACHINE.id}`;
    const wrong = "WRONG-SECRET-77";
    const c = callerFor(world.mcpUrl, vault.tokenStore(principal), principal, machine(wrong));
    const result = await c.caller.callTool({ name: "whoami", arguments: {} });
    expect(!result.ok && result.failure.kind).toBe("auth_required");
    if (!result.ok) expect(result.failure.message).toContain("whoami-server");
    expect(c.errors.map((e) => e.code)).toEqual(["token_request_failed"]);
    expect(c.errors[0]?.message).toContain("invalid_client");
    for (const text of [JSON.stringify(result), ...c.errors.map((e) => e.message)]) expect(text).not.toContain(wrong);
    expect(world.counts.invalidClient).toBe(1);
    expect(await vault.tokenStore(principal).loadTokens(world.mcpUrl)).toBeUndefined();
  });
});

describe("enterprise-managed authorization (ID-JAG)", () => {
  function jagCaller(world: OAuthWorld, vault: PostgresVault, principal: string, idToken: string, forged?: string) {
    return callerFor(world.mcpUrl, vault.tokenStore(principal), principal, {
      grant: "jwt_bearer",
      clientId: "mcp-client",
      assertion: async ({ issuer, resource, scope }) =>
        forged ??
        requestIdJag({
          tokenEndpoint: `${world.idp}/token`,
          idToken,
          clientId: "idp-client",
          audience: issuer,
          resource,
          ...(scope ? { scope } : {}),
        }),
    });
  }

  it("exchanges the user's ID token at the IdP, presents the ID-JAG, and keeps the token in the vault for that user", async () => {
    const { world, vault, schema } = await setUp();
    const c = jagCaller(world, vault, "carol", world.idToken("carol"));
    const result = await c.caller.callTool({ name: "whoami", arguments: {} });
    expect(result.ok && result.value.content).toEqual([{ type: "text", text: "carol" }]);
    expect(world.counts.tokenExchanges).toBe(1);
    expect(world.counts.jwtBearer).toBe(1);
    const stored = await vault.tokenStore("carol").loadTokens(world.mcpUrl);
    expect(stored?.accessToken).toMatch(/^at-carol-/);
    expect(await rawRows(schema)).not.toContain(stored?.accessToken as string);
    expect(await vault.tokenStore("dave").loadTokens(world.mcpUrl)).toBeUndefined();
  });

  it("the IdP refuses the ID token: auth_required, the ID token in no failure, nothing stored, the AS never asked", async () => {
    const { world, vault } = await setUp();
    const idToken = "idt-STOLEN-OR-EXPIRED";
    const c = jagCaller(world, vault, "carol", idToken);
    const result = await c.caller.callTool({ name: "whoami", arguments: {} });
    expect(!result.ok && result.failure.kind).toBe("auth_required");
    expect(c.errors[0]?.message).toContain("token exchange refused by the IdP: HTTP 400 invalid_grant");
    for (const text of [JSON.stringify(result), ...c.errors.map((e) => e.message)]) expect(text).not.toContain(idToken);
    expect(world.counts.tokenExchanges).toBe(1);
    expect(world.counts.jwtBearer).toBe(0);
    expect(await vault.tokenStore("carol").loadTokens(world.mcpUrl)).toBeUndefined();
  });

  it("the AS refuses the assertion (invalid_grant): auth_required naming the server, nothing stored", async () => {
    const { world, vault } = await setUp();
    const c = jagCaller(world, vault, "carol", world.idToken("carol"), "jag-FORGED");
    const result = await c.caller.callTool({ name: "whoami", arguments: {} });
    expect(!result.ok && result.failure.kind).toBe("auth_required");
    if (!result.ok) expect(result.failure.server).toBe("whoami-server");
    expect(c.errors[0]?.message).toContain("invalid_grant");
    expect(JSON.stringify(result)).not.toContain("jag-FORGED");
    expect(world.counts.jwtBearer).toBe(1);
    expect(await vault.tokenStore("carol").loadTokens(world.mcpUrl)).toBeUndefined();
  });
});
