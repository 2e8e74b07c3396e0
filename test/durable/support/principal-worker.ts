/**
 * A durable worker process whose runs are made for principals, for test/durable/principal-takeover.test.ts:
 * one MCP manager over the HTTP server `who` (TW_MCP_URL), with each principal's tokens in the
 * PostgreSQL vault (TW_VAULT_URL, TW_SCHEMA, TW_KEY), and a scripted agent `who-agent` whose
 * `runtimeFor` is that principal's manager runtime. Its input lists the calls (`who.note`,
 * `who.put`); a failed call ends the run with an error whose message is the failure's kind, server,
 * tool and message as JSON.
 * TW_LIMITS (JSON, optional): per-server limits, so every call is a child workflow on the server's queue.
 * Prints `{"ready": "<executor id>"}` once launched and `{"takeover": "<executor id>"}` per takeover;
 * exits when stdin closes or on SIGTERM.
 */
import { defineDurableAgent, launchDurableWorker } from "@toolwright/dbos";
import { createRuntime } from "@toolwright/runtime";
import { createMcpManager, parseMcpConfig } from "@toolwright/runtime/manager";
import { createPostgresVault } from "@toolwright/vault";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`principal-worker: ${name} is not set`);
  return value;
};

const vault = await createPostgresVault({
  connectionString: env("TW_VAULT_URL"),
  schema: env("TW_SCHEMA"),
  keys: [{ id: "k1", key: env("TW_KEY") }],
});
const manager = createMcpManager(
  parseMcpConfig(JSON.stringify({ mcpServers: { who: { url: env("TW_MCP_URL"), era: "legacy", requestTimeoutMs: 120_000 } } })),
  { principals: { tokenStoreFor: (p) => vault.tokenStore(p.id) } },
);

type Step = { readonly tool: string; readonly text: string; readonly hold_ms?: number };

defineDurableAgent<{ readonly steps: readonly Step[] }, unknown[]>({
  name: "who-agent",
  // The shared registry holds nothing: a run made for a principal must use that principal's.
  runtime: createRuntime(),
  runtimeFor: async (principal) => (await manager.forPrincipal(principal)).runtime,
  retry: { baseDelayMs: 50 },
  async run(run, input) {
    const out: unknown[] = [];
    for (const { tool, ...args } of input.steps) {
      const result = await run.execute({ tool, arguments: args });
      if (!result.ok) {
        const { kind, server, tool: failed, message } = result.failure;
        // The failure's facts as JSON: the test reads kind, server and tool from the run's error.
        throw new Error(JSON.stringify({ kind, server, tool: failed, message }));
      }
      out.push(result.value);
    }
    return out;
  },
});

const executorId = env("TW_EXECUTOR");
const worker = await launchDurableWorker({
  databaseUrl: env("TW_DB_URL"),
  appName: "toolwright-test",
  appVersion: "test-1",
  executorId,
  heartbeatMs: 200,
  deadAfterMs: 1500,
  pollingIntervalMs: 50,
  ...(process.env.TW_LIMITS ? { serverLimits: JSON.parse(process.env.TW_LIMITS) } : {}),
  onTakeover: (t) => process.stdout.write(`${JSON.stringify({ takeover: t.executorId, recovered: t.recovered.length })}\n`),
});
process.stdout.write(`${JSON.stringify({ ready: worker.executorId, pid: process.pid })}\n`);

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  await worker.shutdown().catch(() => undefined);
  await manager.stop().catch(() => undefined);
  await vault.close().catch(() => undefined);
  process.exit(code);
}
process.on("SIGTERM", () => void stop(0));
process.stdin.on("end", () => void stop(0));
process.stdin.resume();
