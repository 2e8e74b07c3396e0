/**
 * A durable worker process for the crash tests: a "ledger" toolset over a real stdio MCP server
 * (ledger-server.mjs), with TW_HTTP_URL a "web" toolset (read-only `lookup`) over streamable HTTP,
 * and a scripted agent whose input lists the calls to make (`tool`: a ledger tool or `web.lookup`). Configured by env;
 * prints `{"ready": "<executor id>"}` once launched; exits when stdin closes or on SIGTERM.
 * TW_AGENTS (comma-separated, default `script-agent`) defines several such agents, each with its own
 * runtime and its own callers: its ledger server gets LEDGER_CREDENTIAL=`cred:<agent>` and notes it
 * on every call, so a test sees whose caller a call went through. TW_DEAF=1 wraps every ledger
 * caller in one that drops `timeoutMs` and the signal (fault injection: a caller that ignores them).
 * TW_PRINCIPALS=1 gives each agent a `runtimeFor`: a run made for a principal gets that principal's
 * own registry and ledger server, with LEDGER_CREDENTIAL=`cred:<agent>:<principal>`.
 */
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineDurableAgent, launchDurableWorker } from "@toolwright/dbos";
import { type Caller, createRuntime, type ToolSpec } from "@toolwright/runtime";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { defineCodeAgent } from "./code-agent.js";

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`worker: ${name} is not set`);
  return value;
};

const ledgerFile = env("LEDGER_FILE");
const executorId = env("TW_EXECUTOR");

function spec(name: string, annotations: ToolSpec["annotations"], toolset = "ledger"): ToolSpec {
  return {
    id: `${toolset}.${name}`,
    toolset,
    name,
    providerName: `${toolset}_${name}`,
    inputSchema: { type: "object" },
    annotations,
    decodePayload: (value) =>
      typeof value === "object" && value !== null && typeof (value as { text?: unknown }).text === "string"
        ? { ok: true, value }
        : { ok: false, issues: [{ field: "text", constraint: "missing_field" }] },
  };
}

const policy = {
  maxToolCalls: Number(env("TW_MAX_CALLS", "0")),
  ...(process.env.TW_TOOL_TIMEOUT_MS ? { toolTimeoutMs: Number(process.env.TW_TOOL_TIMEOUT_MS) } : {}),
  ...(process.env.TW_TIME_BUDGET_MS ? { timeBudgetMs: Number(process.env.TW_TIME_BUDGET_MS) } : {}),
};
const httpUrl = process.env.TW_HTTP_URL;
const closers: (() => Promise<void>)[] = [];

/** Drops `timeoutMs` and the signal of every call: the fault of a caller that ignores the run's deadline. */
function deaf(inner: Caller): Caller {
  return {
    server: inner.server,
    callTool: (request, { timeoutMs: _timeoutMs, signal: _signal, ...rest } = {}) => inner.callTool(request, rest),
  };
}

/** One agent's own registry and callers (its "credentials"), none shared with another agent. */
function agentRuntime(agent: string) {
  const ledger = createStdioCaller({
    name: "ledger",
    command: process.execPath,
    args: [fileURLToPath(new URL("./ledger-server.mjs", import.meta.url))],
    env: [`LEDGER_FILE=${ledgerFile}`, `LEDGER_OWNER=${executorId}`, `LEDGER_CREDENTIAL=cred:${agent}`],
    timeoutMs: 120_000,
  });
  closers.push(() => ledger.close());
  const runtime = createRuntime({ policy });
  runtime.registerToolset({
    toolset: "ledger",
    caller: process.env.TW_DEAF === "1" ? deaf(ledger) : ledger,
    specs: [spec("append", {}), spec("read", { readOnly: true }), spec("put", { idempotent: true }), spec("wipe", { destructive: true })],
  });
  if (httpUrl) {
    const web = createHttpCaller({ name: "web", url: httpUrl, timeoutMs: 30_000 });
    closers.push(() => web.close());
    runtime.registerToolset({ toolset: "web", caller: web, specs: [spec("lookup", { readOnly: true }, "web")] });
  }
  return { runtime, ledger };
}

/** One scripted step: a tool call, or a planner pause that marks the ledger first. */
type ScriptStep =
  | { readonly tool: string; readonly text: string; readonly hold_ms?: number }
  | { readonly pause: number }
  | { readonly ask: string };
/** What the agent returns per step. */
type StepOutcome = {
  readonly tool: string;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly reason?: string;
  readonly kind?: string;
};

const agents = env("TW_AGENTS", "script-agent").split(",");
const ledgers = agents.map((agent) => defineScriptAgent(agent));

function defineScriptAgent(agent: string) {
  const { runtime, ledger } = agentRuntime(agent);
  const perPrincipal = new Map<string, ReturnType<typeof createRuntime>>();
  const runtimeFor = (principal: { readonly id: string }) => {
    const known = perPrincipal.get(principal.id);
    if (known) return known;
    const own = agentRuntime(`${agent}:${principal.id}`).runtime;
    perPrincipal.set(principal.id, own);
    return own;
  };
  defineDurableAgent<{ readonly steps: readonly ScriptStep[] }, StepOutcome[]>({
    name: agent,
    runtime,
    ...(process.env.TW_PRINCIPALS === "1" ? { runtimeFor } : {}),
    retry: { baseDelayMs: 50 },
    confirmation: {
      timeoutMs: 120_000,
      onRequest: (request) =>
        appendFileSync(ledgerFile, `${JSON.stringify({ kind: "approval-requested", run: request.runId, call: request.call })}\n`),
    },
    async run(run, input) {
      const out: StepOutcome[] = [];
      for (const step of input.steps) {
        if ("pause" in step) {
          await run.step("pause", async () => {
            appendFileSync(ledgerFile, `${JSON.stringify({ kind: "paused", run: run.runId, owner: executorId })}\n`);
            await new Promise((resolve) => setTimeout(resolve, step.pause));
          });
          continue;
        }
        if ("ask" in step) {
          const answer = await run.ask<string>(`question.${out.length}`, { question: step.ask }, 120_000);
          out.push({ tool: "ask", ok: answer !== undefined, value: answer });
          continue;
        }
        const { tool, ...args } = step;
        const result = await run.execute({ tool: tool.includes(".") ? tool : `ledger.${tool}`, arguments: args });
        out.push(
          result.ok
            ? { tool, ok: true, value: result.value }
            : { tool, ok: false, kind: result.failure.kind, ...(result.failure.reason ? { reason: result.failure.reason } : {}) },
        );
      }
      return out;
    },
  });
  return ledger;
}

// TW_CODE_AGENT=1: also a code-mode agent (its own runtime and ledger server), for test/durable/code-mode.test.ts.
if (process.env.TW_CODE_AGENT === "1") {
  const { runtime, ledger } = agentRuntime("code-agent");
  ledgers.push(ledger);
  defineCodeAgent(runtime, (request) =>
    appendFileSync(ledgerFile, `${JSON.stringify({ kind: "approval-requested", run: request.runId, call: request.call })}\n`),
  );
}

const limits = process.env.TW_LIMITS ? JSON.parse(process.env.TW_LIMITS) : undefined;
const worker = await launchDurableWorker({
  databaseUrl: env("TW_DB_URL"),
  appName: env("TW_APP", "toolwright-test"),
  appVersion: "test-1",
  executorId,
  runConcurrency: Number(env("TW_RUN_CONCURRENCY", "10")),
  heartbeatMs: Number(env("TW_HEARTBEAT_MS", "200")),
  deadAfterMs: Number(env("TW_DEAD_AFTER_MS", "1500")),
  pollingIntervalMs: 50,
  ...(limits ? { serverLimits: limits } : {}),
  onTakeover: (t) => process.stdout.write(`${JSON.stringify({ takeover: t.executorId, recovered: t.recovered.length })}\n`),
});
// TW_WARM=1: connect the ledger server before ready, so no call pays the spawn + initialize (rate-limit test).
if (process.env.TW_WARM === "1") {
  for (const ledger of ledgers) {
    const listed = await ledger.listTools();
    if (!listed.ok) throw new Error(`worker: warming the ledger server failed: ${listed.failure.message}`);
  }
}
process.stdout.write(`${JSON.stringify({ ready: worker.executorId, pid: process.pid })}\n`);

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  await worker.shutdown().catch(() => undefined);
  for (const close of closers) await close();
  process.exit(code);
}
process.on("SIGTERM", () => void stop(0));
process.stdin.on("end", () => void stop(0));
process.stdin.resume();
