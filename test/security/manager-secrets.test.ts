/**
 * Secrets through the manager: an mcp.json env value (from `${VAR}`) and a header value reach the
 * servers, but never the manager's statuses, failures or rendered failures, even when the stdio
 * server prints its whole environment to stderr and dies, or an HTTP server reflects the header.
 */
import { createMcpManager, parseMcpConfig } from "@toolwright/runtime/manager";
import { afterAll, beforeAll, expect, it } from "vitest";
import { renderFailure } from "../../packages/runtime/src/planner/render.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { startScriptedHttpServer } from "../support/scripted-http-server.js";
import { scriptedServer } from "../support/scripted-stdio-server.js";

const SECRET = "tw-mgr-secret-5e6f7a8b9c";
/** The mcp.json reference to the secret, as a user writes it. */
const REF = ["$", "{TW_MGR_SECRET}"].join("");
let leaks: LeakCheck;

beforeAll(() => {
  leaks = createLeakCheck();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

it("a crashing stdio server that prints its env, and an HTTP server that reflects the header: no status or failure holds the secret", async () => {
  const stdio = scriptedServer({ init: "dump-env" });
  const http = await startScriptedHttpServer({ tools: { echo: { run: () => ({ content: [] }) } } });
  http.next(
    { rpc: "initialize" },
    { status: 400, body: { jsonrpc: "2.0", id: null, error: { code: -32000, message: `bad key ${SECRET}` } } },
  );
  const text = JSON.stringify({
    mcpServers: {
      leaky: {
        command: stdio.command,
        args: stdio.args,
        env: { ...Object.fromEntries(stdio.env.map((e) => e.split(/=(.*)/s).slice(0, 2))), UPSTREAM_KEY: REF },
      },
      reflective: { url: http.url, headers: { "X-Api-Key": REF }, era: "legacy" },
    },
  });
  const manager = createMcpManager(parseMcpConfig(text, { env: { TW_MGR_SECRET: SECRET } }), { client: { closeGraceMs: 200 } });
  try {
    const statuses = await manager.start();
    expect(statuses.map((s) => [s.name, s.connected])).toEqual(
      expect.arrayContaining([
        ["leaky", false],
        ["reflective", false],
      ]),
    );
    const leaky = statuses.find((s) => s.name === "leaky");
    expect(leaky?.stderrTail ?? "").toContain("UPSTREAM_KEY is");
    const again = await manager.connect("leaky");
    const call = await manager.callTool("echo", {});
    const surfaces = [JSON.stringify(statuses), JSON.stringify(again), JSON.stringify(call), call.ok ? "" : renderFailure(call.failure)];
    for (const s of surfaces) expect(s).not.toContain(SECRET);
    // The secret did reach the servers: the check above is not vacuous.
    expect(http.rpc("initialize")[0]?.headers["x-api-key"]).toBe(SECRET);
  } finally {
    await manager.stop();
    leaks.track(stdio.pids());
    stdio.dispose();
    await http.close();
  }
});
