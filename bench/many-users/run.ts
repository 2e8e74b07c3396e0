/**
 * `npm run load:many-users`: the load test of issue 31. One agent backend serving many users: a
 * real PostgreSQL (throwaway cluster) holding the token vault, a scripted OAuth server whose access
 * tokens expire every few seconds, three streamable HTTP MCP servers checking every token, worker
 * processes serving 1,000 principals x 3 servers, and random `kill -9` of a worker. First the same
 * load runs with one static token (the latency baseline), then with per-user OAuth.
 *
 *   npm run load:many-users -- [--seconds 60] [--workers 2] [--principals 1000] [--ttl 5]
 *                               [--kills 2] [--concurrency 4] [--store vault|memory]
 *
 * Exits 1 when a want fails (refreshes per expiry, foreign tokens, lost or failed calls).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import { type IssuedTokens, type ScriptedAuthServer, startScriptedAuthServer } from "./auth-server.js";
import { type PhaseResult, runPhase } from "./drive.js";
import { type GuardedServer, type GuardStats, startGuardedServer } from "./guarded-server.js";
import type { StoreMode, WorkerConfig } from "./protocol.js";
import { buildReport, formatReport } from "./report.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    workers: { type: "string", default: "2" },
    principals: { type: "string", default: "1000" },
    ttl: { type: "string", default: "5" },
    kills: { type: "string", default: "2" },
    concurrency: { type: "string", default: "4" },
    store: { type: "string", default: "vault" },
  },
});

function intArg(name: keyof typeof values, min: number, max: number): number {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${name} must be an integer from ${min} to ${max}, got ${values[name]}`);
  return n;
}

const seconds = intArg("seconds", 5, 600);
const workers = intArg("workers", 2, 8);
const principals = intArg("principals", 1, 5000);
const ttl = intArg("ttl", 2, 60);
const kills = intArg("kills", 0, 10);
const concurrency = intArg("concurrency", 1, 64);
if (values.store !== "vault" && values.store !== "memory") throw new Error(`--store must be vault or memory, got ${values.store}`);
const mode = values.store as StoreMode;
const log = (line: string) => console.error(`[many-users ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Seeds one grant per (principal, server), as if every user had consented before the run. */
async function seedGrants(as: ScriptedAuthServer, servers: readonly GuardedServer[], pg: ThrowawayPostgres | undefined, dir: string) {
  const grants: [string, string, IssuedTokens][] = [];
  for (let i = 0; i < principals; i++) {
    const principal = `user-${String(i).padStart(4, "0")}`;
    for (const s of servers) grants.push([principal, s.url, as.seed(principal, s.url)]);
  }
  if (mode === "memory") {
    const seedFile = join(dir, "seed.json");
    writeFileSync(seedFile, JSON.stringify(Object.fromEntries(grants.map(([p, url, t]) => [`${p} ${url}`, t]))), { mode: 0o600 });
    return { seedFile };
  }
  const vaultKey = randomBytes(32).toString("base64");
  const databaseUrl = (pg as ThrowawayPostgres).url("postgres");
  const { createPostgresVault } = await import("@toolwright/vault");
  const vault = await createPostgresVault({ connectionString: databaseUrl, keys: [{ id: "k1", key: vaultKey }] });
  try {
    for (const [principal, url, tokens] of grants) await vault.tokenStore(principal).saveTokens(url, tokens);
  } finally {
    await vault.close();
  }
  return { vaultKey, databaseUrl };
}

const minus = (after: GuardStats, before: GuardStats): GuardStats => ({
  calls: after.calls - before.calls,
  foreign: after.foreign - before.foreign,
  unauthorized: after.unauthorized - before.unauthorized,
  examples: after.examples.slice(before.examples.length),
});

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "tw-many-users-"));
  let pg: ThrowawayPostgres | undefined;
  let as: ScriptedAuthServer | undefined;
  const servers: GuardedServer[] = [];
  try {
    as = await startScriptedAuthServer({ accessTtlSeconds: ttl });
    const check = as.principalOf;
    for (const name of ["calendar", "mail", "files"]) servers.push(await startGuardedServer({ name, issuer: as.url, check }));
    if (mode === "vault") {
      pg = await startThrowawayPostgres({ settings: { max_connections: 200 } });
      log(`PostgreSQL on port ${pg.port}`);
    }
    const seeded = await seedGrants(as, servers, pg, dir);
    log(`seeded ${principals * servers.length} grants (${mode}); access tokens live ${ttl} s`);
    const urls = servers.map((s) => ({ name: s.name, url: s.url }));
    const phase = (config: WorkerConfig, killCount: number): Promise<PhaseResult> =>
      runPhase({ config, workers, principals, seconds, concurrency, kills: killCount, log });

    const loadBefore = loadavg()[0] ?? 0;
    log("phase 1: one static token (baseline)");
    const baseline = await phase({ mode: "static", servers: urls, staticToken: as.staticToken() }, 0);
    const before = servers.map((s) => s.stats());
    log(`phase 2: per-user OAuth, ${mode} store, ${kills} kill -9`);
    // On a busy machine a request can take over a second to reach the server: refresh that early.
    const refreshSkewSeconds = Math.max(1, Math.floor(ttl / 3));
    const auth = await phase({ mode, servers: urls, refreshSkewSeconds, ...seeded }, kills);
    const guards = servers.map((s, i) => minus(s.stats(), before[i] as GuardStats));
    const revoked = new Set(as.revokedGrants());
    const urlOf = new Map(urls.map((s) => [s.name, s.url]));
    const failedOnRevoked = auth.failedCalls.filter((c) => revoked.has(`${c.principal} ${urlOf.get(c.server)}`)).length;
    const rows = buildReport({ mode, auth, baseline, as: as.stats(auth.killedPids), guards, failedOnRevoked });
    console.log(
      `\nmany users: ${principals} principals x ${servers.length} servers, ${workers} workers, ${seconds} s per phase, tokens live ${ttl} s, load average ${loadBefore.toFixed(1)} at the start and ${(loadavg()[0] ?? 0).toFixed(1)} at the end\n`,
    );
    console.log(formatReport(rows));
    for (const [failure, n] of [...auth.failures, ...baseline.failures].slice(0, 8)) console.log(`  failure x${n}: ${failure}`);
    return rows.some((r) => r.pass === false) ? 1 : 0;
  } finally {
    await Promise.allSettled(servers.map((s) => s.close()));
    await as?.close();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`many-users load test failed: ${error.stack ?? error.message}`);
    process.exit(2);
  },
);
