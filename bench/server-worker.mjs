// One server-section measurement in a fresh process: `node server-worker.mjs '<json task>'`. The
// client is always the floor (bench/lib/raw-client.mjs), so what differs between runs is the server.
// Prints one `RESULT {...}` line. Every loop is bounded by the task's counts; every child is closed.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { minimalEnv } from "./lib/clients.mjs";
import { createRawHttpClient, createRawStdioClient } from "./lib/raw-client.mjs";

const task = JSON.parse(process.argv[2] ?? "{}");
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** Script and arguments of each server, by kind and transport. */
const SERVERS = {
  scaffold: { stdio: [here("./.cache/scaffold/serve.mjs")], http: [here("./.cache/scaffold/serve.mjs"), "--http"] },
  tmcp: { stdio: [here("./servers/tmcp-echo.mjs")], http: [here("./servers/tmcp-echo.mjs"), "--http"] },
  sdk: { stdio: [here("./servers/sdk-echo-stdio.mjs")], http: [here("./servers/sdk-echo-http.mjs"), "json"] },
  sdk2: { stdio: [here("./servers/sdk2-echo-stdio.mjs")], http: [here("./servers/sdk2-echo-http.mjs")] },
  raw: { stdio: [here("./servers/raw-echo-stdio.mjs")], http: [here("./servers/raw-echo-http.mjs")] },
};
const tag = task.runTag ? [`--bench-run=${task.runTag}`] : [];
const argv = (kind, transport) => [...SERVERS[kind][transport], ...tag];

/** The echo call and the non-trivial one: a nested object with enums and a union (order-schema.mjs). */
const ECHO = { text: "hello from the benchmark" };
const ORDER = {
  customer: { name: "Ada Lovelace", tier: "pro" },
  items: [
    { sku: "BK-1843", qty: 2, kind: "physical" },
    { sku: "EB-0042", qty: 1, kind: "digital" },
    { sku: "SV-0007", qty: 3, kind: "service" },
    { sku: "BK-1852", qty: 1, kind: "physical" },
  ],
  shipping: { method: "post", address: { street: "12 St James's Square", city: "London", zip: "SW1Y 4JH", country: "GB" } },
};

/** Starts an HTTP server child and waits for its `LISTEN <port>` line (bounded by a 20 s timer). */
function startHttpServer(kind) {
  const child = spawn(process.execPath, argv(kind, "http"), { env: minimalEnv(), stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((r) => child.once("exit", r));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${kind} HTTP server did not start`));
    }, 20_000);
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = /LISTEN (\d+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      out = "";
      resolve({
        pid: child.pid,
        url: `http://127.0.0.1:${m[1]}/mcp`,
        async close() {
          child.stdin.end();
          const kill = setTimeout(() => child.kill("SIGKILL"), 2000);
          await exited;
          clearTimeout(kill);
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`${kind} HTTP server exited with ${code}`)));
  });
}

/** A connected floor client on `kind`'s server, and how to end both. */
async function open(kind, transport) {
  if (transport === "stdio") {
    const client = createRawStdioClient({ command: process.execPath, args: argv(kind, "stdio"), env: minimalEnv() });
    await client.connect();
    return { client, pid: client.pid, close: () => client.close() };
  }
  const server = await startHttpServer(kind);
  const client = createRawHttpClient({ url: server.url });
  await client.connect();
  return {
    client,
    pid: server.pid,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];

/** `count` calls of `tool` with `concurrency` in flight; latencies per call and the wall time. */
async function runCalls(client, tool, count, concurrency) {
  const args = tool === "order" ? ORDER : ECHO;
  const latencies = new Float64Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      const result = await client.call(args, tool);
      latencies[i] = performance.now() - t0;
      if (result?.isError) throw new Error(`${tool} answered isError: ${JSON.stringify(result).slice(0, 300)}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return { latencies, wallMs: performance.now() - start };
}

function summary(parts) {
  const all = Float64Array.from(parts.flatMap((p) => [...p.latencies])).sort();
  const wallMs = parts.reduce((sum, p) => sum + p.wallMs, 0);
  return { p50Us: quantile(all, 0.5) * 1000, p99Us: quantile(all, 0.99) * 1000, callsPerSec: (all.length / wallMs) * 1000 };
}

/**
 * Throughput and latency on one connection: echo at each of `task.inFlight` (1, 16, 64), then echo
 * and the non-trivial order call at the last, in alternating halves so warm-up and drift hit both alike.
 */
async function throughput() {
  const { client, pid, close } = await open(task.server, task.transport);
  try {
    await client.listTools();
    const top = task.inFlight[task.inFlight.length - 1];
    await runCalls(client, "echo", task.warmup, top);
    await runCalls(client, "order", task.warmup, top);
    const out = {};
    for (const n of task.inFlight.slice(0, -1)) out[`x${n}`] = summary([await runCalls(client, "echo", task.calls[`x${n}`], n)]);
    const half = Math.ceil(task.calls[`x${top}`] / 2);
    const echo = [];
    const order = [];
    // Server CPU (user + system) per call, read around each half: quieter than calls/s on a busy machine.
    const cpu = { echo: 0, order: 0 };
    const timed = async (tool, into) => {
      const before = cpuMsOf(pid);
      into.push(await runCalls(client, tool, half, top));
      cpu[tool] += cpuMsOf(pid) - before;
    };
    await timed("echo", echo);
    await timed("order", order);
    await timed("order", order);
    await timed("echo", echo);
    out[`x${top}`] = { ...summary(echo), cpuUsPerCall: (cpu.echo * 1000) / (2 * half) };
    out.order = { ...summary(order), cpuUsPerCall: (cpu.order * 1000) / (2 * half) };
    return out;
  } finally {
    await close();
  }
}

/**
 * The mixed load over HTTP: `task.sessions` sessions (one keep-alive connection each) share
 * `task.ops` operations, every tenth a tools/list and the rest tools/call, after `task.warmup` of the same.
 */
async function mixed() {
  const server = await startHttpServer(task.server);
  const clients = Array.from({ length: task.sessions }, () => createRawHttpClient({ url: server.url }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const load = async (ops) => {
      let next = 0;
      const session = async (client) => {
        while (next < ops) {
          const i = next++;
          if (i % 10 === 0) {
            const tools = await client.listTools();
            if (tools.length !== 2) throw new Error(`tools/list gave ${tools.length} tools`);
          } else await client.call(ECHO);
        }
      };
      const t0 = performance.now();
      await Promise.all(clients.map(session));
      return (ops / (performance.now() - t0)) * 1000;
    };
    await load(task.warmup);
    return { opsPerSec: await load(task.ops) };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
  }
}

/** Spawn to the first answered tools/list, `task.launches` times after one unmeasured launch. */
async function cold() {
  const once = async () => {
    const t0 = performance.now();
    const { client, close } = await open(task.server, task.transport);
    const tools = await client.listTools();
    const ms = performance.now() - t0;
    await close();
    if (tools.length !== 2) throw new Error(`tools/list gave ${tools.length} tools`);
    return ms;
  };
  await once();
  const ms = [];
  for (let i = 0; i < task.launches; i++) ms.push(await once());
  return { ms: [...ms].sort((a, b) => a - b)[Math.floor((ms.length - 1) / 2)], all: ms };
}

/** User + system CPU time of a process so far, in ms (Linux /proc, 10 ms ticks). */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const rssOf = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error("no VmRSS");
  return Number(m[1]) * 1024;
};
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Server RSS per open HTTP session: sessions are opened (initialize, tools/list, one call) and left
 * open while their connections are dropped, so what is counted is session state, not sockets.
 * RSS is read after a first `task.sessions` (which grow the heap to its working size) and again after
 * as many more; the slope of the second step is the cost per session.
 */
async function sessions() {
  const server = await startHttpServer(task.server);
  const fill = async (n) => {
    for (let done = 0; done < n; done += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, n - done) }, async () => {
          const c = createRawHttpClient({ url: server.url });
          await c.connect();
          await c.listTools();
          await c.call(ECHO);
          c.detach();
        }),
      );
    }
    await pause(300);
    return rssOf(server.pid);
  };
  try {
    const first = await fill(task.sessions);
    const second = await fill(task.sessions);
    return { bytesPerSession: (second - first) / task.sessions, rss: second };
  } finally {
    await server.close();
  }
}

const modes = { throughput, mixed, cold, sessions };
const timer = setTimeout(() => {
  process.stderr.write(`server worker timed out: ${JSON.stringify(task)}\n`);
  process.exit(3);
}, task.timeoutMs ?? 170_000);
try {
  const result = await modes[task.mode]();
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  clearTimeout(timer);
  process.exit(0);
} catch (error) {
  process.stderr.write(`server worker failed: ${error?.stack ?? error}\n`);
  process.exit(2);
}
