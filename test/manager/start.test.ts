/**
 * Proof: one config with real servers (server-everything and server-memory over stdio,
 * server-everything over Streamable HTTP on 127.0.0.1) and one broken server. start() reports each
 * server separately and the working tools are callable.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime } from "../../packages/runtime/src/index.js";
import { createMcpManager, loadMcpConfig, type McpManager } from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { alive, EVERYTHING, MEMORY, NODE, startEverythingHttp, tempDir } from "./helpers.js";

// No child process, handle, listener or watcher may outlive this file's tests.
let leaks: LeakCheck;
beforeAll(() => {
  leaks = createLeakCheck();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

describe("manager start with real servers", () => {
  const tmp = tempDir();
  const projectDir = join(tmp.dir, "project");
  const memoryFile = join(tmp.dir, "memory.jsonl");
  let manager: McpManager;
  const runtime = createRuntime();
  const pids: number[] = [];
  let http: Awaited<ReturnType<typeof startEverythingHttp>>;

  beforeAll(async () => {
    http = await startEverythingHttp();
    mkdirSync(join(projectDir, ".toolwright"), { recursive: true });
    writeFileSync(
      join(projectDir, ".toolwright", "mcp.json"),
      JSON.stringify({
        mcpServers: {
          everything: { command: NODE, args: [EVERYTHING, "stdio"] },
          memory: { command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: "${MEMORY_DIR}/memory.jsonl" } },
          remote: { type: "http", url: http.url, headers: { "X-Client": "${CLIENT_NAME:-toolwright-test}" } },
          broken: { command: NODE, args: ["-e", "console.error('fatal: config token missing'); process.exit(3)"] },
        },
      }),
    );
  });
  afterAll(async () => {
    await manager?.stop();
    await http?.stop();
    tmp.cleanup();
  });

  it("connects four servers in parallel: three connect, the broken one fails with its reason and stderr", async () => {
    const config = loadMcpConfig({ projectDir, globalDir: join(tmp.dir, "no-global"), env: { ...process.env, MEMORY_DIR: tmp.dir } });
    expect(config.mcpServers.memory?.source).toBe(join(projectDir, ".toolwright", "mcp.json"));
    manager = createMcpManager(config, { registry: runtime });
    const statuses = await manager.start();
    const byName = Object.fromEntries(statuses.map((s) => [s.name, s]));
    expect(byName.everything?.connected).toBe(true);
    expect(byName.memory?.connected).toBe(true);
    expect(byName.remote?.connected).toBe(true);
    expect(byName.remote?.transport).toBe("http");
    expect(statuses.filter((s) => s.connected)).toHaveLength(3);
    expect(byName.broken?.connected).toBe(false);
    expect(byName.broken?.state).toBe("failed");
    expect(byName.broken?.error).toMatch(/exited/);
    expect(byName.broken?.stderrTail).toContain("fatal: config token missing");
    for (const s of [byName.everything, byName.memory]) {
      expect(s?.toolCount).toBeGreaterThan(0);
      expect(s?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(s?.connectedAt).toBeInstanceOf(Date);
      expect(s?.durations?.totalMs).toBeGreaterThanOrEqual(s?.durations?.connectMs ?? Number.NaN);
      pids.push(s?.pid as number);
    }
    expect(byName.remote?.toolCount).toBe(byName.everything?.toolCount);
    expect(byName.broken?.toolCount).toBe(0);
    expect(byName.broken?.durations?.totalMs).toBeGreaterThanOrEqual(0);
  });

  it("registers tools under server.tool ids with provider-safe names", () => {
    const ids = manager.tools().map((t) => t.id);
    expect(ids).toContain("everything.echo");
    expect(ids).toContain("memory.create_entities");
    for (const t of manager.tools()) expect(t.exposedName).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const names = manager.tools().map((t) => t.exposedName);
    expect(new Set(names).size).toBe(names.length);
    expect(runtime.lookup("everything.echo")?.spec.name).toBe("echo");
  });

  it("calls tools on both working servers and returns ToolResult values", async () => {
    const echo = await manager.callTool("everything.echo", { message: "hi" });
    expect(echo.ok && echo.value).toBe("Echo: hi");
    const created = await manager.callTool("memory.create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
    });
    expect(created.ok).toBe(true);
    // MEMORY_FILE_PATH came from ${MEMORY_DIR} in the config: the server wrote where we said.
    expect(readFileSync(memoryFile, "utf8")).toContain("Ada");
    // server-everything over HTTP exposes the same tool names: prefix-on-collision gave them remote_*.
    const remoteEcho = manager.tools().find((t) => t.id === "remote.echo");
    expect(remoteEcho?.exposedName).toBe("remote_echo");
    const viaHttp = await manager.callTool("remote_echo", { message: "over http" });
    expect(viaHttp.ok && viaHttp.value).toBe("Echo: over http");
    const graph = await manager.callTool("memory.read_graph", {});
    expect(graph.ok && graph.value).toContain("Ada");
    // Through the runtime registry too.
    const viaRuntime = await runtime.execute({ tool: "everything.get-sum", arguments: { a: 2, b: 3 } });
    expect(viaRuntime.ok && viaRuntime.value).toContain("5");
  });

  it("maps bad arguments and unknown tools to failure values", async () => {
    const bad = await manager.callTool("everything.get-sum", { a: "two" });
    expect(bad.ok).toBe(false);
    const unknown = await manager.callTool("everything.no-such-tool", {});
    expect(unknown.ok === false && unknown.failure.kind).toBe("invalid_call");
    const nowhere = await manager.callTool("nowhere.tool", {});
    expect(nowhere.ok === false && nowhere.failure.kind).toBe("invalid_call");
    const broken = await manager.callTool("broken.anything", {});
    expect(broken.ok === false && broken.failure.kind).toBe("unavailable");
    expect(broken.ok === false && broken.failure.stderrTail).toContain("fatal: config token missing");
  });

  it("disconnect unregisters a server's tools; stop leaves no child process", async () => {
    await manager.disconnect("memory");
    expect(manager.tools().some((t) => t.server === "memory")).toBe(false);
    expect(runtime.lookup("memory.read_graph")).toBeUndefined();
    expect(manager.listServers().find((s) => s.name === "memory")?.state).toBe("disconnected");
    await manager.stop();
    expect(manager.tools()).toEqual([]);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });
});
