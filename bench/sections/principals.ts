/**
 * The principals section: what one more principal costs a many-principal manager, as the client
 * process's CPU time for a principal's first call (its own manager, OAuth provider, connection,
 * discovery and tool listing, then the call), with argument validation on (`"auto"`: ajv, shared
 * by every principal of the process) against the same run with validation off, the floor. The
 * ratio is what validation adds per principal; the note counts ajv's work per principal. The
 * server runs in another process, so its CPU time is not counted.
 */
import { fileURLToPath } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));

interface PrincipalsResult {
  readonly cpuPerPrincipalMs: number;
  readonly wallPerPrincipalMs: number;
  readonly compilesPerPrincipal: number;
  readonly ajvInstancesPerPrincipal: number;
  readonly wrong: number;
  readonly foreign: number;
}

/** `config.reps` pairs of fresh workers, the two settings alternating in each pair. */
export async function measurePrincipals(config: BenchConfig, log: (line: string) => void, note: (text: string) => void): Promise<Row[]> {
  const principals = config.quick ? 100 : 400;
  const results: { auto: PrincipalsResult[]; off: PrincipalsResult[] } = { auto: [], off: [] };
  for (let rep = 0; rep < config.reps; rep++) {
    // Alternating which goes first, so neither setting always runs on the cooler machine.
    const order = rep % 2 === 0 ? (["auto", "off"] as const) : (["off", "auto"] as const);
    for (const setting of order) {
      const finished = await run(process.execPath, ["--import", "tsx", `${HERE}principals-worker.ts`, String(principals), setting], {
        cwd: `${HERE}..`,
        timeoutMs: 600_000,
      });
      const r = parseResult<PrincipalsResult>(finished, "principals worker");
      if (r.wrong > 0 || r.foreign > 0)
        throw new Error(`principals worker: ${r.wrong} wrong answers, ${r.foreign} calls with another's token`);
      results[setting].push(r);
    }
    const last = (s: "auto" | "off") => results[s][results[s].length - 1]?.cpuPerPrincipalMs.toFixed(2);
    log(`  principals rep ${rep + 1}: ${last("auto")} ms (validation on) / ${last("off")} ms (off) CPU per principal`);
  }
  const per = (s: "auto" | "off", pick: (r: PrincipalsResult) => number) => results[s].map(pick).join(", ");
  note(
    `principals: ${principals} principals per worker, 10 first calls at a time, pool bound ${Math.max(5, Math.floor(principals / 20))}, each with its own bearer token (the server refuses another's: 0 seen). ajv per principal with validation on: instances built ${per("auto", (r) => r.ajvInstancesPerPrincipal)}, schemas compiled ${per("auto", (r) => r.compilesPerPrincipal)} (one ajv pair and one compile per process, shared; before issue 31's fix every principal built 2 instances and compiled each schema it called).`,
  );
  const base = { section: "principals", server: "guarded-http", unit: "ms", better: "lower" as const };
  return [
    makeRow({
      ...base,
      measure: "client CPU per principal, first call",
      client: "toolwright",
      label: "validateArguments auto (ajv, shared)",
      values: results.auto.map((r) => r.cpuPerPrincipalMs),
    }),
    makeRow({
      ...base,
      measure: "client CPU per principal, first call",
      client: "raw",
      label: "validateArguments off (floor)",
      values: results.off.map((r) => r.cpuPerPrincipalMs),
    }),
  ];
}
