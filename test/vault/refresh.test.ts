/**
 * Refresh across processes on a real PostgreSQL, against a scripted authorization server on
 * 127.0.0.1 that rotates refresh tokens (a reused one is invalid_grant, as real servers do):
 * many workers seeing the same expiry send exactly one refresh; a refused grant ends that
 * principal's call as auth_required and leaves everyone else alone; an AS that forgot its dynamic
 * client gets one new registration, and nobody's grant is lost.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { callerFor, useVaultPostgres } from "./support/cluster.js";
import { ROOT, useFleet } from "./support/fleet.js";

const db = useVaultPostgres();
const { cleanup, setUp, runWorkers } = useFleet(db);

describe("one refresh across every process", () => {
  it("2 worker processes x 3 providers x 4 concurrent calls per principal: exactly one refresh per expiry, each its own token", async () => {
    const { world, vault, key, schema } = await setUp(["alice", "bob"]);
    const env = {
      TW_DB_URL: db.url(),
      TW_SCHEMA: schema,
      TW_KEY: key.key,
      TW_MCP_URL: world.mcpUrl,
      TW_PRINCIPALS: "alice,bob",
      TW_PROVIDERS: "3",
      TW_CALLS: "4",
    };
    const results = await runWorkers([env, env]);
    expect(results).toHaveLength(2 * 2 * 3 * 4);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    for (const r of results) expect(r.text).toBe(r.principal);
    expect(Object.fromEntries(world.counts.refreshes)).toEqual({ alice: 1, bob: 1 });
    expect(world.counts.invalidGrant).toBe(0);
    expect(world.counts.crossPrincipal).toBe(0);
    const stored = await vault.tokenStore("alice").loadTokens(world.mcpUrl);
    expect(stored?.accessToken).toMatch(/^at-alice-/);
    expect(stored?.expiresAt).toBeGreaterThan(Date.now());
  });
});

describe("a worker killed while it holds the refresh lock", () => {
  it("SIGKILL mid-refresh: the lock ends with its connection, the next worker refreshes once", async () => {
    const { world, vault, key, schema } = await setUp(["alice"]);
    const holder = fork(fileURLToPath(new URL("./support/lock-holder.ts", import.meta.url)), [], {
      cwd: ROOT,
      execArgv: ["--import", "tsx"],
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        TW_DB_URL: db.url(),
        TW_SCHEMA: schema,
        TW_KEY: key.key,
        TW_PRINCIPAL: "alice",
        TW_RESOURCE: world.mcpUrl,
      },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const gone = new Promise((resolve) => holder.once("exit", resolve));
    cleanup.push(() => {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill("SIGKILL");
    });
    const locked = await Promise.race([new Promise((resolve) => holder.once("message", resolve)), gone.then(() => "exited")]);
    expect(locked).toEqual({ locked: true });
    expect(await advisoryLocks()).toBe(1); // the holder's, granted
    holder.kill("SIGKILL");
    await gone;
    const alice = callerFor(world.mcpUrl, vault.tokenStore("alice"), "alice");
    const result = await alice.caller.callTool({ name: "whoami", arguments: {} });
    expect(result.ok && result.value.content).toEqual([{ type: "text", text: "alice" }]);
    expect(world.counts.refreshes.get("alice")).toBe(1);
    expect(await advisoryLocks()).toBe(0);
  });
});

async function advisoryLocks(): Promise<number> {
  const client = new pg.Client({ connectionString: db.url() });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted");
    return rows[0].n as number;
  } finally {
    await client.end();
  }
}

describe("a refused refresh", () => {
  it("invalid_grant: auth_required naming the server for that principal; the grant is marked; other principals are untouched", async () => {
    const { world, vault, grants } = await setUp(["alice", "bob"]);
    world.revoke(grants.get("alice") as string);
    const alice = callerFor(world.mcpUrl, vault.tokenStore("alice"), "alice");
    const result = await alice.caller.callTool({ name: "whoami", arguments: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failure.kind).toBe("auth_required");
      expect(result.failure.server).toBe("whoami-server");
      expect(result.failure.message).toContain("whoami-server");
      expect(result.failure.recovery.action).toBe("finish");
      // The failure says what the application must do, not a bare "HTTP 401".
      expect(result.failure.message).toMatch(/HTTP 401 .*invalid_grant.*the user must authorize again/);
      expect(JSON.stringify(result.failure)).not.toContain(grants.get("alice") as string);
    }
    expect(alice.errors.map((e) => e.code)).toEqual(["reauthorization_required"]);
    expect(alice.errors[0]?.message).toContain(world.mcpUrl);
    expect(alice.errors[0]?.message).not.toContain(grants.get("alice") as string);
    expect(alice.handlerCalls()).toBe(0); // no consent screen started for an absent user
    expect(await vault.needsReauthorization("alice")).toEqual([world.mcpUrl]);
    expect(await vault.needsReauthorization("bob")).toEqual([]);

    const bob = callerFor(world.mcpUrl, vault.tokenStore("bob"), "bob");
    const ok = await bob.caller.callTool({ name: "whoami", arguments: {} });
    expect(ok.ok && ok.value.content).toEqual([{ type: "text", text: "bob" }]);
    // Another worker serving alice later does not retry the dead grant.
    const again = callerFor(world.mcpUrl, vault.tokenStore("alice"), "alice");
    const second = await again.caller.callTool({ name: "whoami", arguments: {} });
    expect(!second.ok && second.failure.kind).toBe("auth_required");
    expect(Object.fromEntries(world.counts.refreshes)).toEqual({ alice: 1, bob: 1 });
    expect(world.counts.invalidGrant).toBe(1);
  });

  it("invalid_client after a dynamic registration: one new registration, the refresh goes through, no grant is lost", async () => {
    const { world, vault } = await setUp(["alice", "bob"]);
    world.forgetClient("dyn-seed"); // the AS was reset and forgot the application's client
    const alice = callerFor(world.mcpUrl, vault.tokenStore("alice"), "alice");
    const first = await alice.caller.callTool({ name: "whoami", arguments: {} });
    expect(first.ok && first.value.content).toEqual([{ type: "text", text: "alice" }]);
    expect(world.counts.invalidClient).toBe(1);
    expect(world.counts.registrations).toBe(1);
    const client = await vault.tokenStore("anyone").loadClient(world.issuer);
    expect(client?.clientId).toMatch(/^dyn-/);
    expect(client?.clientId).not.toBe("dyn-seed");
    const bob = callerFor(world.mcpUrl, vault.tokenStore("bob"), "bob");
    const second = await bob.caller.callTool({ name: "whoami", arguments: {} });
    expect(second.ok && second.value.content).toEqual([{ type: "text", text: "bob" }]);
    expect(world.counts.registrations).toBe(1); // bob's worker uses the stored new client
    expect(world.counts.invalidGrant).toBe(0);
    expect(await vault.needsReauthorization("alice")).toEqual([]);
    expect((await vault.tokenStore("bob").loadTokens(world.mcpUrl))?.accessToken).toMatch(/^at-bob-/);
    expect(alice.errors).toEqual([]);
  });
});
