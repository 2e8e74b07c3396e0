/**
 * The `toolwright pull <design>` command for the CLI: flags, help with examples, the one-line
 * summary, `--json`, and exit codes (0 ok, 1 stale with --check or lint findings with --strict,
 * 2 usage, design or lock error or every server failed, 3 partial pull).
 */
import type { Argv, CommandModule } from "yargs";
import { commandErrorText } from "../command-error.js";
import { checkLoadTimeout, loadTimeoutOption } from "../load/load-timeout.js";
import { createProgress, type Progress, type ProgressStream } from "../progress.js";
import type { PullProgress, PullSummary } from "./pull.js";

/** The exit code of a partial pull: some servers failed, the lock was written with those that answered. */
export const PARTIAL_PULL_EXIT = 3;

/** Where the command prints (the CLI's `CliIo`, structurally). */
interface PullIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd?: string;
  /** Where live progress is drawn when it is a terminal (stderr). */
  readonly progress?: ProgressStream;
}

/** Live progress for a pull: which servers are still connecting, and a line per finished server. */
function pullProgress(progress: Progress): (event: PullProgress) => void {
  const pending = new Set<string>();
  let total = 0;
  const show = () => progress.status(`toolwright pull: connecting ${[...pending].join(", ")} (${total - pending.size}/${total} done)`);
  return (event) => {
    if (event.kind === "connecting") {
      total = event.servers.length;
      for (const s of event.servers) pending.add(s);
    } else if (event.kind === "listed") {
      pending.delete(event.server.name);
      const secs = (event.server.ms / 1000).toFixed(1);
      progress.line(`  ${event.server.name}: ${event.server.tools} tools listed over ${event.server.transport} (${secs} s)`);
    } else {
      pending.delete(event.server);
      progress.line(`  ${event.server}: failed`);
    }
    if (pending.size > 0) show();
    else progress.end();
  };
}

interface PullArgs {
  readonly design: string;
  readonly server: readonly string[] | undefined;
  readonly timeout: number;
  readonly json: boolean;
  readonly check: boolean;
  readonly loadTimeout: number;
  readonly strict: boolean;
}

/** Runs a pull and prints its outcome; returns the exit code. Never throws. */
export async function pullAction(args: PullArgs, io: PullIo): Promise<number> {
  // The puller and the runtime load only when the command runs, so `toolwright --help` stays quick.
  const { PullError, pullSummaryLine, runPull } = await import("./pull.js");
  const { describeFieldChange, describeFinding, describeSurfaceDrift } = await import("@toolwright/runtime/catalogue");
  let summary: PullSummary;
  const progress = createProgress(io.progress, { json: args.json });
  try {
    summary = await runPull({
      onProgress: pullProgress(progress),
      design: args.design,
      ...(io.cwd === undefined ? {} : { cwd: io.cwd }),
      ...(args.server ? { servers: args.server } : {}),
      timeoutMs: args.timeout,
      check: args.check,
      loadTimeoutMs: args.loadTimeout,
      strict: args.strict,
    });
  } catch (error) {
    progress.end();
    const server = error instanceof PullError ? { server: error.server } : {};
    if (args.json) io.stdout(JSON.stringify({ ok: false, command: "pull", exitCode: 2, ...server, error: commandErrorText(error) }));
    else io.stderr(commandErrorText(error));
    return 2;
  }
  // 3: a partial pull (some servers failed, the lock holds what answered); it outranks --check and --strict.
  const code = summary.failed.length > 0 ? PARTIAL_PULL_EXIT : (args.check && summary.changed) || summary.strictFailed ? 1 : 0;
  if (args.json) io.stdout(JSON.stringify({ ok: code === 0, command: "pull", exitCode: code, ...summary }));
  else {
    for (const f of summary.failed)
      io.stderr(`error: ${f.message} (${f.kept ? "its previous lock entry is kept" : "it has no lock entry"})`);
    for (const w of summary.warnings) io.stderr(`warning: ${w}`);
    for (const f of summary.findings) io.stderr(`lint: ${describeFinding(f)}`);
    if (args.check)
      for (const d of summary.drift) {
        io.stderr(`drift: server ${JSON.stringify(d.server)}: tool ${JSON.stringify(d.tool)} ${d.change}`);
        for (const c of d.fields ?? []) io.stderr(`  ${describeFieldChange(c)}`);
      }
    if (args.check)
      for (const d of summary.surfaceDrift) {
        io.stderr(`drift: ${describeSurfaceDrift(d.server, d)}`);
      }
    (code === 0 ? io.stdout : io.stderr)(pullSummaryLine(summary, args.check));
  }
  return code;
}

/** The yargs command; `setAction` receives the work to run after parsing. */
export function pullCommand(io: PullIo, setAction: (action: () => Promise<number>) => void): CommandModule {
  return {
    command: "pull <design>",
    describe: "Snapshot the tool catalogues of the design's externalServer(...) declarations into <design>.lock.json",
    builder: (y: Argv) =>
      y
        .positional("design", {
          type: "string",
          demandOption: true,
          describe: "TypeScript design file with externalServer(...) declarations",
        })
        .option("server", { type: "string", array: true, describe: "Pull only this server (repeatable); the lock keeps the others" })
        .option("timeout", { type: "number", default: 20_000, describe: "Milliseconds allowed per server for connect and tools/list" })
        .option("json", { type: "boolean", default: false, describe: "Print a machine-readable JSON summary" })
        .option("check", {
          type: "boolean",
          default: false,
          describe:
            "Write nothing; exit 1 when the lock is stale, naming each added, removed or changed tool, prompt, resource or template",
        })
        .option("load-timeout", loadTimeoutOption)
        .option("strict", {
          type: "boolean",
          default: false,
          describe:
            "Fail (exit 1, write nothing) when the poisoning lint finds a high or medium finding in a pulled catalogue (low ones are printed only)",
        })
        .check((a) => (Number.isFinite(a.timeout) && a.timeout > 0) || "--timeout must be a positive number of milliseconds")
        .check(checkLoadTimeout)
        .example("$0 pull design.ts", "pull every external server, write design.lock.json")
        .example("$0 pull design.ts --server memory", "refresh one server's snapshot")
        .example("$0 pull design.ts --check", "CI: fail when the live servers no longer match the lock")
        .example("$0 pull design.ts --strict", "refuse to write a lock for a catalogue the lint flags")
        .example("$0 pull design.ts --json", "machine-readable summary (servers, tools, fingerprints, time)")
        .epilogue(
          "Connection details live in the design: externalServer(name, { command, args, env, cwd }) for stdio or { url, headers } for streamable HTTP. Relative cwd is the design's folder; env entries are NAME (pass through) or KEY=VALUE. Every pull lints the catalogues for poisoning (invisible or bidi Unicode, look-alike names, hidden instructions, reaching for secrets, hidden comments, very long or cross-server descriptions) and prints each finding. Servers are pulled concurrently, each within --timeout. Exit codes: 0 ok, 1 --check found a stale lock or --strict found high or medium lint findings, 2 usage, design or lock error, or every server failed (the old lock is left untouched), 3 partial pull: some servers failed and are named on stderr; the lock was written with the servers that answered, and each failed server keeps its previous entry (with --check or --strict nothing is written); a design that does not finish loading within --load-timeout is a design error.",
        ),
    handler: (a) => {
      const raw = a as unknown as {
        design: string;
        server?: (string | number)[];
        timeout: number;
        json: boolean;
        check: boolean;
        loadTimeout: number;
        strict: boolean;
      };
      const args: PullArgs = {
        design: raw.design,
        server: raw.server?.map(String),
        timeout: raw.timeout,
        json: raw.json,
        check: raw.check,
        loadTimeout: raw.loadTimeout,
        strict: raw.strict,
      };
      setAction(() => pullAction(args, io));
    },
  };
}
