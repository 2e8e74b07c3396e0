/**
 * Bench worker for the principals section (one fresh process per run): N principals, each making
 * its first call through one many-principal manager (`createMcpManager({ principals })`, its own
 * OAuth token, eager connect as a backend worker does, pool bound N/20), 10 at a time, against the
 * guarded server in another process. Measures this process's CPU time per principal, and counts
 * what ajv did (instances built, schemas compiled) by wrapping ajv's own prototype methods, so the
 * count holds for any runtime version. Prints `RESULT <json>`.
 * Usage: node --import tsx bench/principals-worker.ts <principals> <auto|off>
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createMemoryTokenStore } from "@toolwright/runtime/auth";
import { createMcpManager, parseMcpConfig } from "@toolwright/runtime/manager";

const [countArg, validateArg] = process.argv.slice(2);
const N = Number(countArg ?? "300");
if (!Number.isInteger(N) || N < 1 || (validateArg !== "auto" && validateArg !== "off"))
  throw new Error("usage: principals-worker.ts <principals> <auto|off>");

const counts = { compiles: 0, instances: 0 };
const require = createRequire(import.meta.url);
type Method = (this: unknown, ...args: unknown[]) => unknown;
const wrap = (proto: { [name: string]: unknown }, name: string, count: () => void) => {
  const original = proto[name] as Method;
  proto[name] = function (this: unknown, ...args: unknown[]) {
    count();
    return original.apply(this, args);
  };
};
wrap(require("ajv/dist/core.js").default.prototype, "compile", () => counts.compiles++);
// Each ajv class adds its default meta-schema once per instance.
for (const m of ["ajv", "ajv/dist/2020.js"]) wrap(require(m).default.prototype, "_addDefaultMetaSchema", () => counts.instances++);

const serverScript = fileURLToPath(new URL("./principals-server.ts", import.meta.url));
const child = spawn(process.execPath, ["--import", "tsx", serverScript], { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
const url = String((await lines.next()).value);

const manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { bench: { url } } })), {
  validateArguments: validateArg,
  principals: {
    maxPrincipals: Math.max(5, Math.floor(N / 20)),
    tokenStoreFor: (p) => {
      const store = createMemoryTokenStore();
      void store.saveTokens(url, { accessToken: `tok-${p.id.slice(5)}`, tokenType: "Bearer", issuer: "http://127.0.0.1:9" });
      return store;
    },
  },
});

let next = 0;
let wrong = 0;
const started = performance.now();
const cpu = process.cpuUsage();
const lane = async () => {
  while (next < N) {
    const id = `user-${next++}`;
    const answer = await (await manager.forPrincipal({ id })).callTool("bench.whoami", { principal: id });
    if (!answer.ok || (answer.structured as { principal?: unknown } | undefined)?.principal !== id) wrong++;
  }
};
await Promise.all(Array.from({ length: 10 }, lane));
const used = process.cpuUsage(cpu);
const wallMs = performance.now() - started;
await manager.stop();
child.stdin.write("stats\n");
const guard = JSON.parse(String((await lines.next()).value)) as { calls: number; foreign: number };
child.stdin.end();
console.log(
  `RESULT ${JSON.stringify({
    cpuPerPrincipalMs: (used.user + used.system) / 1000 / N,
    wallPerPrincipalMs: wallMs / N,
    compilesPerPrincipal: counts.compiles / N,
    ajvInstancesPerPrincipal: counts.instances / N,
    wrong,
    foreign: guard.foreign,
    calls: guard.calls,
  })}`,
);
