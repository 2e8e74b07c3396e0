/**
 * The vault tests' fleet: a scripted OAuth world with the application's dynamic client and an
 * expired grant per principal in a fresh vault schema (`setUp`), and forked worker processes
 * (`refresh-worker.ts`) that start their calls together on a signal (`forkWorker`). Everything a
 * test starts is ended after it.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createPostgresVault } from "@toolwright/vault";
import { afterEach } from "vitest";
import { newKey, type useVaultPostgres } from "./cluster.js";
import { type OAuthWorldOptions, startOAuthWorld } from "./oauth-world.js";

const WORKER = fileURLToPath(new URL("./refresh-worker.ts", import.meta.url));
/** The repository root (the workers' cwd, so `tsx` resolves the workspace packages). */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** One call's outcome, as a worker reports it. */
export interface Outcome {
  readonly principal: string;
  readonly ok: boolean;
  readonly text?: string;
  readonly kind?: string;
}

/** Registers the cleanup of a test file and returns its helpers. */
export function useFleet(db: ReturnType<typeof useVaultPostgres>) {
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** A world, a vault, the application's dynamic client `dyn-seed`, and an expired grant per principal. */
  async function setUp(principals: readonly string[], worldOptions: OAuthWorldOptions = {}) {
    const world = await startOAuthWorld(worldOptions);
    cleanup.push(() => world.close());
    const key = newKey("k1");
    const schema = db.schema();
    const vault = await createPostgresVault({ connectionString: db.url(), schema, keys: [key] });
    cleanup.push(() => vault.close());
    world.knowClient("dyn-seed");
    await vault
      .tokenStore("app")
      .saveClient(world.issuer, { clientId: "dyn-seed", tokenEndpointAuthMethod: "none", issuer: world.issuer, source: "dynamic" });
    const grants = new Map<string, string>();
    for (const principal of principals) {
      const g = world.grant(principal, { expired: true });
      grants.set(principal, g.refreshToken);
      await vault.tokenStore(principal).saveTokens(world.mcpUrl, {
        accessToken: g.accessToken,
        refreshToken: g.refreshToken,
        tokenType: "Bearer",
        expiresAt: g.expiresAt,
        issuer: world.issuer,
      });
    }
    return { world, vault, key, schema, grants };
  }

  /** Forks a worker with `env`; `next()` is its next IPC message (rejects if it exits first). */
  function forkWorker(env: { readonly [key: string]: string }) {
    const child: ChildProcess = fork(WORKER, [], {
      cwd: ROOT,
      execArgv: ["--import", "tsx"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    cleanup.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    });
    let log = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) => reject(new Error(`worker exited (${code}) before answering: ${log}`))),
    );
    exited.catch(() => undefined);
    const next = () =>
      Promise.race([new Promise<{ ready?: boolean; results?: Outcome[] }>((resolve) => child.once("message", resolve as never)), exited]);
    return { child, next };
  }

  /** Forks one worker per env, waits until all are ready, starts them together and returns every outcome. */
  async function runWorkers(envs: readonly { readonly [key: string]: string }[]): Promise<Outcome[]> {
    const workers = envs.map((env) => forkWorker(env));
    const ready = await Promise.all(workers.map((w) => w.next()));
    if (!ready.every((m) => m.ready)) throw new Error("a worker did not get ready");
    const answers = workers.map((w) => w.next());
    for (const w of workers) w.child.send("go");
    return (await Promise.all(answers)).flatMap((m) => m.results ?? []);
  }

  return { cleanup, setUp, forkWorker, runWorkers };
}
