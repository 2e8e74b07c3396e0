/**
 * The `toolwright` command line. `main(argv)` runs in-process and returns the exit code:
 * 0 ok, 1 `--check` found stale files, 2 usage or design error. The `toolwright` bin is `bin.ts`,
 * which always runs `main`, so importing this module never starts the CLI.
 */
import { type FSWatcher, watch as watchFs } from "node:fs";
import { dirname, join, resolve } from "node:path";
import yargs from "yargs";
import { addCommand } from "./add/add-command.js";
import { approveCommand } from "./approve/approve-command.js";
import { commandErrorText } from "./command-error.js";
import { isDesignError } from "./errors.js";
import { initCommand } from "./init/init-command.js";
import { checkLoadTimeout, loadTimeoutOption } from "./load/load-timeout.js";
import { mockCommand } from "./mock/mock-command.js";
import { createProgress, type Progress, type ProgressStream } from "./progress.js";
import { pullCommand } from "./pull/pull-command.js";
import { recordCommand } from "./record/record-command.js";
import { reportCommand } from "./report/report-command.js";
import type { GenProgress, GenSummary } from "./run-gen.js";
import { codegenVersion } from "./version.js";

/** Where the CLI prints, and how a `--watch` session is stopped (tests pass a signal). */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly signal?: AbortSignal;
  readonly cwd?: string;
  /** Where live progress is drawn, only when it is a terminal (default `process.stderr`). */
  readonly progress?: ProgressStream;
}

const defaultIo: CliIo = {
  stdout: (t) => process.stdout.write(t.endsWith("\n") ? t : `${t}\n`),
  stderr: (t) => process.stderr.write(t.endsWith("\n") ? t : `${t}\n`),
  progress: process.stderr,
};

const EXIT_CODES =
  "Exit codes: 0 ok, 1 --check found stale files, 2 usage or design error (including a design that does not finish loading within --load-timeout; one stuck in a synchronous loop is killed, status 137), 3 a toolset's definition tokens exceed --budget (the code is still generated).";
const ALL_EXIT_CODES =
  "Exit codes: 0 ok; 1 gen --check found stale files or pull --check a stale lock; 2 usage, design, mcp.json or server error, or a file init/add would overwrite without --force (nothing is written); 3 gen --budget exceeded.";

interface GenArgs {
  readonly design: string;
  readonly out: string;
  readonly check: boolean;
  readonly watch: boolean;
  readonly json: boolean;
  readonly cache: boolean;
  /** `--providers openai,anthropic,gemini`, unparsed. */
  readonly providers: string | undefined;
  readonly loadTimeout: number;
  /** `--budget N`: most definition tokens one toolset may cost in any provider. */
  readonly budget: number | undefined;
}

async function genOnce(args: GenArgs, io: CliIo): Promise<{ readonly code: number; readonly inputs: readonly string[] }> {
  const cwd = io.cwd ?? process.cwd();
  let summary: GenSummary;
  const progress = createProgress(io.progress, { json: args.json });
  // The generator (tsx, ajv, json-schema-to-typescript, the emitters) loads only when gen runs: the
  // command modules above hold just their yargs definitions, so --version and --help start quickly.
  const { runGen, summaryLine } = await import("./run-gen.js");
  try {
    const { parseProviders } = await import("./resolve/providers.js");
    const providers = parseProviders(args.providers);
    summary = await runGen({
      design: args.design,
      out: args.out,
      check: args.check,
      cwd,
      cache: args.cache,
      providers,
      loadTimeoutMs: args.loadTimeout,
      onProgress: genProgress(progress, args.out),
    });
  } catch (error) {
    progress.end();
    const text = commandErrorText(error, { dir: args.out, cwd });
    if (args.json) {
      const location = isDesignError(error) ? { location: error.location, problem: error.problem } : {};
      io.stdout(JSON.stringify({ ok: false, command: "gen", exitCode: 2, error: text, ...location }));
    } else io.stderr(text);
    return { code: 2, inputs: [] };
  }
  progress.end();
  const { billLines, budgetOverruns, overrunText } = await import("./tokens/bill.js");
  const overruns = args.budget !== undefined && summary.bill ? budgetOverruns(summary.bill, args.budget) : [];
  const code = args.check && summary.stale.length > 0 ? 1 : overruns.length > 0 ? 3 : 0;
  if (args.json) {
    const budget = args.budget === undefined ? {} : { budget: args.budget, overruns };
    io.stdout(JSON.stringify({ ok: code === 0, command: "gen", exitCode: code, ...summary, ...budget }));
  } else {
    for (const w of summary.warnings) io.stderr(`warning: ${w}`);
    if (code === 1) for (const f of summary.stale) io.stderr(`stale: ${args.out}/${f}`);
    (code === 0 || code === 3 ? io.stdout : io.stderr)(summaryLine(summary, args.check));
    if (summary.bill) for (const line of billLines(summary.bill)) io.stdout(line);
    if (overruns.length > 0) io.stderr(overrunText(overruns));
  }
  return { code, inputs: summary.inputs.map((f) => resolve(cwd, f)) };
}

/** Live progress for a generation: a line per phase, and the file being written. */
function genProgress(progress: Progress, out: string): (event: GenProgress) => void {
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return (e) => {
    if (e.kind === "loaded") progress.line(`  loaded ${e.design} (${secs(e.ms)})`);
    else if (e.kind === "resolved")
      progress.line(
        `  resolved ${e.toolsets} toolset${e.toolsets === 1 ? "" : "s"}, ${e.tools} tool${e.tools === 1 ? "" : "s"} (${secs(e.ms)})`,
      );
    else if (e.kind === "generated") progress.line(`  generated ${e.files} files (${secs(e.ms)})`);
    else progress.status(`toolwright gen: writing ${e.done + 1}/${e.total} ${out}/${e.path}`);
  };
}

/**
 * Regenerates whenever the design, a local file it imports, or its lock changes. Watches the
 * folder of each input (folders survive editors that save by rename); stops on abort or Ctrl-C.
 */
async function genWatch(args: GenArgs, io: CliIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const designPath = resolve(cwd, args.design);
  // Loaded here, not at the top: the lock module reaches the runtime's catalogue code.
  const { lockPathFor } = await import("./resolve/lock.js");
  const watched = new Set<string>([designPath, lockPathFor(designPath)]);
  const watchers = new Map<string, FSWatcher>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const rerun = () => {
    running = running.then(async () => track((await genOnce(args, io)).inputs));
  };
  const track = (inputs: readonly string[]) => {
    for (const f of inputs) watched.add(f);
    for (const dir of new Set([...watched].map((f) => dirname(f)))) {
      if (watchers.has(dir)) continue;
      const watcher = watchFs(dir, (_event, name) => {
        if (name !== null && !watched.has(join(dir, String(name)))) return;
        if (timer) clearTimeout(timer);
        timer = setTimeout(rerun, 100);
      });
      watchers.set(dir, watcher);
    }
  };
  track((await genOnce(args, io)).inputs);
  io.stderr(`toolwright gen --watch: watching ${args.design} and the files it imports (Ctrl-C to stop)`);
  return new Promise<number>((done) => {
    const stop = () => {
      if (timer) clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      void running.then(() => done(0));
    };
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener("abort", stop, { once: true });
    if (!io.signal) process.once("SIGINT", stop);
  });
}

/**
 * A usage error as one line: what is wrong and where the full usage is (yargs would print the whole
 * help before the reason, burying it).
 */
function usageErrorLine(reason: string, help: string): string {
  // The help yargs prepared starts with the failing command's usage, e.g. "toolwright gen <design>".
  const usage = help.trim().split("\n")[0]?.trim() ?? "";
  const command = /^toolwright ([a-z][\w-]*)/.exec(usage)?.[1];
  const see = command === undefined ? "toolwright --help" : `toolwright ${command} --help`;
  const what = /^Not enough non-option arguments/.test(reason) && command !== undefined ? `missing an argument: ${usage}` : reason;
  return `error: ${what} (see ${see})`;
}

/** Runs the CLI with `argv` (without `node` and the script). Returns the exit code; never throws. */
export async function main(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  let exitCode = 0;
  let action: (() => Promise<number>) | undefined;
  const parser = yargs([...argv])
    .scriptName("toolwright")
    .usage("$0 <command> [options]")
    .command(
      "gen <design>",
      "Generate typed code from a design file",
      (y) =>
        y
          .positional("design", { type: "string", demandOption: true, describe: "TypeScript design file (default export: design(...))" })
          .option("out", {
            type: "string",
            demandOption: true,
            describe:
              "Output folder; generated code is written only here (the re-run cache lives in node_modules/.cache/toolwright; see --cache)",
          })
          .option("check", {
            type: "boolean",
            default: false,
            describe: "Write nothing to --out; exit 1 and name the files if the output is stale",
          })
          .option("watch", { type: "boolean", default: false, describe: "Regenerate when the design or its lock changes" })
          .option("json", { type: "boolean", default: false, describe: "Print a machine-readable JSON summary" })
          .option("cache", {
            type: "boolean",
            default: true,
            describe:
              "Skip the run when the design, its imports, its lock, the generator and the output are unchanged. It records file hashes in node_modules/.cache/toolwright (the only thing written outside --out); --no-cache neither reads nor writes it",
          })
          .option("providers", {
            type: "string",
            describe: "Certify input schemas for these model providers and emit their variants: openai,anthropic,gemini (or all)",
          })
          .option("budget", {
            type: "number",
            describe: "Fail (exit 3) when a toolset's tool definitions cost more than this many tokens (o200k_base) in any provider",
          })
          .option("load-timeout", loadTimeoutOption)
          .check(checkLoadTimeout)
          .check((a) => !(a.check && a.watch) || "--check and --watch cannot be used together")
          .check(
            (a) =>
              a.budget === undefined ||
              (Number.isInteger(a.budget) && a.budget > 0) ||
              `--budget must be a positive whole number of tokens, got ${JSON.stringify(String(a.budget))}`,
          )
          .example("$0 gen design.ts --out src/gen", "generate once")
          .example("$0 gen design.ts --out src/gen --check", "CI: fail when the generated code is stale")
          .example("$0 gen design.ts --out src/gen --watch", "regenerate on every save")
          .example("$0 gen design.ts --out src/gen --json", "machine-readable summary")
          .example("$0 gen design.ts --out src/gen --providers openai,gemini", "certify schemas for OpenAI strict mode and Gemini")
          .example("$0 gen design.ts --out src/gen --budget 8000", "CI: fail when a toolset's definitions grow past 8,000 tokens")
          .epilogue(EXIT_CODES),
      (a) => {
        const args: GenArgs = {
          design: a.design as string,
          out: a.out as string,
          check: a.check,
          watch: a.watch,
          json: a.json,
          cache: a.cache,
          providers: a.providers,
          loadTimeout: a.loadTimeout,
          budget: a.budget,
        };
        action = async () => (args.watch ? genWatch(args, io) : (await genOnce(args, io)).code);
      },
    )
    .command(
      pullCommand(io, (run) => {
        action = run;
      }),
    )
    .command(
      initCommand(io, (run) => {
        action = run;
      }),
    )
    .command(
      addCommand(io, (run) => {
        action = run;
      }),
    )
    .command(
      approveCommand(io, (run) => {
        action = run;
      }),
    )
    .command(
      reportCommand(io, (run) => {
        action = run;
      }),
    )
    .command(
      recordCommand(io, (run) => {
        action = run;
      }),
    )
    .command(
      mockCommand(io, (run) => {
        action = run;
      }),
    )
    .demandCommand(1, "name a command: init, add, pull, gen, approve, report, record or mock")
    .strict()
    .help()
    .alias("h", "help")
    .version(codegenVersion())
    .epilogue(ALL_EXIT_CODES)
    .wrap(Math.min(100, process.stdout.columns || 100))
    .exitProcess(false);
  try {
    await new Promise<void>((done) => {
      void parser.parseAsync([...argv], {}, (err, _parsed, output) => {
        if (err) {
          exitCode = 2;
          // A failed .check() hands over a string; yargs' own errors are Errors.
          const reason = typeof err === "string" ? err : err instanceof Error ? err.message : (output.trim().split("\n").pop() ?? "");
          io.stderr(usageErrorLine(reason, output));
        } else if (output) {
          io.stdout(output);
        }
        done();
      });
    });
  } catch (error) {
    io.stderr(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  if (exitCode !== 0 || !action) return exitCode;
  return action();
}
