/**
 * The real server-memory and server-filesystem over stdio, registered in one runtime through the
 * clients generated from the pulled catalogues (examples/catalogues). For the demo, the live tests
 * and the cassette recorder (record-cassettes.ts).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRuntime, type Runtime, type RuntimeOptions } from "@toolwright/runtime";
import { createStdioCaller, type StdioCaller, type StdioCallerOptions } from "@toolwright/runtime/stdio";
import { registerFilesystemToolset } from "../catalogues/src/gen/filesystem/index.js";
import { registerMemoryToolset } from "../catalogues/src/gen/memory/index.js";

const require = createRequire(import.meta.url);
const binOf = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), "dist/index.js");

/** What both servers start from: a fresh temp folder, and how to start each server on it. */
export interface RealServerSetup {
  /** The temp folder (remove it when done). */
  readonly dir: string;
  /** The folder server-filesystem is allowed to use; holds `notes.txt`. */
  readonly root: string;
  readonly memory: StdioCallerOptions;
  readonly filesystem: StdioCallerOptions;
}

/** A fresh temp folder (an empty memory file, `files/notes.txt`) and the servers' stdio options. */
export function realServerSetup(): RealServerSetup {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "tw-providers-")));
  const root = join(dir, "files");
  mkdirSync(root);
  writeFileSync(join(root, "notes.txt"), "Ada wrote the first program.\nShe worked with Babbage.\n");
  return {
    dir,
    root,
    memory: {
      name: "memory",
      command: process.execPath,
      args: [binOf("@modelcontextprotocol/server-memory")],
      env: [`MEMORY_FILE_PATH=${join(dir, "memory.jsonl")}`],
    },
    filesystem: {
      name: "filesystem",
      command: process.execPath,
      args: [binOf("@modelcontextprotocol/server-filesystem"), root],
      capabilities: {},
    },
  };
}

/** A runtime over both servers, a temp folder the filesystem server may use, and `close()`. */
export interface RealServers {
  readonly runtime: Runtime;
  /** The folder server-filesystem is allowed to use; holds `notes.txt`. */
  readonly root: string;
  readonly memory: StdioCaller;
  readonly filesystem: StdioCaller;
  close(): Promise<void>;
}

/**
 * Starts both servers (a fresh memory file and folder each time). `make` builds each stdio caller
 * (a recorder passes one that records the session).
 */
export function startRealServers(
  options: RuntimeOptions = {},
  make: (options: StdioCallerOptions) => StdioCaller = createStdioCaller,
): RealServers {
  const setup = realServerSetup();
  const memory = make(setup.memory);
  const filesystem = make(setup.filesystem);
  const runtime = createRuntime(options);
  registerMemoryToolset(runtime, memory);
  registerFilesystemToolset(runtime, filesystem);
  return {
    runtime,
    root: setup.root,
    memory,
    filesystem,
    async close() {
      await Promise.all([memory.close(), filesystem.close()]);
      rmSync(setup.dir, { recursive: true, force: true });
    },
  };
}
