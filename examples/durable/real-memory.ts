/**
 * The real server-memory for the demo: `.toolwright/mcp.json` starts it behind the counting proxy
 * (one per worker, all on one memory file), which logs every `tools/call` it forwards before the
 * server sees it and holds the answers of `HOLD.tool` back.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HOLD, type MemoryServer, type ServerCall } from "./demo.js";

const here = fileURLToPath(new URL(".", import.meta.url)).replace(/\/$/, "");

/** The proxy's log: one JSON line per process start and per forwarded call. */
function readCounts(file: string): ServerCall[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        const entry = JSON.parse(l) as { kind?: string; tool?: string; arguments?: unknown; owner?: string; key?: unknown };
        if (entry.kind !== "call" || typeof entry.tool !== "string") return [];
        const key = typeof entry.key === "string" ? entry.key : null;
        return [{ tool: entry.tool, arguments: entry.arguments, owner: String(entry.owner), key }];
      } catch {
        return []; // a line cut short by a SIGKILL
      }
    });
}

/** server-memory from npm behind the counting proxy, its graph and log in `dir`. */
export function startRealMemory(dir: string): MemoryServer {
  const countFile = join(dir, "calls.jsonl");
  return {
    configDir: here,
    // One memory file for all: the proxy of each worker logs as that worker (COUNT_OWNER).
    env: () => ({
      DEMO_EXAMPLE_DIR: here,
      DEMO_MEMORY_FILE: join(dir, "memory.jsonl"),
      DEMO_COUNT_FILE: countFile,
      DEMO_HOLD_TOOL: HOLD.tool,
      DEMO_HOLD_MS: String(HOLD.ms),
    }),
    calls: () => readCounts(countFile),
    close: async () => undefined, // each worker's proxy ends with its worker
  };
}
