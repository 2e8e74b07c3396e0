/**
 * The `toolwright add <server>` command for the CLI: flags, help, the one-line summary, `--json`,
 * and exit codes (0 edited, 2 bad input: unknown server, no or bad mcp.json, a design that does not
 * parse or has no `design({...})`, a server already declared without --force, a server that fails).
 */
import type { Argv, CommandModule } from "yargs";
import { reportCommand } from "../command-error.js";

/** Where the command prints (the CLI's `CliIo`, structurally). */
interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd?: string;
}

/** The yargs command; `setAction` receives the work to run after parsing. */
export function addCommand(io: CommandIo, setAction: (action: () => Promise<number>) => void): CommandModule {
  return {
    command: "add <server>",
    describe: "Insert a server from mcp.json and its toolset into an existing design (comments and formatting kept)",
    builder: (y: Argv) =>
      y
        .positional("server", { type: "string", demandOption: true, describe: "The server's name in the mcp.json" })
        .option("design", { type: "string", default: "design.ts", describe: "The design file to edit" })
        .option("from", {
          type: "string",
          describe:
            "The mcp.json holding the server: a path, or project, cursor, vscode, claude-code, claude. Default: the files the design already uses, then the well-known ones",
        })
        .option("inline", {
          type: "boolean",
          default: false,
          describe: "Write the server's tools as DSL code you can edit (from the design's lock, else by connecting now)",
        })
        .option("force", { type: "boolean", default: false, describe: "Replace the design's existing declaration of this server" })
        .option("timeout", { type: "number", default: 20_000, describe: "--inline without a lock: milliseconds to connect and list tools" })
        .option("json", { type: "boolean", default: false, describe: "Print a machine-readable JSON summary" })
        .example("$0 add memory", "declare server memory (from .toolwright/mcp.json) and a toolset using it")
        .example("$0 add memory --inline", "the same, with its pulled tools written as t.tool(...) code")
        .epilogue(
          "Only the new declarations are inserted: every other byte of the design stays as it was. Exit codes: 0 edited, 2 bad input (unknown server, no or bad mcp.json, a design that does not parse, the server already declared without --force, the server failing to list its tools, or the design changing under the edit; nothing is written). Runs on one design take turns through a lock file next to it.",
        ),
    handler: (a) => {
      const args = a as unknown as {
        server: string;
        design: string;
        from?: string;
        inline: boolean;
        force: boolean;
        timeout: number;
        json: boolean;
      };
      // The command's code (a TypeScript parser for the design) loads only when it runs.
      setAction(async () => {
        const { addSummaryLine, runAdd } = await import("./add.js");
        return reportCommand(
          "add",
          args.json,
          io,
          () =>
            runAdd({
              server: String(args.server),
              design: args.design,
              inline: args.inline,
              force: args.force,
              timeoutMs: args.timeout,
              ...(args.from === undefined ? {} : { from: args.from }),
              ...(io.cwd === undefined ? {} : { cwd: io.cwd }),
            }),
          addSummaryLine,
        );
      });
    },
  };
}
