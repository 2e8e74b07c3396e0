/**
 * Where the recovery episode's three servers come from. `startRealServers` starts the real
 * server-memory, server-filesystem and server-everything over stdio (what `main.ts` runs);
 * `record: true` wraps each in a recording caller, so `record.ts` can write the cassettes the
 * offline test replays (`replay.ts`). The episode itself only sees three callers.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createStdioCaller, type StdioCaller, type StdioCallerOptions } from "@toolwright/runtime/stdio";

const require = createRequire(import.meta.url);
const serverBin = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), "dist/index.js");

/** The servers' names in the design (`fromExternalMCP`), which name the cassettes as well. */
export const SERVERS = ["memory", "filesystem", "everything"] as const;
/** One of the episode's servers. */
export type ServerName = (typeof SERVERS)[number];

/** The note the episode reads inside the filesystem root. */
export const NOTE = { name: "notes.txt", text: "Ada Lovelace wrote the first published program.\n" };

/** The callers the episode plays against, and how to put them away. */
export interface EpisodeServers {
  readonly callers: { readonly [server in ServerName]: SessionCaller };
  /** The filesystem server's root (the episode falls back to it when listing fails). */
  readonly root: string;
  /** pids of the server processes that ran (none when nothing was spawned). */
  pids(): number[];
  /** Temp directories made for the servers (removed by `close`). */
  readonly dirs: readonly string[];
  close(): Promise<void>;
}

/** Wraps the stdio options of one server (the recorder turns them into a recording caller). */
export type CallerFactory = (server: ServerName, options: StdioCallerOptions) => SessionCaller;

/**
 * Starts the three real servers over stdio in fresh temp directories: the filesystem root holds
 * `notes.txt`, server-memory keeps its graph in a file of its own. `make` builds each caller
 * (default: a plain stdio caller).
 */
export function startRealServers(make: CallerFactory = (_server, options) => createStdioCaller(options)): EpisodeServers {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tw-recovery-root-")));
  const state = realpathSync(mkdtempSync(join(tmpdir(), "tw-recovery-state-")));
  writeFileSync(join(root, NOTE.name), NOTE.text);
  const node = process.execPath;
  const callers = {
    memory: make("memory", {
      name: "memory",
      command: node,
      args: [serverBin("@modelcontextprotocol/server-memory")],
      env: [`MEMORY_FILE_PATH=${join(state, "memory.jsonl")}`],
    }),
    filesystem: make("filesystem", {
      name: "filesystem",
      command: node,
      args: [serverBin("@modelcontextprotocol/server-filesystem"), root],
    }),
    everything: make("everything", { name: "everything", command: node, args: [serverBin("@modelcontextprotocol/server-everything")] }),
  };
  return {
    callers,
    root,
    pids: () => Object.values(callers).flatMap((c) => ((c as StdioCaller).pid === undefined ? [] : [(c as StdioCaller).pid as number])),
    dirs: [root, state],
    async close() {
      await Promise.all(Object.values(callers).map((c) => c.close()));
      rmSync(root, { recursive: true, force: true });
      rmSync(state, { recursive: true, force: true });
    },
  };
}
