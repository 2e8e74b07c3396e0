/**
 * `toolwright record <design> [--server NAME] --out FILE`: records a scripted session on a real
 * server as a cassette for `@toolwright/testkit` replays (see record-session.ts for the script).
 */
import { relative, resolve, sep } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { commandErrorText } from "../command-error.js";

interface RecordIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd?: string;
}

interface RecordArgs {
  readonly design: string;
  readonly server: string | undefined;
  readonly out: string;
  readonly tool: readonly string[] | undefined;
  readonly timeout: number;
  readonly json: boolean;
}

/** Records and writes the cassette; returns the exit code (0 written; 2 usage, design, server or write error). Never throws. */
export async function recordAction(args: RecordArgs, io: RecordIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    // The recorder loads only when the command runs, so `toolwright --help` stays quick.
    const [{ writeFileAtomic }, { recordSession }] = await Promise.all([import("../write.js"), import("./record-session.js")]);
    const result = await recordSession({ design: args.design, cwd, server: args.server, tools: args.tool, timeoutMs: args.timeout });
    const out = resolve(cwd, args.out);
    writeFileAtomic(out, result.cassette, { within: cwd });
    const label = relative(cwd, out).split(sep).join("/");
    const failed = result.called.filter((c) => !c.ok).length;
    if (args.json) {
      io.stdout(
        JSON.stringify({
          ok: true,
          command: "record",
          exitCode: 0,
          out: label,
          server: result.server,
          called: result.called,
          skipped: result.skipped,
        }),
      );
    } else {
      for (const s of result.skipped) io.stderr(`skipped ${s.tool}: ${s.reason}`);
      io.stdout(
        `toolwright record: server "${result.server}": ${result.called.length} call(s) recorded (${failed} answered with a failure, recorded too), ${result.skipped.length} skipped; wrote ${label}`,
      );
    }
    return 0;
  } catch (error) {
    if (args.json) io.stdout(JSON.stringify({ ok: false, command: "record", exitCode: 2, error: commandErrorText(error) }));
    else io.stderr(commandErrorText(error));
    return 2;
  }
}

/** The yargs command; `setAction` receives the work to run after parsing. */
export function recordCommand(io: RecordIo, setAction: (action: () => Promise<number>) => void): CommandModule {
  return {
    command: "record [design]",
    describe: "Record a scripted session on one of the design's servers as a cassette (list the tools, call each with its example)",
    builder: (y: Argv) =>
      y
        .positional("design", {
          type: "string",
          default: "design.ts",
          describe: "TypeScript design file with externalServer(...) declarations",
        })
        .option("server", { type: "string", describe: "The externalServer to record (required when the design has several)" })
        .option("out", {
          type: "string",
          demandOption: true,
          describe: "Cassette file to write (line-based JSON, e.g. everything.cassette.jsonl)",
        })
        .option("tool", {
          type: "string",
          array: true,
          describe: "Call only these tools (repeatable); named tools are called even when annotated destructive",
        })
        .option("timeout", { type: "number", default: 20_000, describe: "Milliseconds allowed for connecting and for each call" })
        .option("json", { type: "boolean", default: false, describe: "Print a machine-readable JSON summary" })
        .check((a) => (Number.isFinite(a.timeout) && a.timeout > 0) || "--timeout must be a positive number of milliseconds")
        .example("$0 record design.ts --server everything --out everything.cassette.jsonl", "list the tools and call each with its example")
        .example("$0 record design.ts --out echo.cassette.jsonl --tool echo", "record one tool's call")
        .epilogue(
          "Tools are called in name order with the design's example payload (else one built from the lock's input schema); tools annotated destructive are skipped unless named with --tool. Secrets (env values, header tokens, bearer tokens) are redacted. Exit codes: 0 written; 2 usage, design, server or write error.",
        ),
    handler: (a) => {
      const raw = a as unknown as { design: string; server?: string; out: string; tool?: string[]; timeout: number; json: boolean };
      const args: RecordArgs = {
        design: raw.design,
        server: raw.server,
        out: raw.out,
        tool: raw.tool,
        timeout: raw.timeout,
        json: raw.json,
      };
      setAction(() => recordAction(args, io));
    },
  };
}
