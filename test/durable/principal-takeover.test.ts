/**
 * Durable runs made for principals survive a SIGKILL of their worker (issue 31): real DBOS and
 * PostgreSQL, each principal's tokens in the PostgreSQL vault, a scripted authorization server and
 * a token-checking HTTP MCP server on 127.0.0.1 that records whose token each call carried and holds
 * one call per run open, so the kill lands mid-run. The worker holding every run is killed; the
 * other takes them over and must resume each with its own principal's identity from the vault.
 * Both ways a call is sent: in the run's workflow, and as a child workflow on the server's queue.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDurableClient, type DurableClient } from "@toolwright/dbos";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import { createPostgresVault } from "@toolwright/vault";
import { afterAll, beforeAll, expect, it } from "vitest";
import { newKey } from "../vault/support/cluster.js";
import { startOAuthWorld, type WorldCall } from "../vault/support/oauth-world.js";
import { spawnWorker, stillRunning, stopWorkers, type WorkerProcess, waitFor } from "./support/harness.js";

const SCRIPT = fileURLToPath(new URL("./support/principal-worker.ts", import.meta.url));
let pg: ThrowawayPostgres | undefined;
let dir = "";
beforeAll(async () => {
  pg = await startThrowawayPostgres();
  dir = mkdtempSync(join(tmpdir(), "tw-principal-"));
}, 90_000);
afterAll(async () => {
  const postmaster = pg?.pid();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  expect(stillRunning([postmaster ?? -1]), "PostgreSQL left running").toEqual([]);
});

/** The principal a call was made for, read from its idempotency key (`run-<principal>/<index>`). */
const principalOfKey = (key: string | null) => /^run-([a-z]+)\/\d+$/.exec(key ?? "")?.[1];
/** How many calls reached the server under each idempotency key. */
function perKey(calls: readonly WorldCall[]): { [key: string]: number } {
  const out: { [key: string]: number } = {};
  for (const c of calls) out[c.key ?? "(none)"] = (out[c.key ?? "(none)"] ?? 0) + 1;
  return out;
}

const paths = [
  { path: "in the run's workflow", limits: undefined },
  { path: "on the server's queue", limits: JSON.stringify({ who: { concurrency: 8 } }) },
];

it.each(paths)(
  "a SIGKILLed worker's runs resume on another worker with each principal's own vault token; a revoked grant fails its run only ($path)",
  async ({ limits }) => {
    const world = await startOAuthWorld();
    const people = ["alice", "bob", "carol"];
    const key = newKey("k1");
    const n = paths.findIndex((p) => p.limits === limits);
    const schema = `tw_vault_takeover_${process.pid}_${n}`;
    const dbosUrl = pg?.url(`tw_principal_${n}`) ?? "";
    const vault = await createPostgresVault({ connectionString: pg?.url("postgres") ?? "", schema, keys: [key] });
    const workers: WorkerProcess[] = [];
    let client: DurableClient | undefined;
    try {
      // The application's client and a live grant per principal, in the vault only.
      world.knowClient("dyn-seed");
      await vault
        .tokenStore("app")
        .saveClient(world.issuer, { clientId: "dyn-seed", tokenEndpointAuthMethod: "none", issuer: world.issuer, source: "dynamic" });
      const refreshTokens = new Map<string, string>();
      for (const id of people) {
        const g = world.grant(id);
        refreshTokens.set(id, g.refreshToken);
        await vault.tokenStore(id).saveTokens(world.mcpUrl, {
          accessToken: g.accessToken,
          refreshToken: g.refreshToken,
          tokenType: "Bearer",
          expiresAt: g.expiresAt,
          issuer: world.issuer,
        });
      }
      const spawn = (id: string) => {
        const w = spawnWorker({
          script: SCRIPT,
          databaseUrl: dbosUrl,
          executorId: id,
          ledgerFile: join(dir, "unused.jsonl"),
          env: {
            TW_VAULT_URL: pg?.url("postgres") ?? "",
            TW_SCHEMA: schema,
            TW_KEY: key.key,
            TW_MCP_URL: world.mcpUrl,
            ...(limits ? { TW_LIMITS: limits } : {}),
          },
        });
        workers.push(w);
        return w;
      };
      // Only worker a runs at first, so it holds every run when it dies.
      const a = spawn("principal-a");
      await a.ready;
      // After a's launch: it created and migrated the system database.
      client = await createDurableClient({ databaseUrl: dbosUrl, appName: "toolwright-test" });
      const durable = client;
      const steps = [
        { tool: "who.note", text: "0" },
        { tool: "who.put", text: "1", hold_ms: 120_000 }, // held: a dies while this call is open
        { tool: "who.note", text: "2" },
      ];
      for (const id of people) await durable.enqueue("who-agent", { steps }, { runId: `run-${id}`, principal: { id } });
      await waitFor("every run's held call to reach the server", 60_000, () =>
        people.every((id) => world.calls.some((c) => c.key === `run-${id}/1`)),
      );
      const b = spawn("principal-b");
      await b.ready;
      // Meanwhile every access token ends and carol's grant is revoked: the resumed calls must refresh
      // from each principal's own row in the vault, and carol's cannot.
      world.expireAccessTokens();
      world.revoke(refreshTokens.get("carol") ?? "");
      const beforeKill = world.calls.length;
      a.kill("SIGKILL");
      expect(await a.exited).toBe("SIGKILL");

      const results = new Map<string, unknown>();
      for (const id of ["alice", "bob"]) results.set(id, await durable.result<unknown[]>(`run-${id}`, 90_000));
      if ([...results.values()].includes(undefined)) console.error(`worker b:\n${b.output().slice(-4000)}`);
      await waitFor("carol's run to end", 90_000, async () => (await durable.status("run-carol")) === "ERROR");
      const carolError = await durable.result(`run-carol`, 1000).then(
        () => "no error",
        (error: unknown) => String((error as Error)?.message ?? error),
      );

      expect(b.takeovers).toEqual(["principal-a"]);
      for (const id of ["alice", "bob"]) {
        expect(await durable.status(`run-${id}`)).toBe("SUCCESS");
        expect(await durable.executorOf(`run-${id}`)).toBe("principal-b");
        // Every result is this principal's own: the server answers with the token's principal.
        const text = JSON.stringify(results.get(id));
        for (const part of [`note:0:${id}`, `put:1:${id}`, `note:2:${id}`]) expect(text).toContain(part);
        for (const other of people.filter((p) => p !== id)) expect(text).not.toContain(other);
      }
      // auth_required naming the server, no token in it. It comes at the resumed run's first call, the
      // replay of the recorded note: without carol's grant her registry cannot resolve any tool of `who`.
      expect(carolError).not.toMatch(/at-carol|rt-carol/);
      const failure = JSON.parse(carolError.slice(carolError.indexOf("{"), carolError.lastIndexOf("}") + 1));
      expect(failure).toMatchObject({ kind: "auth_required", server: "who", tool: "who.note" });
      expect(failure.message).toContain("who");

      // 0 foreign: every call carried the token of the principal its run was made for.
      const foreign = world.calls.filter((c) => principalOfKey(c.key) !== c.tokenOf);
      expect(foreign).toEqual([]);
      expect(world.counts.crossPrincipal).toBe(0);
      // Resumed calls were sent with freshly refreshed tokens: one refresh per principal, from the vault.
      expect(Object.fromEntries(world.counts.refreshes)).toEqual({ alice: 1, bob: 1, carol: 1 });
      expect(world.counts.invalidGrant).toBe(1);
      // Exactly once where the durable layer promises it: recorded calls are replayed, not re-sent;
      // the held `put` (declared idempotent) is sent again after the takeover under the same key.
      expect(perKey(world.calls)).toEqual({
        "run-alice/0": 1,
        "run-alice/1": 2,
        "run-alice/2": 1,
        "run-bob/0": 1,
        "run-bob/1": 2,
        "run-bob/2": 1,
        "run-carol/0": 1,
        "run-carol/1": 1, // its resend needed carol's token, which she no longer has: not sent
      });
      expect(world.calls.length - beforeKill).toBe(4); // after the kill: alice's and bob's put resent and last note
    } finally {
      await client?.close();
      await stopWorkers(workers);
      await vault.close();
      await world.close();
    }
    const left = workers.map((w) => w.pid);
    expect(stillRunning(left), "worker processes left").toEqual([]);
  },
  240_000,
);
