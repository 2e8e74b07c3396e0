/**
 * A durable worker for the demo: server-memory from the mcp.json in DEMO_CONFIG_DIR (the real one
 * behind the counting proxy, or the test's mock), the generated memory toolset, the librarian
 * agent, DBOS on the demo's throwaway PostgreSQL.
 * Prints `{"ready": "<executor id>"}`; exits when stdin closes.
 */
import { fileURLToPath } from "node:url";
import { defineDurableAgent, launchDurableWorker, serverLimitsFromMcpConfig } from "@toolwright/dbos";
import { createRuntime } from "@toolwright/runtime";
import { createServerClient, loadMcpConfig } from "@toolwright/runtime/manager";
import { librarianEpisode } from "./librarian.js";
import { registerMemoryToolset } from "./src/gen/memory/index.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const executorId = process.env.DEMO_EXECUTOR ?? "worker";
const databaseUrl = process.env.DEMO_DATABASE_URL;
if (!databaseUrl) throw new Error("worker: DEMO_DATABASE_URL is not set");

// That folder's .toolwright/mcp.json only: the user's global servers have no place in the demo.
const configDir = process.env.DEMO_CONFIG_DIR ?? here;
const config = loadMcpConfig({ projectDir: configDir, globalDir: fileURLToPath(new URL("./.toolwright/none", import.meta.url)) });
const memoryServer = config.mcpServers.memory;
if (!memoryServer) throw new Error(`worker: ${configDir}/.toolwright/mcp.json has no memory server`);
const caller = createServerClient("memory", memoryServer);
const runtime = createRuntime({ policy: { maxToolCalls: 20, timeBudget: 120_000 } });
registerMemoryToolset(runtime, caller);
defineDurableAgent({ name: "librarian", runtime, run: librarianEpisode });

const worker = await launchDurableWorker({
  databaseUrl,
  appName: "toolwright-demo",
  appVersion: "durable-demo-1",
  executorId,
  serverLimits: serverLimitsFromMcpConfig(config),
  runConcurrency: 2,
  heartbeatMs: 250,
  deadAfterMs: 2000,
  pollingIntervalMs: 50,
  onTakeover: (t) => process.stdout.write(`${JSON.stringify({ takeover: t.executorId, recovered: t.recovered })}\n`),
});
process.stdout.write(`${JSON.stringify({ ready: worker.executorId })}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await worker.shutdown().catch(() => undefined);
  await caller.close();
  process.exit(0);
}
process.stdin.on("end", () => void stop());
process.on("SIGTERM", () => void stop());
process.stdin.resume();
