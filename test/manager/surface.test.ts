/**
 * The manager's resources, templates and prompts under namespaced names, across the real
 * server-everything (which has them) and server-memory (which has none: its failure is reported
 * per server and never hides the other's items).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { EVERYTHING, MEMORY, NODE } from "./helpers.js";

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});
let leaks: LeakCheck;
beforeAll(() => {
  leaks = createLeakCheck();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

const config = () =>
  parseMcpConfig(
    JSON.stringify({
      mcpServers: {
        everything: { command: NODE, args: [EVERYTHING, "stdio"] },
        memory: { command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: "/dev/null" } },
      },
    }),
  );

describe("manager surface", () => {
  it("lists prompts as server.prompt and gets one by that id; memory's missing prompts are a per-server failure", async () => {
    manager = createMcpManager(config());
    await manager.start();
    const prompts = await manager.listPrompts();
    expect(prompts.items.map((p) => p.id)).toEqual(expect.arrayContaining(["everything.simple-prompt", "everything.args-prompt"]));
    expect(prompts.items.every((p) => p.server === "everything")).toBe(true);
    expect(prompts.failures.map((f) => f.server)).toEqual(["memory"]);
    const got = await manager.getPrompt("everything.args-prompt", { city: "Oslo" });
    expect(got.ok && got.value.messages.length).toBeGreaterThan(0);
    const unknown = await manager.getPrompt("nowhere.prompt");
    expect(unknown).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", reason: "tool_unavailable", source: "local", recovery: { action: "replan" } },
    });
    expect(unknown.ok || unknown.failure.rpc).toBeUndefined();
  });

  it("lists resources and templates tagged with their server and reads one through its server", async () => {
    manager = createMcpManager(config());
    await manager.start();
    const resources = await manager.listResources();
    expect(resources.items.length).toBeGreaterThan(0);
    const first = resources.items[0];
    if (!first) throw new Error("no resources");
    expect(first.server).toBe("everything");
    const read = await manager.readResource(first.server, first.uri);
    expect(read.ok && read.value[0]?.uri).toBe(first.uri);
    const templates = await manager.listResourceTemplates();
    expect(templates.items.map((t) => `${t.server}:${t.uriTemplate}`)).toContain("everything:demo://resource/dynamic/text/{resourceId}");
    const missing = await manager.readResource("nope", "x://y");
    expect(missing.ok).toBe(false);
  });
});
