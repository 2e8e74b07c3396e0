/**
 * server-everything (the devDependency, never through npx) started over Streamable HTTP or legacy
 * HTTP+SSE on 127.0.0.1, for interop suites.
 */
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
/** server-everything's entry script. */
export const EVERYTHING = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

/** A port free on 127.0.0.1 a moment ago (listen on 0, close): for a child that takes `--port`. */
export async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Starts server-everything in `mode` on a free port and waits for its ready line on stderr; `track` sees the pid. */
export async function startEverything(
  mode: "streamableHttp" | "sse",
  track: (pids: (number | undefined)[]) => void = () => {},
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  // Only PORT and PATH: get-env would print anything else we passed.
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { PORT: String(port), PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  track([child.pid]);
  await new Promise<void>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${text}`)), 15_000);
    child.stderr?.on("data", (d) => {
      text += String(d);
      if (/listening on port|running on port/i.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited ${code}: ${text}`)));
  });
  return { child, port };
}

/** Stops a started server and waits for its exit. */
export async function stopEverything(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await gone;
}
