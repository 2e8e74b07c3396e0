/**
 * The vault section: the per-call overhead of the PostgreSQL token vault (`@toolwright/vault`,
 * tokens sealed with AES-256-GCM, refresh under an advisory lock) against the in-memory store
 * (`createMemoryTokenStore`), measured side by side in one worker process per repetition on a
 * throwaway cluster (fsync off). The memory store is the floor (`raw`), so the ratio is the vault's.
 */
import { fileURLToPath } from "node:url";
import { PostgresMissingError, startThrowawayPostgres } from "@toolwright/dbos/postgres";
import { parseResult, run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));

interface Costs {
  readonly save: number;
  readonly load: number;
  readonly coldCall: number;
  readonly refresh: number;
}

interface VaultResult {
  readonly memory: Costs;
  readonly vault: Costs;
  readonly refreshesSent: number;
}

/** µs per operation, `config.reps` fresh worker processes against one cluster. Empty (with a note) without PostgreSQL. */
export async function measureVault(config: BenchConfig, log: (line: string) => void, note: (text: string) => void): Promise<Row[]> {
  let pg: Awaited<ReturnType<typeof startThrowawayPostgres>>;
  try {
    pg = await startThrowawayPostgres();
  } catch (error) {
    if (!(error instanceof PostgresMissingError)) throw error;
    note(`vault section skipped: ${error.message}`);
    return [];
  }
  const ops = config.quick ? 300 : 1000;
  const results: VaultResult[] = [];
  try {
    for (let rep = 0; rep < config.reps; rep++) {
      const finished = await run(process.execPath, ["--import", "tsx", `${HERE}vault-worker.ts`, pg.url("postgres"), String(ops)], {
        cwd: `${HERE}..`,
        timeoutMs: 300_000,
      });
      const r = parseResult<VaultResult>(finished, "vault worker");
      results.push(r);
      const pair = (k: keyof Costs) => `${k} ${r.memory[k].toFixed(0)} / ${r.vault[k].toFixed(0)} µs`;
      log(`  vault rep ${rep + 1} (memory / vault): ${pair("load")}, ${pair("save")}, ${pair("coldCall")}, ${pair("refresh")}`);
    }
  } finally {
    await pg.stop();
  }
  note(
    `vault: ${ops} sequential operations per repetition (refresh: ${Math.max(20, Math.floor(ops / 5))}, each sent to a token endpoint on 127.0.0.1: ${results.map((r) => r.refreshesSent).join(", ")} sent by the vault runs); memory = createMemoryTokenStore (the floor), toolwright = createPostgresVault(...).tokenStore(principal) on PostgreSQL on 127.0.0.1, fsync off. "cold call" = a new OAuth provider's first authorize() (loads the token); a warm provider keeps the token in memory, so a call through a live connection costs the same with either store.`,
  );
  const row = (measure: string, pick: (c: Costs) => number) => [
    makeRow({
      section: "vault",
      measure,
      server: "token-store",
      client: "raw",
      label: "in-memory store",
      unit: "µs/op",
      better: "lower",
      values: results.map((r) => pick(r.memory)),
    }),
    makeRow({
      section: "vault",
      measure,
      server: "token-store",
      client: "toolwright",
      label: "PostgreSQL vault",
      unit: "µs/op",
      better: "lower",
      values: results.map((r) => pick(r.vault)),
    }),
  ];
  return [
    ...row("token read (loadTokens)", (c) => c.load),
    ...row("token write (saveTokens)", (c) => c.save),
    ...row("cold call: provider loads its token", (c) => c.coldCall),
    ...row("refresh (expired token, one token request)", (c) => c.refresh),
  ];
}
