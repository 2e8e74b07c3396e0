/**
 * The walking-skeleton planner: runs the plan (`plan.ts`: three tools through the generated typed
 * client, then an invalid payload caught locally) against the real server-everything over stdio.
 * Run with: npm run demo
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { runPlan } from "./plan.js";

/** The path of server-everything's entry point, resolved from this package's node_modules. */
export function serverEverythingEntry(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");
}

async function main(): Promise<number> {
  const caller = createStdioCaller({ name: "everything", command: process.execPath, args: [serverEverythingEntry(), "stdio"] });
  try {
    return (await runPlan(caller)) === 0 ? 0 : 1;
  } finally {
    await caller.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
