/**
 * The `toolwright init` command for the CLI: flags, help, the one-line summary, `--json`, and
 * exit codes (0 written, 2 bad input: no or bad mcp.json, or a design that exists without --force).
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
export function initCommand(io: CommandIo, setAction: (action: () => Promise<number>) => void): CommandModule {
  return {
    command: "init",
    describe: "Write a starter design.ts from an existing mcp.json (one externalServer and toolset per server)",
    builder: (y: Argv) =>
      y
        .option("from", {
          type: "string",
          describe:
            "The mcp.json to start from: a path, or project (.toolwright/mcp.json), cursor (.cursor/mcp.json), vscode (.vscode/mcp.json), claude-code (.mcp.json), claude (Claude Desktop). Default: the first of these that exists",
        })
        .option("design", { type: "string", default: "design.ts", describe: "The design file to write" })
        .option("force", { type: "boolean", default: false, describe: "Overwrite an existing design file" })
        .option("json", { type: "boolean", default: false, describe: "Print a machine-readable JSON summary" })
        .example("$0 init", "design.ts from .toolwright/mcp.json (or Cursor's, VS Code's, Claude's)")
        .example("$0 init --from vscode --design src/design.ts", "start from .vscode/mcp.json")
        .epilogue(
          "Each server's connection stays in the mcp.json: the design says externalServer(name, mcpJson(file)), so pull, the generated create<Server>Caller and the manager read one entry. Exit codes: 0 written, 2 bad input (no mcp.json, a bad entry, or the design exists and --force was not given; nothing is written).",
        ),
    handler: (a) => {
      const args = a as unknown as { from?: string; design: string; force: boolean; json: boolean };
      // The command's code loads only when it runs.
      setAction(async () => {
        const { initSummaryLine, runInit } = await import("./init.js");
        return reportCommand(
          "init",
          args.json,
          io,
          () =>
            runInit({
              design: args.design,
              force: args.force,
              ...(args.from === undefined ? {} : { from: args.from }),
              ...(io.cwd === undefined ? {} : { cwd: io.cwd }),
            }),
          initSummaryLine,
        );
      });
    },
  };
}
