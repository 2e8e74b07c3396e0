// One measurement in a fresh process: `node worker.mjs '<json task>'`. Prints one JSON line
// (`RESULT {...}`) on stdout. Every loop is bounded by the task's counts; every child is closed.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { minimalEnv, openClient } from "./lib/clients.mjs";

const task = JSON.parse(process.argv[2] ?? "{}");
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const SERVERS = {
  "raw-stdio": { script: here("./servers/raw-echo-stdio.mjs"), args: [] },
  "sdk-stdio": { script: here("./servers/sdk-echo-stdio.mjs"), args: [] },
  "raw-http": { script: here("./servers/raw-echo-http.mjs"), args: [] },
  "sdk-http-json": { script: here("./servers/sdk-echo-http.mjs"), args: ["json"] },
  "sdk-http-sse": { script: here("./servers/sdk-echo-http.mjs"), args: ["sse"] },
  // SDK v2's McpServer (@modelcontextprotocol/server 2.x), for the server section's v2 column.
  "sdk2-stdio": { script: here("./servers/sdk2-echo-stdio.mjs"), args: [] },
  "sdk2-http-json": { script: here("./servers/sdk2-echo-http.mjs"), args: [] },
  // The generated scaffold, built by bench/sections/server.ts.
  "scaffold-stdio": { script: here("./.cache/scaffold/serve.mjs"), args: [] },
  "scaffold-http": { script: here("./.cache/scaffold/serve.mjs"), args: ["--http"] },
};

// Servers carry the run's tag as an ignored argument, so the runner can find strays of its own run.
const tag = task.runTag ? [`--bench-run=${task.runTag}`] : [];

let maxListenerWarnings = 0;
process.on("warning", (w) => {
  if (w.name === "MaxListenersExceededWarning") maxListenerWarnings++;
});

/** Starts an HTTP server child and waits for its `LISTEN <port>` line (bounded by a 10 s timer). */
function startHttpServer(name) {
  const spec = SERVERS[name];
  const child = spawn(process.execPath, [spec.script, ...spec.args, ...tag], { env: minimalEnv(), stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 10_000);
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = /LISTEN (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const exited = new Promise((r) => child.once("exit", r));
        resolve({
          url: `http://127.0.0.1:${m[1]}/mcp`,
          async close() {
            child.stdin.end();
            const kill = setTimeout(() => child.kill("SIGKILL"), 2000);
            await exited;
            clearTimeout(kill);
          },
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

async function target(serverName) {
  if (serverName.endsWith("-stdio")) {
    const spec = SERVERS[serverName];
    return { target: { command: process.execPath, args: [spec.script, ...spec.args, ...tag] }, close: async () => {} };
  }
  const server = await startHttpServer(serverName);
  return { target: { url: server.url }, close: server.close };
}

function summarize(latencies, wallMs) {
  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];
  return { calls: sorted.length, p50Us: at(0.5) * 1000, p99Us: at(0.99) * 1000, callsPerSec: (sorted.length / wallMs) * 1000 };
}

async function runCalls(client, count, concurrency) {
  const latencies = new Array(count);
  let next = 0;
  const args = { text: "hello from the benchmark" };
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await client.call(args);
      latencies[i] = performance.now() - t0;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return summarize(latencies, performance.now() - start);
}

async function latency() {
  const server = await target(task.server);
  const client = await openClient(task.client, task.transport, server.target);
  try {
    await client.connect();
    await client.listTools();
    await runCalls(client, task.warmup, task.concurrency);
    maxListenerWarnings = 0;
    const stats = await runCalls(client, task.calls, task.concurrency);
    return { ...stats, maxListenerWarnings };
  } finally {
    await client.close();
    await server.close();
  }
}

async function cold() {
  const server = await target(task.server);
  // Load the client's modules first: cold start is spawn -> initialize + tools/list, not import.
  const client = await openClient(task.client, task.transport, server.target);
  const t0 = performance.now();
  await client.connect();
  const tools = await client.listTools();
  const ms = performance.now() - t0;
  await client.close();
  await server.close();
  if (tools.length < 1) throw new Error("no tools listed");
  return { ms };
}

/**
 * Memory held by stdio connections, in one process: after a rehearsal, the settled heap is read
 * with 0 connections held and again after each step of `task.steps` (ascending counts of
 * connections held, e.g. [1, 5, 10, ..., 30]); the bench fits the slope over those points.
 */
async function memory() {
  const server = await target(task.server);
  const gc = globalThis.gc;
  const clients = [];
  const steps = task.steps;
  // Collects until the heap stops shrinking (closed children and sockets are torn down over a few
  // ticks): at least three and at most ten rounds.
  const settle = async () => {
    let last = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 10; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 30));
      const used = process.memoryUsage().heapUsed;
      if (i >= 2 && used >= last - 1024) break;
      last = used;
    }
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed };
  };
  // Opens connections until `held` has `step` of them, five at a time (spawning is the slow part);
  // each does initialize, tools/list and a call.
  const fill = async (held, step, text) => {
    while (held.length < step) {
      const batch = Array.from({ length: Math.min(5, step - held.length) }, async () => {
        const client = await openClient(task.client, task.transport, server.target);
        held.push(client);
        await client.connect();
        await client.listTools();
        await client.call({ text });
      });
      await Promise.all(batch);
    }
  };
  // A rehearsal first: the same steps with throwaway connections, held and settled the same way,
  // then closed. Modules load and the connection path's JIT code (feedback vectors, baseline and
  // optimized code, which tier up with the number of connections opened and held) is made here,
  // not charged to the connections being measured.
  const warm = [];
  try {
    for (const step of steps) {
      await fill(warm, step, "warm");
      await settle();
    }
  } finally {
    for (const c of warm) await c.close();
  }
  const before = await settle();
  const samples = [{ connections: 0, ...before }];
  try {
    for (const step of steps) {
      await fill(clients, step, "hold");
      samples.push({ connections: clients.length, ...(await settle()) });
    }
    const after = samples[samples.length - 1];
    return { before, after, samples, heapDelta: after.heapUsed - before.heapUsed, rssDelta: after.rss - before.rss };
  } finally {
    for (const c of clients) await c.close();
    await server.close();
  }
}

/**
 * The manager path against a direct caller, one process: `manager.callTool` over a live registry
 * (argument check against the live inputSchema included) and `createStdioCaller().callTool`, each
 * with its own server child, in alternating blocks so drift hits both alike.
 */
async function manager() {
  const { createStdioCaller } = await import("@toolwright/runtime/stdio");
  const { createMcpManager, parseMcpConfig } = await import("@toolwright/runtime/manager");
  const spec = SERVERS[task.server];
  const config = parseMcpConfig(
    JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [spec.script, ...spec.args, ...tag] } } }),
    { env: minimalEnv() },
  );
  const mgr = createMcpManager(config);
  const direct = createStdioCaller({ name: "bench", command: process.execPath, args: [spec.script, ...spec.args, ...tag], env: [] });
  const args = { text: "hello from the benchmark" };
  const viaManager = async () => {
    const out = await mgr.callTool("bench.echo", args);
    if (out.ok === false) throw new Error(`manager call failed: ${JSON.stringify(out.failure ?? out)}`);
  };
  const viaDirect = async () => {
    const out = await direct.callTool({ name: "echo", arguments: args });
    if (!out.ok) throw new Error(out.failure.message);
  };
  try {
    await mgr.start();
    const connected = await direct.connect();
    if (!connected.ok) throw new Error(`connect failed: ${connected.failure.message}`);
    const lat = { manager: [], direct: [] };
    const block = async (fn, into, n) => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await fn();
        into?.push(performance.now() - t0);
      }
    };
    const early = { manager: [], direct: [] };
    // Blocks alternate which path goes first (ABBA): in the first window both paths get faster as V8
    // optimises the code they share, and the path that always went first was measured earlier on
    // that slope (two identical direct callers read 1.02-1.10x that way, 0.99x alternating).
    const window = async (into) => {
      const size = 100;
      for (let done = 0, round = 0; done < task.calls; done += size, round++) {
        const n = Math.min(size, task.calls - done);
        if (round % 2 === 0) {
          await block(viaManager, into.manager, n);
          await block(viaDirect, into.direct, n);
        } else {
          await block(viaDirect, into.direct, n);
          await block(viaManager, into.manager, n);
        }
      }
    };
    await block(viaManager, undefined, task.warmup);
    await block(viaDirect, undefined, task.warmup);
    // The first window runs while V8 still tiers up both paths (the manager's code is optimised
    // after ~1,500 calls); the steady window, after `settle` more calls each, is the per-call overhead.
    await window(early);
    await block(viaManager, undefined, task.settle ?? 0);
    await block(viaDirect, undefined, task.settle ?? 0);
    await window(lat);
    const p50 = (xs) => Float64Array.from(xs).sort()[Math.floor((xs.length - 1) / 2)] * 1000;
    return {
      managerP50Us: p50(lat.manager),
      directP50Us: p50(lat.direct),
      earlyManagerP50Us: p50(early.manager),
      earlyDirectP50Us: p50(early.direct),
    };
  } finally {
    await mgr.stop();
    await direct.close();
  }
}

const modes = { latency, cold, memory, manager };
const timer = setTimeout(() => {
  process.stderr.write(`worker timed out: ${JSON.stringify(task)}\n`);
  process.exit(3);
}, task.timeoutMs ?? 120_000);
try {
  const result = await modes[task.mode]();
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  clearTimeout(timer);
} catch (error) {
  process.stderr.write(`worker failed: ${error?.stack ?? error}\n`);
  process.exit(2);
}
