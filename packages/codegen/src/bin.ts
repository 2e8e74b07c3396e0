#!/usr/bin/env node
/**
 * The `toolwright` executable. It always runs the CLI: no "am I the entry point?" check, so it
 * works through npx, npm scripts, symlinks and pnpm's store layout alike.
 */
import { main } from "./cli.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
