/**
 * The vault on a real PostgreSQL: what lands on disk is sealed, a row is bound to its principal
 * and resource, a wrong or missing key fails clearly without the secret, rotation re-encrypts in
 * batches, concurrent workers migrate once, approvals are per principal.
 */
import type { OAuthClientInfo, OAuthTokens } from "@toolwright/runtime/auth";
import { fingerprintTool } from "@toolwright/runtime/catalogue";
import { createPostgresVault, type PostgresVault, VaultError } from "@toolwright/vault";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { callerFor, newKey, useVaultPostgres } from "./support/cluster.js";
import { startOAuthWorld } from "./support/oauth-world.js";

const db = useVaultPostgres();
const vaults: PostgresVault[] = [];
afterEach(async () => {
  await Promise.all(vaults.splice(0).map((v) => v.close()));
});

async function open(schema: string, keys: { id: string; key: string }[]): Promise<PostgresVault> {
  const vault = await createPostgresVault({ connectionString: db.url(), schema, keys });
  vaults.push(vault);
  return vault;
}

async function raw(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: db.url() });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

const RESOURCE = "https://mcp.example.test/mcp";
const tokens = (who: string): OAuthTokens => ({
  accessToken: `ACCESS-SECRET-${who}`,
  refreshToken: `REFRESH-SECRET-${who}`,
  tokenType: "Bearer",
  expiresAt: 1_900_000_000_000,
  scope: "mcp",
  issuer: "https://as.example.test",
});
const client: OAuthClientInfo = {
  clientId: "dyn-1",
  clientSecret: "CLIENT-SECRET-xyz",
  tokenEndpointAuthMethod: "client_secret_basic",
  issuer: "https://as.example.test",
  source: "dynamic",
};

describe("encryption at rest", () => {
  it("stores tokens and client secrets sealed: no table row holds them, and they read back intact", async () => {
    const schema = db.schema();
    const vault = await open(schema, [newKey("k1")]);
    await vault.tokenStore("alice").saveTokens(RESOURCE, tokens("alice"));
    await vault.tokenStore("alice").saveClient(client.issuer, client);
    const rows = await raw(`SELECT t::text AS line, encode(t.sealed, 'escape') AS bytes FROM ${schema}.tokens t`);
    const clients = await raw(`SELECT c::text AS line, encode(c.sealed, 'escape') AS bytes FROM ${schema}.clients c`);
    expect(rows.rows).toHaveLength(1);
    for (const row of [...rows.rows, ...clients.rows]) {
      expect(`${row.line}${row.bytes}`).not.toMatch(/SECRET/);
    }
    expect(rows.rows[0].line).toContain("alice"); // the principal is a key, not a secret
    expect(await vault.tokenStore("alice").loadTokens(RESOURCE)).toEqual(tokens("alice"));
    expect(await vault.tokenStore("bob").loadClient(client.issuer)).toEqual(client); // one client for the application
    expect(await vault.tokenStore("bob").loadTokens(RESOURCE)).toBeUndefined();
  });

  it("a row copied to another principal or resource does not decrypt; the error names where, not what", async () => {
    const schema = db.schema();
    const vault = await open(schema, [newKey("k1")]);
    await vault.tokenStore("alice").saveTokens(RESOURCE, tokens("alice"));
    await raw(
      `INSERT INTO ${schema}.tokens (principal, resource, key_id, sealed) SELECT 'mallory', resource, key_id, sealed FROM ${schema}.tokens`,
    );
    await raw(
      `INSERT INTO ${schema}.tokens (principal, resource, key_id, sealed) SELECT principal, 'https://other.test/mcp', key_id, sealed FROM ${schema}.tokens WHERE principal = 'alice'`,
    );
    const stolen = await Promise.resolve(vault.tokenStore("mallory").loadTokens(RESOURCE)).catch((e: unknown) => e);
    expect(stolen).toBeInstanceOf(VaultError);
    expect((stolen as VaultError).code).toBe("decrypt_failed");
    expect((stolen as Error).message).toContain('principal "mallory"');
    expect((stolen as Error).message).toContain(RESOURCE);
    expect((stolen as Error).message).not.toMatch(/SECRET/);
    const moved = await Promise.resolve(vault.tokenStore("alice").loadTokens("https://other.test/mcp")).catch((e: unknown) => e);
    expect((moved as VaultError).code).toBe("decrypt_failed");
    expect(await vault.tokenStore("alice").loadTokens(RESOURCE)).toEqual(tokens("alice"));
  });

  it("a wrong key under the same id, or a key id not in the ring, is a clear error without the secret or the key", async () => {
    const schema = db.schema();
    const right = newKey("k1");
    await (await open(schema, [right])).tokenStore("alice").saveTokens(RESOURCE, tokens("alice"));
    const wrong = newKey("k1");
    const error = await Promise.resolve((await open(schema, [wrong])).tokenStore("alice").loadTokens(RESOURCE)).catch((e: unknown) => e);
    expect((error as VaultError).code).toBe("decrypt_failed");
    expect((error as Error).message).toMatch(/principal "alice".*resource "https:\/\/mcp\.example\.test\/mcp".*key "k1"/);
    for (const secret of ["SECRET", right.key, wrong.key]) expect((error as Error).message).not.toContain(secret);
    const missing = await Promise.resolve((await open(schema, [newKey("k9")])).tokenStore("alice").loadTokens(RESOURCE)).catch(
      (e: unknown) => e,
    );
    expect((missing as VaultError).code).toBe("key_missing");
    expect((missing as Error).message).toContain('key "k1", which is not in the key ring');
  });

  it("refuses bad options with the option named: no keys, a short key, a repeated id, an unsafe schema name", async () => {
    const url = db.url();
    await expect(createPostgresVault({ connectionString: url, keys: [] })).rejects.toThrow(/at least one key/);
    await expect(createPostgresVault({ connectionString: url, keys: [{ id: "k", key: Buffer.alloc(31) }] })).rejects.toThrow(
      /"k" must be 32 bytes/,
    );
    await expect(createPostgresVault({ connectionString: url, keys: [newKey("a"), newKey("a")] })).rejects.toThrow(/"a" appears twice/);
    await expect(createPostgresVault({ connectionString: url, keys: [newKey("a")], schema: "x; DROP TABLE y" })).rejects.toThrow(
      /schema .* lowercase identifier/,
    );
    await expect(createPostgresVault({ keys: [newKey("a")] })).rejects.toThrow(/give `pool` or `connectionString`/);
  });
});

describe("a vault failure inside a call", () => {
  it("a key that does not decrypt fails the call naming the server and the error type, not the principal; onError gets the details", async () => {
    const world = await startOAuthWorld();
    try {
      const schema = db.schema();
      const g = world.grant("alice@example.com");
      const saved = {
        accessToken: g.accessToken,
        refreshToken: g.refreshToken,
        tokenType: "Bearer",
        expiresAt: g.expiresAt,
        issuer: world.issuer,
      };
      await (await open(schema, [newKey("k1")])).tokenStore("alice@example.com").saveTokens(world.mcpUrl, saved);
      const wrong = await open(schema, [newKey("k1")]);
      const c = callerFor(world.mcpUrl, wrong.tokenStore("alice@example.com"), "alice@example.com");
      const result = await c.caller.callTool({ name: "whoami", arguments: {} });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.failure.message).toContain("whoami-server");
        expect(result.failure.message).toContain("token store failed reading the tokens");
        expect(result.failure.message).toContain("VaultError decrypt_failed");
      }
      expect(JSON.stringify(result)).not.toContain("alice@example.com");
      expect(JSON.stringify(result)).not.toContain(g.accessToken);
      expect(c.errors.map((e) => e.code)).toEqual(["token_store_failed"]);
      expect(c.errors[0]?.message).toContain('principal "alice@example.com"');
    } finally {
      await world.close();
    }
  });
});

describe("key rotation", () => {
  it("re-encrypts every row under the new key in batches; afterwards the old key can go", async () => {
    const schema = db.schema();
    const k1 = newKey("k1");
    const k2 = newKey("k2");
    const before = await open(schema, [k1]);
    const people = ["ann", "ben", "cat", "dan", "eve"];
    for (const who of people) await before.tokenStore(who).saveTokens(RESOURCE, tokens(who));
    await before.tokenStore("ann").saveClient(client.issuer, client);
    const during = await open(schema, [k2, k1]);
    // Old rows still read during the rotation window; new writes use the new key.
    expect(await during.tokenStore("cat").loadTokens(RESOURCE)).toEqual(tokens("cat"));
    const report = await during.rotate({ batchSize: 2 });
    expect(report).toMatchObject({ tokens: 5, clients: 1, remaining: 0 });
    expect(report.batches).toBeGreaterThanOrEqual(4); // 2 + 2 + 1 tokens, then the client
    const ids = await raw(`SELECT DISTINCT key_id FROM ${schema}.tokens UNION SELECT DISTINCT key_id FROM ${schema}.clients`);
    expect(ids.rows.map((r) => r.key_id)).toEqual(["k2"]);
    const after = await open(schema, [k2]);
    for (const who of people) expect(await after.tokenStore(who).loadTokens(RESOURCE)).toEqual(tokens(who));
    expect(await after.tokenStore("x").loadClient(client.issuer)).toEqual(client);
    expect(await during.rotate()).toMatchObject({ tokens: 0, clients: 0, remaining: 0 });
    const old = await Promise.resolve((await open(schema, [k1])).tokenStore("ann").loadTokens(RESOURCE)).catch((e: unknown) => e);
    expect((old as VaultError).code).toBe("key_missing");
  });

  it("a row whose key is not in the ring stops the rotation with that row named", async () => {
    const schema = db.schema();
    await (await open(schema, [newKey("k1")])).tokenStore("zoe").saveTokens(RESOURCE, tokens("zoe"));
    const error = await (await open(schema, [newKey("k2")])).rotate().catch((e: unknown) => e);
    expect((error as VaultError).code).toBe("key_missing");
    expect((error as Error).message).toContain('principal "zoe"');
  });
});

describe("schema and approvals", () => {
  it("workers opening the vault at once migrate it once, without errors", async () => {
    const schema = db.schema();
    const key = newKey("k1");
    const opened = await Promise.all([1, 2, 3, 4].map(() => open(schema, [key])));
    expect(opened).toHaveLength(4);
    const meta = await raw(`SELECT version FROM ${schema}.meta`);
    expect(meta.rows).toEqual([{ version: 1 }]);
  });

  it("approvals are per principal: one person's approval or first use is not another's", async () => {
    const vault = await open(db.schema(), [newKey("k1")]);
    const tool = { name: "send", inputSchema: { type: "object" as const } };
    const changed = { ...tool, description: "now also deletes" };
    const alice = vault.approvals("alice");
    const bob = vault.approvals("bob", { newTools: "hold" });
    expect((await alice.gate("mail", [tool])).allowed.map((t) => t.name)).toEqual(["send"]); // first use, recorded
    expect(await alice.approved("mail", "send")).toBe(fingerprintTool(tool));
    expect(await bob.approved("mail", "send")).toBeUndefined();
    expect((await bob.gate("mail", [tool])).held).toEqual([
      { server: "mail", name: "send", reason: "new", fingerprint: fingerprintTool(tool) },
    ]);
    const drift = await alice.gate("mail", [changed]);
    expect(drift.allowed).toEqual([]);
    expect(drift.held[0]).toMatchObject({ reason: "changed", approved: fingerprintTool(tool) });
    await bob.approve("mail", [{ name: "send", fingerprint: fingerprintTool(changed) }]);
    expect((await bob.gate("mail", [changed])).allowed).toHaveLength(1);
    expect((await alice.gate("mail", [changed])).held).toHaveLength(1);
  });

  it("approvalStore: the manager's synchronous store for one principal, written through to the database", async () => {
    const vault = await open(db.schema(), [newKey("k1")]);
    const tool = { name: "send", inputSchema: { type: "object" as const } };
    const store = await vault.approvalStore("alice");
    expect(store.gate("mail", [tool]).allowed).toHaveLength(1); // first use, approved in memory at once
    expect(store.approved("mail", "send")).toBe(fingerprintTool(tool));
    await store.flush();
    expect(await vault.approvals("alice").approved("mail", "send")).toBe(fingerprintTool(tool)); // and in the database
    const other = await vault.approvalStore("bob", { newTools: "hold" });
    expect(other.gate("mail", [tool]).held.map((h) => h.reason)).toEqual(["new"]);
    const again = await vault.approvalStore("alice"); // another worker, later
    expect(again.approved("mail", "send")).toBe(fingerprintTool(tool));
    expect(store.path).not.toContain("alice");
  });
});
