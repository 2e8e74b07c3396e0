/**
 * `toolwright report [design]`: writes one self-contained HTML file for a reviewer (each server,
 * its tools and risk levels, lint findings, and the drift since the lock side by side).
 */
import { relative, resolve, sep } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { commandErrorText } from "../command-error.js";

interface ReportIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd?: string;
}

interface ReportArgs {
  readonly design: string;
  readonly out: string | undefined;
  readonly offline: boolean;
  readonly timeout: number;
  readonly json: boolean;
}

/** Builds and writes the report; returns the exit code (0 ok, 2 design or write error). Never throws. */
export async function reportAction(args: ReportArgs, io: ReportIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    // The report's code loads only when the command runs, so `toolwright --help` stays quick.
    const [{ writeFileAtomic }, { buildReport }, { renderReportHtml }] = await Promise.all([
      import("../write.js"),
      import("./report-data.js"),
      import("./report-html.js"),
    ]);
    const data = await buildReport({ design: args.design, cwd, offline: args.offline, timeoutMs: args.timeout });
    const out = resolve(cwd, args.out ?? `${args.design.replace(/\.[cm]?[jt]s$/, "")}.report.html`);
    writeFileAtomic(out, renderReportHtml(data), { within: cwd });
    const label = relative(cwd, out).split(sep).join("/");
    const changed = data.servers.reduce(
      (n, s) => n + s.tools.filter((t) => t.status === "changed" || t.status === "added" || t.status === "removed").length,
      0,
    );
    const failed = data.servers.filter((s) => s.error !== undefined);
    if (args.json)
      io.stdout(
        JSON.stringify({
          ok: true,
          command: "report",
          exitCode: 0,
          out: label,
          findings: data.findings.length,
          drifted: changed,
          failed: failed.map((s) => s.name),
        }),
      );
    else {
      for (const s of failed) io.stderr(`warning: server "${s.name}": ${s.error} (reported from the lock)`);
      io.stdout(
        `toolwright report: ${data.servers.length} server(s), ${data.findings.length} lint finding(s), ${changed} tool(s) drifted; wrote ${label}`,
      );
    }
    return 0;
  } catch (error) {
    if (args.json) io.stdout(JSON.stringify({ ok: false, command: "report", exitCode: 2, error: commandErrorText(error) }));
    else io.stderr(commandErrorText(error));
    return 2;
  }
}

/** The yargs command; `setAction` receives the work to run after parsing. */
export function reportCommand(io: ReportIo, setAction: (action: () => Promise<number>) => void): CommandModule {
  return {
    command: "report [design]",
    describe: "Write a self-contained HTML review of the design's servers: tools, risk, lint findings and drift since the lock",
    builder: (y: Argv) =>
      y
        .positional("design", {
          type: "string",
          default: "design.ts",
          describe: "TypeScript design file with externalServer(...) declarations",
        })
        .option("out", { type: "string", describe: "HTML file to write (default: <design>.report.html next to the design)" })
        .option("offline", { type: "boolean", default: false, describe: "Connect to nothing; report the lock only (no drift)" })
        .option("timeout", { type: "number", default: 20_000, describe: "Milliseconds allowed per server for connect and tools/list" })
        .option("json", { type: "boolean", default: false, describe: "Print a machine-readable JSON summary" })
        .check((a) => (Number.isFinite(a.timeout) && a.timeout > 0) || "--timeout must be a positive number of milliseconds")
        .example("$0 report design.ts", "connect to every server and write design.report.html")
        .example("$0 report design.ts --out review.html --offline", "the lock only, no connections")
        .epilogue(
          "A server that cannot be reached is reported from its lock entry. Exit codes: 0 written, 2 usage, design or write error.",
        ),
    handler: (a) => {
      const raw = a as unknown as { design: string; out?: string; offline: boolean; timeout: number; json: boolean };
      const args: ReportArgs = { design: raw.design, out: raw.out, offline: raw.offline, timeout: raw.timeout, json: raw.json };
      setAction(() => reportAction(args, io));
    },
  };
}
