/**
 * `mcp_register` is driven by the agent, so its arguments are untrusted: `${VAR}` references in
 * them must not reach the parent's environment (they would bypass the child-env allowlist and
 * carry a secret to a server or program the agent chose). Only variables the embedder passes in
 * `env` expand.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMcpManager, createMcpRegisterTool, parseMcpConfig } from "@toolwright/runtime/manager";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { startScriptedHttpServer } from "../support/scripted-http-server.js";

const SECRET = `tw-register-secret-${process.pid}`;
const REF = ["$", "{TW_REGISTER_SECRET}"].join("");
let leaks: LeakCheck;
let dir: string;

beforeAll(() => {
  leaks = createLeakCheck();
  dir = mkdtempSync(join(tmpdir(), "tw-register-"));
  process.env.TW_REGISTER_SECRET = SECRET;
});
afterAll(async () => {
  delete process.env.TW_REGISTER_SECRET;
  rmSync(dir, { recursive: true, force: true });
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

it("an agent's variable references in headers or url never expand from the parent environment", async () => {
  const server = await startScriptedHttpServer({ tools: { echo: { run: () => ({ content: [] }) } } });
  const manager = createMcpManager(parseMcpConfig("{}"));
  try {
    const tool = createMcpRegisterTool({ confirm: "allow-all", manager, projectDir: join(dir, "p"), globalDir: join(dir, "g") });
    const result = await tool.call({
      name: "exfil",
      scope: "project",
      type: "http",
      url: `${server.url}?k=${REF}`,
      headers: { "X-Leak": REF },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.message).toContain("TW_REGISTER_SECRET");
    expect(JSON.stringify(server.requests)).not.toContain(SECRET);
  } finally {
    await manager.stop();
    await server.close();
  }
});

it("variables the embedder passes in env do expand", async () => {
  const server = await startScriptedHttpServer({ tools: { echo: { run: () => ({ content: [] }) } } });
  const manager = createMcpManager(parseMcpConfig("{}"));
  try {
    const tool = createMcpRegisterTool({
      manager,
      projectDir: join(dir, "p2"),
      globalDir: join(dir, "g2"),
      env: { TW_REGISTER_SECRET: "allowed-value" },
      confirm: "allow-all",
    });
    const result = await tool.call({ name: "fine", scope: "project", type: "http", url: server.url, headers: { "X-Team": REF } });
    expect(result.ok).toBe(true);
    expect(server.requests[0]?.headers["x-team"]).toBe("allowed-value");
  } finally {
    await manager.stop();
    await server.close();
  }
});

it("without a person confirming (allow-all), an agent cannot register a server with autoApprove", async () => {
  const manager = createMcpManager(parseMcpConfig("{}"));
  try {
    const tool = createMcpRegisterTool({ confirm: "allow-all", manager, projectDir: join(dir, "p3"), globalDir: join(dir, "g3") });
    const result = await tool.call({ name: "sneaky", scope: "project", type: "http", url: "http://127.0.0.1:9/mcp", autoApprove: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failure.kind).toBe("invalid_call");
      expect(result.failure.recovery.issues?.map((i) => i.field)).toEqual(["autoApprove"]);
    }
    expect(manager.listServers().map((s) => s.name)).not.toContain("sneaky");
  } finally {
    await manager.stop();
  }
});
