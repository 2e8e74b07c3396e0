/**
 * `npm run bench [-- --quick] [-- --only=stdio,http,cold,memory,import,validation,codegen,manager,server,durable,cli,tokens,code-mode,code-mode-check,vault,replay,principals] [-- --out=<name>]`
 * Measures Toolwright, the official SDK client and a raw floor side by side in one run, and writes
 * bench/results/{latest|quick}.{md,json,svg}.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { type Machine, markdown, svgChart } from "./lib/report.ts";
import { killAll, liveChildren, minimalEnv, parseResult, run } from "./lib/spawn.ts";
import { addRatios, type Row } from "./lib/stats.ts";
import { checkTargets } from "./lib/targets.ts";
import { measureCli } from "./sections/cli.ts";
import { measureCodeMode } from "./sections/code-mode.ts";
import { measureCodeModeCheck } from "./sections/code-mode-check.ts";
import { measureCodegen } from "./sections/codegen.ts";
import { configFor } from "./sections/config.ts";
import { measureDurable } from "./sections/durable.ts";
import { measureImport, measureMemory } from "./sections/footprint.ts";
import { measureManager } from "./sections/manager.ts";
import { measurePrincipals } from "./sections/principals.ts";
import { measureReplay } from "./sections/replay.ts";
import { measureServer } from "./sections/server.ts";
import { measureTokens } from "./sections/tokens.ts";
import { measureColdStart, measureTransports, RUN_TAG } from "./sections/transport.ts";
import { measureValidation } from "./sections/validation.ts";
import { measureVault } from "./sections/vault.ts";

const RESULTS = fileURLToPath(new URL("./results/", import.meta.url));
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SECTIONS = [
  "stdio",
  "http",
  "cold",
  "memory",
  "import",
  "validation",
  "codegen",
  "manager",
  "server",
  "durable",
  "cli",
  "tokens",
  "code-mode-check",
  "code-mode",
  "vault",
  "replay",
  "principals",
] as const;

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const onlyArg = argv.find((a) => a.startsWith("--only="));
const only = new Set(onlyArg ? onlyArg.slice(7).split(",") : SECTIONS);
// `--out=<name>` writes bench/results/<name>.{md,json,svg} (e.g. one file per run of a section).
const outArg = argv.find((a) => a.startsWith("--out="))?.slice(6);
if (outArg !== undefined && !/^[a-z0-9-]+$/.test(outArg)) throw new Error(`--out=${outArg}: use lowercase letters, digits and dashes`);
const config = configFor(quick);
const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${line}\n`);

process.on("SIGINT", () => {
  killAll();
  process.exit(130);
});

/** Workers and servers of this run still alive (Linux /proc scan for the run tag; 0 elsewhere). */
function strayServers(): number {
  if (!existsSync("/proc")) return 0;
  let n = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.includes(RUN_TAG)) n++;
    } catch {
      // gone already
    }
  }
  return n;
}

async function toolwrightHttpBuilt(): Promise<boolean> {
  const code = `const m = await import("@toolwright/runtime/http"); process.stdout.write("RESULT " + JSON.stringify({ ok: typeof m.createHttpCaller === "function" }) + "\\n");`;
  try {
    const finished = await run(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, timeoutMs: 20_000 });
    return parseResult<{ ok: boolean }>(finished, "probe").ok;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  const notes: string[] = [];
  const rows: Row[] = [];
  const withHttp = await toolwrightHttpBuilt();
  if (!withHttp) notes.push("HTTP section skipped: @toolwright/runtime/http (createHttpCaller) is not built yet.");
  notes.push(`Children run with a minimal environment: ${Object.keys(minimalEnv()).join(", ")} only.`);
  notes.push("stdio latency ratios are quoted from the pinned mode (`taskset -c 0`: client and server share CPU 0).");
  notes.push(
    `Repetitions: ${config.reps} per measure; ${config.stdioTargetReps} for the raw-server stdio pinned and 64-in-flight measures, whose targets are against the floor, and ${config.managerReps} for the manager path.`,
  );
  log(`bench (${quick ? "quick" : "full"}): Node ${process.version}, ${cpus().length} cores`);
  if (only.has("stdio") || only.has("http")) {
    log("stdio / http latency and throughput");
    const transportRows = await measureTransports(config, withHttp && only.has("http"), log);
    rows.push(...transportRows.filter((r) => only.has(r.section)));
  }
  if (only.has("cold")) {
    log("cold start");
    rows.push(...(await measureColdStart(config, log)));
  }
  if (only.has("memory")) {
    log("memory");
    rows.push(...(await measureMemory(config, log)));
  }
  if (only.has("import")) {
    log("import cost");
    rows.push(...(await measureImport(config, withHttp, log)));
  }
  if (only.has("validation")) {
    log("validation");
    rows.push(...(await measureValidation(config, log, (text) => notes.push(text))));
  }
  if (only.has("codegen")) {
    log("codegen");
    const out = await measureCodegen(config, log);
    rows.push(...out.rows);
    notes.push(...out.notes);
  }
  if (only.has("manager")) {
    log("manager path");
    rows.push(...(await measureManager(config, log)));
  }
  if (only.has("server")) {
    log("generated scaffold server");
    const out = await measureServer(config, log);
    rows.push(...out.rows);
    notes.push(...out.notes);
  }
  if (only.has("durable")) {
    log("durable steps");
    rows.push(...(await measureDurable(config, log, (text) => notes.push(text))));
  }
  if (only.has("cli")) {
    log("CLI start-up");
    const out = await measureCli(config, log);
    rows.push(...out.rows);
    notes.push(...out.notes);
  }
  if (only.has("tokens")) {
    log("definition tokens per turn");
    const out = await measureTokens(log);
    rows.push(...out.rows);
    notes.push(...out.notes);
  }
  if (only.has("code-mode-check")) {
    log("code mode: type check");
    const out = await measureCodeModeCheck(config, log);
    rows.push(...out.rows);
    notes.push(...out.notes);
  }
  if (only.has("code-mode")) {
    log("code mode");
    const out = await measureCodeMode(log);
    rows.push(...out.rows);
    notes.push(...out.notes);
  }
  if (only.has("vault")) {
    log("token vault");
    rows.push(...(await measureVault(config, log, (text) => notes.push(text))));
  }
  if (only.has("replay")) {
    log("replay: a cassette call against a real stdio call");
    rows.push(...(await measureReplay(config, log, (text) => notes.push(text))));
  }
  if (only.has("principals")) {
    log("principals: one more user's first call, with and without argument validation");
    rows.push(...(await measurePrincipals(config, log, (text) => notes.push(text))));
  }
  addRatios(rows);
  const targets = checkTargets(rows, { stdio: config.stdioInFlight, http: config.httpInFlight }, config.codegenTools, config.codegenScale);
  killAll();
  // Give servers whose stdin just closed a moment to exit before looking for strays.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const stray = strayServers();
  notes.push(`Children left after the run: ${liveChildren()} tracked, ${stray} worker or server processes of this run still alive.`);
  const cpu = cpus()[0]?.model ?? "unknown cpu";
  notes.push(
    `Load average (1 min) ${loadBefore.toFixed(1)} at the start and ${(loadavg()[0] ?? 0).toFixed(1)} at the end on ${cpus().length} cores: other work on the machine adds noise; only same-run ratios are quoted.`,
  );
  const machine: Machine = {
    node: process.version,
    cores: cpus().length,
    cpu,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    mode: quick ? "quick" : "full",
    durationS: (performance.now() - started) / 1000,
    notes,
  };
  const name = outArg ?? (quick ? "quick" : "latest");
  const md = markdown(machine, rows, targets);
  writeFileSync(`${RESULTS}${name}.md`, md);
  writeFileSync(`${RESULTS}${name}.json`, `${JSON.stringify({ machine, config, targets, rows }, null, 2)}\n`);
  writeFileSync(`${RESULTS}${name}.svg`, svgChart(machine, targets));
  process.stdout.write(md);
  log(`wrote bench/results/${name}.{md,json,svg} in ${machine.durationS.toFixed(1)} s`);
}

main().catch((error: unknown) => {
  killAll();
  log(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
