/**
 * Per-user credentials on PostgreSQL as users get them (issue 31): the packed runtime and vault
 * installed into an empty project outside the repository, a user program compiled by that
 * project's tsc under a strict NodeNext tsconfig, then run phase by phase against a throwaway
 * PostgreSQL, a scripted authorization server and a real streamable HTTP MCP server on 127.0.0.1
 * that takes only live bearer tokens. It checks that each user's calls carry that user's token,
 * that no token is stored or printed in the clear, that key rotation keeps calls working, and that
 * a revoked grant ends one user's calls in `auth_required` and nobody else's. The TypeScript samples
 * of docs/guides/many-users.md compile against the same installed packages.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blocksOf, readPage } from "../docs/extract.js";
import { NPM_FLAGS, packWorkspaces, REPO, type RunResult, run, USER_TSCONFIG } from "./support.js";
import { VAULT_APP } from "./vault-app.js";
import { startVaultWorld, VAULT_CLIENT_ID, type VaultWorld } from "./vault-world.js";

const rootPkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { devDependencies: { [name: string]: string } };
// `ai` is the AI SDK adapter's peer dependency: the guide's samples hand a principal's registry to it.
const EXTRA = ["typescript", "@types/node", "ai"].map((n) => `${n}@${rootPkg.devDependencies[n]}`);
const ALICE = "alice@example.com";
const BOB = "bob@example.com";

let dir = "";
let app = "";
let postgres: ThrowawayPostgres | undefined;
let world: VaultWorld | undefined;

const ok = (r: RunResult, what: string): RunResult => {
  expect(r.code, `${what} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tw-vault-product-"));
  const tarballs = join(dir, "tarballs");
  app = join(dir, "app");
  mkdirSync(tarballs);
  mkdirSync(join(app, "src"), { recursive: true });
  const packed = await packWorkspaces(tarballs);
  const tgz = (name: string) => join(tarballs, packed.find((p) => p.name === name)?.filename ?? `${name}-missing.tgz`);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const names = ["@toolwright/runtime", "@toolwright/vault", "@toolwright/ai-sdk"];
  const installed = await run("npm", ["install", ...NPM_FLAGS, ...names.map(tgz), ...EXTRA], app, 600_000);
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
  postgres = await startThrowawayPostgres();
  world = await startVaultWorld();
}, 900_000);

afterAll(async () => {
  await world?.close();
  await postgres?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** Every row of the vault's tables, each cell as text; a bytea cell as UTF-8, hex and base64. */
async function vaultRows(): Promise<{ tokens: { [column: string]: unknown }[]; version: unknown; text: string }> {
  const client = new pg.Client({ connectionString: postgres?.url("postgres"), connectionTimeoutMillis: 60_000, query_timeout: 60_000 });
  await client.connect();
  try {
    const text: string[] = [];
    const all: { [column: string]: unknown }[] = [];
    const meta = await client.query<{ version: unknown }>("SELECT version FROM app_vault.meta");
    for (const table of ["tokens", "clients", "approvals", "meta"]) {
      const { rows } = await client.query<{ [column: string]: unknown }>(`SELECT * FROM app_vault.${table}`);
      if (table === "tokens") all.push(...rows);
      for (const row of rows)
        for (const cell of Object.values(row))
          text.push(Buffer.isBuffer(cell) ? `${cell.toString("utf8")} ${cell.toString("hex")} ${cell.toString("base64")}` : String(cell));
    }
    return { tokens: all, version: meta.rows[0]?.version, text: text.join("\n") };
  } finally {
    await client.end();
  }
}

/** The issued tokens found in `text` (none is the answer wanted). */
const leaked = (text: string): string[] => (world?.issued() ?? []).filter((t) => text.includes(t));

interface CallReport {
  ok: boolean;
  echoed?: { principal?: string };
  kind?: string;
  message?: string;
  reauthorize: string[];
}

/** Runs one phase of the compiled user program with `keys`; returns its JSON line. The program never prints a token. */
async function phase(name: string, keys: readonly { id: string; key: string }[]): Promise<{ [key: string]: unknown }> {
  const env = {
    DATABASE_URL: postgres?.url("postgres") ?? "",
    VAULT_KEYS: JSON.stringify(keys),
    MCP_URL: world?.mcpUrl ?? "",
    CLIENT_ID: VAULT_CLIENT_ID,
    GRANTS_FILE: join(dir, "grants.json"),
  };
  const r = ok(await run(process.execPath, ["dist/main.js", name], app, 180_000, env), `phase ${name}`);
  expect(leaked(`${r.stdout}\n${r.stderr}`), `phase ${name} printed a token`).toEqual([]);
  for (const k of keys) expect(`${r.stdout}\n${r.stderr}`, `phase ${name} printed key ${k.id}`).not.toContain(k.key);
  return JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}") as { [key: string]: unknown };
}

describe("the vault and many principals, from the packed tarballs", () => {
  it("the user program compiles under a strict NodeNext tsconfig against the installed packages", async () => {
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(USER_TSCONFIG, null, 2));
    writeFileSync(join(app, "src", "main.ts"), VAULT_APP);
    ok(await run("npx", ["--no-install", "tsc", "-p", "tsconfig.json"], app, 300_000), "tsc");
  }, 320_000);

  it("each user's calls carry their own token; nothing in the clear in PostgreSQL; rotation; a revoked grant", async () => {
    const w = world as VaultWorld;
    const k1 = { id: "2026-12", key: randomBytes(32).toString("base64") };
    const k2 = { id: "2027-01", key: randomBytes(32).toString("base64") };
    writeFileSync(join(dir, "grants.json"), JSON.stringify({ [ALICE]: w.seed(ALICE), [BOB]: w.seed(BOB) }));
    // A control: the scan finds a token that is there, or its silence proves nothing.
    expect(leaked(`x${w.issued()[0]}x`)).toHaveLength(1);

    expect((await phase("seed", [k1])).schemaVersion).toBe(1);
    let rows = await vaultRows();
    expect(rows.tokens.map((r) => [r.principal, r.resource, r.key_id, r.state]).sort()).toEqual([
      [ALICE, w.mcpUrl, k1.id, "active"],
      [BOB, w.mcpUrl, k1.id, "active"],
    ]);
    expect(rows.version).toBe(1); // the migrations ran
    expect(leaked(rows.text)).toEqual([]);

    const first = (await phase("call", [k1])).calls as { [id: string]: CallReport[] };
    for (const id of [ALICE, BOB]) {
      expect(first[id]?.map((c) => [c.ok, c.echoed?.principal, c.message])).toEqual([
        [true, id, undefined],
        [true, id, undefined],
      ]);
    }
    const afterFirst = w.refreshes();
    expect(afterFirst[ALICE]).toBeGreaterThanOrEqual(1);
    expect(afterFirst[BOB]).toBeGreaterThanOrEqual(1);
    expect([w.calls(), w.foreign()]).toEqual([4, 0]);
    expect(new Set(w.seen())).toEqual(new Set([ALICE, BOB]));
    rows = await vaultRows();
    expect(leaked(rows.text)).toEqual([]);

    const rotated = (await phase("rotate", [k2, k1])).rotation as { tokens: number; remaining: number };
    expect(rotated.tokens).toBe(2);
    expect(rotated.remaining).toBe(0);
    rows = await vaultRows();
    expect(rows.tokens.map((r) => r.key_id)).toEqual([k2.id, k2.id]);
    expect(leaked(rows.text)).toEqual([]);

    // The old key is gone: every row must decrypt under the new one, the refresh tokens included.
    const second = (await phase("call", [k2])).calls as { [id: string]: CallReport[] };
    for (const id of [ALICE, BOB])
      expect(second[id]?.map((c) => [c.ok, c.echoed?.principal])).toEqual([
        [true, id],
        [true, id],
      ]);
    const afterSecond = w.refreshes();
    expect(afterSecond[ALICE]).toBeGreaterThan(afterFirst[ALICE] ?? 0);
    expect(afterSecond[BOB]).toBeGreaterThan(afterFirst[BOB] ?? 0);
    expect([w.calls(), w.foreign()]).toEqual([8, 0]);

    expect([rows.text.includes(k1.key), rows.text.includes(k2.key)]).toEqual([false, false]);

    // Alice removes the app at the authorization server.
    w.revoke(ALICE);
    const third = (await phase("call", [k2])).calls as { [id: string]: CallReport[] };
    for (const c of third[ALICE] ?? []) {
      expect(c.ok).toBe(false);
      expect(c.kind).toBe("auth_required");
      expect(c.message).toMatch(/\bcrm\b/);
    }
    // Both calls say what the application must do, not a bare "HTTP 401".
    for (const c of third[ALICE] ?? []) expect(c.message).toMatch(/invalid_grant.*the user must authorize again/);
    expect(third[ALICE]).toHaveLength(2);
    expect(third[ALICE]?.at(-1)?.reauthorize).toEqual([w.mcpUrl]);
    expect(third[BOB]?.map((c) => [c.ok, c.echoed?.principal, c.reauthorize])).toEqual([
      [true, BOB, []],
      [true, BOB, []],
    ]);
    expect(w.invalidGrants()).toBeGreaterThanOrEqual(1);
    // Only Bob's two calls reached the tool: Alice's revoked grant sent nothing with anybody's token.
    expect([w.calls(), w.foreign()]).toEqual([10, 0]);
    rows = await vaultRows();
    const byPrincipal = Object.fromEntries(rows.tokens.map((r) => [String(r.principal), r]));
    expect([byPrincipal[ALICE]?.state, byPrincipal[ALICE]?.sealed]).toEqual(["reauthorize", null]);
    expect(byPrincipal[BOB]?.state).toBe("active");
    expect(leaked(rows.text)).toEqual([]);

    // A control: Bob's token on a call made for Alice is seen as foreign, or the zeros above prove nothing.
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: { principal: ALICE } } };
    await fetch(w.mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${w.liveToken(BOB)}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(call),
      signal: AbortSignal.timeout(60_000),
    }).then((r) => r.body?.cancel());
    expect(w.foreign()).toBe(1);
  }, 600_000);

  it("the TypeScript samples of docs/guides/many-users.md and of the installed vault README compile against the installed packages", async () => {
    const ts = (markdown: string) => blocksOf(markdown).filter((b) => b.lang === "ts" || b.lang === "typescript");
    const guide = ts(readPage("docs/guides/many-users.md"));
    const readme = ts(readFileSync(join(app, "node_modules", "@toolwright", "vault", "README.md"), "utf8"));
    expect([guide.length >= 3, readme.length >= 1]).toEqual([true, true]);
    const samples = [...guide, ...readme];
    mkdirSync(join(app, "guide"), { recursive: true });
    const files = samples.map((b, i) => {
      const file = `guide/sample-${i + 1}.ts`;
      writeFileSync(join(app, file), b.code);
      return file;
    });
    const { rootDir: _r, outDir: _o, ...options } = USER_TSCONFIG.compilerOptions;
    // skipLibCheck: the AI SDK's own declarations need the DOM lib and @types/json-schema; ours are
    // checked with skipLibCheck off by the user program above.
    const compilerOptions = { ...options, noEmit: true, skipLibCheck: true };
    // A control: a sample naming an export the vault does not have must fail, or the check proves nothing.
    writeFileSync(join(app, "guide", "control.ts"), 'export { createPostgresVaultRenamed } from "@toolwright/vault";\n');
    const all = [...files, "guide/control.ts"];
    writeFileSync(join(app, "tsconfig.guide.json"), JSON.stringify({ compilerOptions, files: all }, null, 2));
    const r = await run("npx", ["--no-install", "tsc", "-p", "tsconfig.guide.json", "--pretty", "false"], app, 300_000);
    const errors = `${r.stdout}${r.stderr}`.split("\n").filter((l) => /error TS\d+/.test(l));
    expect(
      errors.filter((e) => !e.startsWith("guide/control.ts")),
      r.stdout,
    ).toEqual([]);
    expect(errors.join("\n")).toMatch(/guide\/control\.ts.*createPostgresVaultRenamed/);
  }, 320_000);
});
