/**
 * Section 11: the `toolwright` CLI's start-up. `toolwright --version` and `toolwright --help`, each
 * paired in every repetition with a bare `node -e 0` spawned right after it (fresh processes, wall
 * time), so the ratio of each pair cancels the machine's drift. The target is `--version` at most
 * 1.5× bare node (issue 25); `--help` loads yargs and the command definitions and is shown beside it.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = `${ROOT}packages/codegen/dist/bin.js`;
const MEASURES = ["--version", "--help"] as const;

async function wallMs(args: readonly string[]): Promise<number> {
  const r = await run(process.execPath, args, { cwd: ROOT, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`node ${args.join(" ")} failed (exit ${r.code}): ${r.stderr.slice(-800)}`);
  return r.wallMs;
}

/** Runs the section; skipped (with a note) when the CLI is not built. */
export async function measureCli(config: BenchConfig, log: (line: string) => void): Promise<{ rows: Row[]; notes: string[] }> {
  if (!existsSync(CLI)) return { rows: [], notes: ["CLI section skipped: packages/codegen/dist/bin.js is not built."] };
  const cli = new Map<string, number[]>(MEASURES.map((m) => [m, []]));
  const bare = new Map<string, number[]>(MEASURES.map((m) => [m, []]));
  // One more round than counted: the first warms the file-system cache.
  for (let rep = 0; rep <= config.cliReps; rep++) {
    for (const flag of MEASURES) {
      const [t, b] = [await wallMs([CLI, flag]), await wallMs(["-e", "0"])];
      if (rep === 0) continue;
      cli.get(flag)?.push(t);
      bare.get(flag)?.push(b);
    }
  }
  log(`  cli: ${config.cliReps} repetitions done`);
  const base = { section: "cli", server: "-", unit: "ms", better: "lower" as const };
  const rows = MEASURES.flatMap((flag) => [
    makeRow({ ...base, measure: `toolwright ${flag}`, client: "toolwright", label: "toolwright CLI", values: cli.get(flag) ?? [] }),
    makeRow({ ...base, measure: `toolwright ${flag}`, client: "raw", label: "node -e 0", values: bare.get(flag) ?? [] }),
  ]);
  return { rows, notes: [`CLI start: ${config.cliReps} pairs per flag, each CLI process followed by a bare \`node -e 0\`.`] };
}
