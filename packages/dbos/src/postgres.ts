/**
 * A throwaway PostgreSQL cluster for tests and demos: initdb in a temp folder, pg_ctl start on
 * 127.0.0.1 with an ephemeral port, fsync off, the unix socket inside the folder; always torn down.
 */
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How to get PostgreSQL on Debian and Ubuntu, for error messages. */
export const POSTGRES_INSTALL_HINT = "install PostgreSQL (Debian/Ubuntu: `apt-get install -y postgresql`) so that initdb and pg_ctl exist";

/** Thrown when no PostgreSQL server binaries (initdb, pg_ctl) can be found. */
export class PostgresMissingError extends Error {
  readonly code = "ERR_TOOLWRIGHT_POSTGRES_MISSING";
  constructor(searched: readonly string[]) {
    super(`PostgreSQL server binaries not found (looked in ${searched.join(", ")}): ${POSTGRES_INSTALL_HINT}`);
    this.name = "PostgresMissingError";
  }
}

/** A running throwaway cluster. */
export interface ThrowawayPostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/<database>`. */
  url(database: string): string;
  readonly port: number;
  /** The temp folder holding data, socket and log. */
  readonly dir: string;
  /** Stops the server (fast shutdown) and keeps the data: `start()` brings it back on the same port. */
  stopServer(): Promise<void>;
  /** Starts the server again after `stopServer()`. */
  start(): Promise<void>;
  /** Stops the server and removes the folder. Idempotent. */
  stop(): Promise<void>;
  /** The server log, for failure messages. */
  log(): string;
  /** The postmaster's pid while the server runs (to check that nothing is left after `stop()`). */
  pid(): number | undefined;
}

/** Options of `startThrowawayPostgres`. */
export interface ThrowawayPostgresOptions {
  /** Folder with initdb and pg_ctl (only that one is searched). Default: the newest `/usr/lib/postgresql/<n>/bin`, else PATH. */
  readonly binDir?: string;
  /** Extra `postgresql.conf` lines. */
  readonly settings?: { readonly [name: string]: string | number };
}

/** Finds the folder holding initdb and pg_ctl, or throws `PostgresMissingError`. */
export function findPostgresBinDir(explicit?: string): string {
  const candidates: string[] = [];
  const root = "/usr/lib/postgresql";
  if (explicit) candidates.push(explicit);
  else if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(join(root, v, "bin"));
  }
  if (!explicit) for (const dir of (process.env.PATH ?? "").split(":")) if (dir) candidates.push(dir);
  const found = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  if (!found) throw new PostgresMissingError(explicit ? [explicit] : [root, "PATH"]);
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** initdb refuses root: as root, every server command runs as the `postgres` user. */
function asOwner(command: string, args: readonly string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]];
}

function run(command: string, args: readonly string[], timeoutMs: number): Promise<void> {
  const [file, argv] = asOwner(command, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: timeoutMs, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" } }, (error, _out, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} failed: ${String(stderr).trim() || error.message}`));
      else resolve();
    });
  });
}

const live = new Set<() => void>();
let exitHookInstalled = false;

/** Last resort: a process that exits without calling `stop()` still stops its clusters. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const stop of [...live]) stop();
  });
}

/**
 * Starts a throwaway cluster. Throws `PostgresMissingError` when PostgreSQL is not installed.
 * Call `stop()` in a `finally`; an exit hook stops it too if the process ends first.
 */
export async function startThrowawayPostgres(options: ThrowawayPostgresOptions = {}): Promise<ThrowawayPostgres> {
  const bin = findPostgresBinDir(options.binDir);
  const dir = mkdtempSync(join(tmpdir(), "toolwright-pg-"));
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const pgCtl = join(bin, "pg_ctl");
  let stopped = false;
  let serverUp = false;
  const syncStop = () => {
    if (stopped) return;
    stopped = true;
    live.delete(syncStop);
    try {
      if (serverUp) {
        const [file, argv] = asOwner(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
        execFileSync(file, argv, { stdio: "ignore", timeout: 20_000 });
      }
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  };
  live.add(syncStop);
  installExitHook();
  try {
    await run(join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"], 120_000);
    const port = await freePort();
    const settings: { [name: string]: string | number } = {
      listen_addresses: "'127.0.0.1'",
      port,
      unix_socket_directories: `'${dir}'`,
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
      max_connections: 200,
      ...options.settings,
    };
    const conf = join(data, "postgresql.conf");
    const lines = Object.entries(settings).map(([k, v]) => `${k} = ${v}`);
    writeFileSync(conf, `${readFileSync(conf, "utf8")}\n# toolwright throwaway\n${lines.join("\n")}\n`);
    const start = async () => {
      await run(pgCtl, ["-D", data, "-l", logFile, "-w", "-t", "60", "start"], 90_000);
      serverUp = true;
    };
    await start();
    return {
      port,
      dir,
      url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
      start,
      async stopServer() {
        await run(pgCtl, ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"], 90_000);
        serverUp = false;
      },
      async stop() {
        if (stopped) return;
        if (serverUp) {
          await run(pgCtl, ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"], 60_000).catch(() => undefined);
          serverUp = serverUp && existsSync(join(data, "postmaster.pid"));
        }
        syncStop();
      },
      log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
      pid: () => {
        const file = join(data, "postmaster.pid");
        const first = existsSync(file) ? readFileSync(file, "utf8").split("\n")[0] : undefined;
        return first && /^\d+$/.test(first) ? Number(first) : undefined;
      },
    };
  } catch (error) {
    syncStop();
    throw error;
  }
}
