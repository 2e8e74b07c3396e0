/**
 * Shared helpers for manager tests: where the real npm servers live, temp dirs, and process checks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** The entry script of an installed npm MCP server. */
export function serverEntry(pkg: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");
}

export const EVERYTHING = serverEntry("@modelcontextprotocol/server-everything");
export const MEMORY = serverEntry("@modelcontextprotocol/server-memory");
export const DYNAMIC = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "dynamic-server.mjs");
export const NODE = process.execPath;

/** A temp dir removed by the returned cleanup. */
export function tempDir(prefix = "tw-manager-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** server-everything over Streamable HTTP on a free 127.0.0.1 port; resolves once it says it listens. */
export async function startEverythingHttp(
  fixedPort?: number,
): Promise<{ url: string; port: number; pid: number; stop: () => Promise<void> }> {
  const { spawn } = await import("node:child_process");
  const port = fixedPort ?? (await freePort());
  const child = spawn(NODE, [EVERYTHING, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server-everything HTTP did not start: ${seen}`)), 15_000);
    child.stderr.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything HTTP exited with ${code}: ${seen}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
