#!/usr/bin/env node
/**
 * The `toolwright` executable. It always runs the CLI: no "am I the entry point?" check, so it
 * works through npx, npm scripts, symlinks and pnpm's store layout alike. A bare `--version` is
 * answered from package.json before anything else loads (yargs and the command definitions are
 * most of a start-up); everything else imports the CLI.
 */
import { codegenVersion } from "./version.js";

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") process.stdout.write(`${codegenVersion()}\n`);
else await runCli(argv);

async function runCli(args: readonly string[]): Promise<void> {
  const [{ main }, { killProcessWhenLoadIsStuck }] = await Promise.all([import("./cli.js"), import("./load/load-timeout.js")]);
  killProcessWhenLoadIsStuck();
  process.once("exit", endedEarly);
  main(args).then(exitWhenFlushed, (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    exitWhenFlushed(2);
  });
}

/**
 * A design runs in this process: if it ends the process (`process.exit`) before the command
 * finished, say so and fail instead of exiting 0 with no output.
 */
function endedEarly(): void {
  process.stderr.write("error: the process was ended before the command finished (did the design call process.exit()?)\n");
  process.exitCode = 2;
}

/**
 * Exits once stdout and stderr are flushed. The work is done; a timer or socket the design left
 * open (it ran in this process) must not keep the command alive.
 */
function exitWhenFlushed(code: number): void {
  process.removeListener("exit", endedEarly);
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}
