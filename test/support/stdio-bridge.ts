/**
 * A stdio MCP server put on streamable HTTP at 127.0.0.1 by a real bridge from npm (`mcp-proxy`,
 * a devDependency, never through npx), for servers that have no HTTP mode of their own
 * (server-memory, server-filesystem). The bridge is spawned without a shell, and it spawns the
 * server from a command and an args array without one either.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "./everything-server.js";

const require = createRequire(import.meta.url);
/** mcp-proxy's command-line entry script. */
export const MCP_PROXY = join(dirname(require.resolve("mcp-proxy/package.json")), "dist/bin/mcp-proxy.mjs");

/** A running bridge: its process, the server's process under it, and the streamable HTTP endpoint. */
export interface RunningBridge {
  child: ChildProcess;
  /** The stdio server's pid (the bridge's only child), for checking it is gone after `stopBridge`. */
  serverPid: number;
  url: string;
}

/** The pids whose parent is `pid` (Linux /proc; a process that vanished mid-scan is skipped). */
export function childPids(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name sits in parentheses and may hold spaces: the fields after it are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // Exited between readdir and read.
    }
  }
  return found;
}

/** Whether a pid is still a live (not zombie) process. */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * The local addresses listening on TCP `port` (Linux /proc/net/tcp and tcp6, hex as the kernel
 * prints them: 127.0.0.1 is `0100007F`, every IPv4 address `00000000`, every IPv6 address all zeros).
 */
export function listeningOn(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const found: string[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      // State 0A is LISTEN.
      if (state === "0A" && local?.endsWith(`:${hexPort}`)) found.push(local.slice(0, -5));
    }
  }
  return found;
}

/** One GET on the endpoint: true once anything answers (the bridge listens only after the server's handshake). */
const answers = (url: string) =>
  new Promise<boolean>((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(true);
    });
    req.setTimeout(2_000, () => req.destroy());
    req.on("error", () => resolve(false));
  });

/**
 * Starts `mcp-proxy` on a free port of 127.0.0.1 in front of `command args` and polls the endpoint
 * until it answers (at most `attempts` polls, 100 ms apart). `env` is the whole environment of the
 * bridge, which passes it on to the server.
 */
export async function startBridge(command: string, args: string[], env: Record<string, string>, attempts = 300): Promise<RunningBridge> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [MCP_PROXY, "--host", "127.0.0.1", "--port", String(port), "--server", "stream", "--", command, ...args],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr = (stderr + String(d)).slice(-4_000);
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`mcp-proxy exited (${child.exitCode ?? child.signalCode}): ${stderr}`);
      if (await answers(url)) break;
      if (i >= attempts) throw new Error(`mcp-proxy did not answer on ${url} after ${attempts} polls: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const servers = childPids(child.pid ?? -1);
    if (servers.length !== 1) throw new Error(`mcp-proxy should run exactly one server process, found ${servers.length}`);
    return { child, serverPid: servers[0], url };
  } catch (error) {
    await stopBridge({ child, serverPid: -1, url });
    throw error;
  }
}

/**
 * Stops the bridge (SIGTERM, SIGKILL if it is still there after `graceMs`) and then the server under
 * it if the bridge left it behind; resolves with whether it had to kill the server itself.
 */
export async function stopBridge(bridge: RunningBridge | undefined, graceMs = 10_000): Promise<{ orphan: boolean }> {
  if (!bridge) return { orphan: false };
  const { child, serverPid } = bridge;
  const under = serverPid > 0 ? [serverPid] : childPids(child.pid ?? -1);
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await gone;
    clearTimeout(timer);
  }
  // A server outliving its bridge is an orphan: end it, and tell the caller so a test can fail on it.
  let orphan = false;
  for (const pid of under) {
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) {
      orphan = true;
      process.kill(pid, "SIGKILL");
    }
  }
  return { orphan };
}
