/**
 * `npm run demo:durable`: a throwaway PostgreSQL, two DBOS worker processes, three librarian runs
 * against the real server-memory through the generated typed client; the busy worker is SIGKILLed
 * mid-call and the other finishes its runs. Prints each step with how many times the server
 * executed it (counted by the proxy in front of server-memory), then tears everything down.
 */
import { findPostgresBinDir, PostgresMissingError } from "@toolwright/dbos/postgres";
import { runDurableDemo } from "./demo.js";
import { startRealMemory } from "./real-memory.js";

async function main(): Promise<number> {
  const binDir = process.env.TOOLWRIGHT_PG_BINDIR || undefined; // where initdb and pg_ctl are, if not the usual place
  try {
    findPostgresBinDir(binDir);
  } catch (error) {
    if (!(error instanceof PostgresMissingError)) throw error;
    console.error(`demo:durable needs PostgreSQL: ${error.message}`);
    return 1;
  }
  return runDurableDemo({ memory: startRealMemory, binDir });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo:durable failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
