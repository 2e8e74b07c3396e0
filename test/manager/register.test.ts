/**
 * mcp_register writes the config atomically (other entries and indentation kept), connects the
 * server and registers its tools; bad arguments are invalid_call failures with field issues.
 * Also the embedder entry points: connectFromConfig and discoverServers.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  connectFromConfig,
  createMcpManager,
  createMcpRegisterTool,
  discoverServers,
  loadMcpConfig,
  type McpManager,
  parseMcpConfig,
} from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { alive, DYNAMIC, EVERYTHING, NODE, startEverythingHttp, tempDir } from "./helpers.js";

let manager: McpManager | undefined;
let tmp: ReturnType<typeof tempDir>;
let projectDir: string;
let globalDir: string;
beforeEach(() => {
  tmp = tempDir();
  projectDir = join(tmp.dir, "project");
  globalDir = join(tmp.dir, "global");
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  tmp.cleanup();
});

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

describe("mcp_register", () => {
  it("writes the project file keeping other entries and 4-space indentation, connects, and registers tools", async () => {
    const file = join(projectDir, ".toolwright", "mcp.json");
    mkdirSync(join(projectDir, ".toolwright"), { recursive: true });
    const original = { $schema: "x", mcpServers: { existing: { command: "not-started", enabled: false } } };
    writeFileSync(file, `${JSON.stringify(original, null, 4)}\n`);
    manager = createMcpManager(loadMcpConfig({ projectDir, globalDir }));
    await manager.start();
    const tool = createMcpRegisterTool({ confirm: "allow-all", manager, projectDir, globalDir, env: { DYN_PATH: DYNAMIC } });
    expect(tool.descriptor.name).toBe("mcp_register");
    const result = await tool.call({ name: "dyn", scope: "project", type: "stdio", command: NODE, args: ["${DYN_PATH}"] });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.file).toBe(file);
      expect(result.value.created).toBe(false);
      expect(result.value.tools).toContain("alpha");
    }
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^\{\n {4}"\$schema"/);
    expect(text.endsWith("}\n")).toBe(true);
    const written = JSON.parse(text);
    expect(written.mcpServers.existing).toEqual(original.mcpServers.existing);
    // The entry keeps the ${VAR} reference; only the running config has it expanded.
    expect(written.mcpServers.dyn).toEqual({ type: "stdio", command: NODE, args: ["${DYN_PATH}"] });
    expect(readdirSync(join(projectDir, ".toolwright"))).toEqual(["mcp.json"]);
    const call = await manager.callTool("dyn.alpha");
    expect(call.ok).toBe(true);
    expect(manager.listServers().find((s) => s.name === "dyn")?.connected).toBe(true);
    // Registering the same name again needs replace: true.
    const again = await tool.call({ name: "dyn", scope: "project", type: "stdio", command: NODE, args: [DYNAMIC] });
    expect(again.ok === false && again.failure.message).toMatch(/already exists/);
  });

  it("creates the global file for scope global and registers an HTTP server", async () => {
    const http = await startEverythingHttp();
    try {
      manager = createMcpManager(parseMcpConfig("{}"));
      const tool = createMcpRegisterTool({ confirm: "allow-all", manager, projectDir, globalDir });
      const result = await tool.caller.callTool({
        name: "mcp_register",
        arguments: { name: "remote", scope: "global", type: "http", url: http.url },
      });
      expect(result.ok).toBe(true);
      const written = JSON.parse(readFileSync(join(globalDir, "mcp.json"), "utf8"));
      expect(written).toEqual({ mcpServers: { remote: { type: "http", url: http.url } } });
      expect(manager.tools().some((t) => t.id === "remote.echo")).toBe(true);
      const echo = await manager.callTool("remote.echo", { message: "registered" });
      expect(echo.ok && echo.value).toBe("Echo: registered");
      await manager.stop();
    } finally {
      await http.stop();
    }
  });

  it("rejects bad arguments with field issues and writes nothing", async () => {
    manager = createMcpManager(parseMcpConfig("{}"));
    const tool = createMcpRegisterTool({ confirm: "allow-all", manager, projectDir, globalDir, env: {} });
    const bad = await tool.call({ name: "has space", scope: "team", type: "stdio", args: [1], extra: true });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.failure.kind).toBe("invalid_call");
      expect(bad.failure.recovery.action).toBe("correct_call");
      const issues = bad.failure.recovery.issues?.map((i) => `${i.field}:${i.constraint}`);
      expect(issues).toEqual(
        expect.arrayContaining(["name:invalid_pattern", "scope:invalid_enum_value", "command:missing_field", "extra:unknown_field"]),
      );
      expect(bad.failure.recovery.exampleJson).toBeDefined();
    }
    const badArgs = await tool.call({ name: "x", scope: "project", type: "stdio", command: "c", args: ["ok", 2] });
    expect(badArgs.ok === false && badArgs.failure.recovery.issues?.[0]?.field).toBe("args[1]");
    const unset = await tool.call({
      name: "x",
      scope: "project",
      type: "http",
      url: "http://127.0.0.1:1/mcp",
      headers: { A: "${NOT_SET_ANYWHERE}" },
    });
    expect(unset.ok === false && unset.failure.message).toMatch(/NOT_SET_ANYWHERE/);
    // An entry the config refuses is a local reason the arguments can fix: correct_call with them.
    expect(unset).toMatchObject({
      ok: false,
      failure: {
        kind: "invalid_call",
        reason: "config_rejected",
        source: "local",
        recovery: { action: "correct_call", priorInput: { name: "x" } },
      },
    });
    expect(unset.ok || unset.failure.rpc).toBeUndefined();
    expect(() => readdirSync(join(projectDir, ".toolwright"))).toThrow();
  });

  it("a config file that cannot be written is no argument problem: internal / replan, without a made-up JSON-RPC code", async () => {
    manager = createMcpManager(parseMcpConfig("{}"));
    // A plain file where the .toolwright folder should be: creating the folder fails.
    mkdirSync(projectDir, { recursive: true });
    writeFileSync(join(projectDir, ".toolwright"), "not a folder");
    const tool = createMcpRegisterTool({ confirm: "allow-all", manager, projectDir, globalDir, env: {} });
    const failed = await tool.call({ name: "x", scope: "project", type: "stdio", command: "c" });
    expect(failed).toMatchObject({
      ok: false,
      failure: { kind: "internal", reason: "config_write_failed", source: "local", recovery: { action: "replan" } },
    });
    expect(failed.ok || failed.failure.message).toMatch(/cannot write .*mcp\.json/);
    expect(failed.ok || Object.hasOwn(failed.failure.recovery, "priorInput")).toBe(false);
    // Through the caller an unknown tool name is the local tool_unavailable reason, not -32601.
    const unknown = await tool.caller.callTool({ name: "mcp_unregister", arguments: {} });
    expect(unknown).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", reason: "tool_unavailable", recovery: { action: "replan" } },
    });
    expect(unknown.ok || unknown.failure.rpc).toBeUndefined();
  });

  it("asks confirm before writing; a refusal is canceled and writes nothing", async () => {
    manager = createMcpManager(parseMcpConfig("{}"));
    const seen: string[] = [];
    const tool = createMcpRegisterTool({
      manager,
      projectDir,
      globalDir,
      confirm: (request) => {
        seen.push(`${request.name}:${request.scope}:${request.entry.command}`);
        return false;
      },
    });
    const result = await tool.call({ name: "dyn", scope: "project", type: "stdio", command: NODE, args: [DYNAMIC] });
    expect(result.ok === false && result.failure.kind).toBe("canceled");
    expect(seen).toEqual([`dyn:project:${NODE}`]);
    expect(() => readdirSync(join(projectDir, ".toolwright"))).toThrow();
    expect(manager.listServers()).toEqual([]);
  });

  it("reports a server that fails to connect, with its stderr", async () => {
    manager = createMcpManager(parseMcpConfig("{}"));
    const tool = createMcpRegisterTool({ confirm: "allow-all", manager, projectDir, globalDir });
    const result = await tool.call({
      name: "dead",
      scope: "project",
      type: "stdio",
      command: NODE,
      args: ["-e", "console.error('no such db');process.exit(2)"],
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failure.kind).toBe("unavailable");
      expect(result.failure.message).toMatch(/registered "dead" .* but connecting failed/);
      expect(result.failure.stderrTail).toContain("no such db");
    }
  });
});

describe("embedders", () => {
  it("discoverServers lists, connectFromConfig gives a plain client without a manager", async () => {
    mkdirSync(join(projectDir, ".toolwright"), { recursive: true });
    writeFileSync(
      join(projectDir, ".toolwright", "mcp.json"),
      JSON.stringify({
        mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] }, broken: { command: join(tmp.dir, "missing-binary") } },
      }),
    );
    const found = discoverServers(projectDir, { globalDir });
    expect(found.map((s) => s.name)).toEqual(["broken", "everything"]);
    const everything = found.find((s) => s.name === "everything");
    const outcome = await connectFromConfig(everything?.config as NonNullable<typeof everything>["config"]);
    expect(outcome.ok).toBe(true);
    if (outcome.ok) {
      const pid = outcome.value.pid as number;
      const tools = await outcome.value.listTools();
      expect(tools.ok && tools.value.some((t) => t.name === "echo")).toBe(true);
      const echo = await outcome.value.callTool({ name: "echo", arguments: { message: "plain" } });
      expect(echo.ok && echo.value.content[0]).toEqual({ type: "text", text: "Echo: plain" });
      await outcome.value.close();
      expect(alive(pid)).toBe(false);
    }
    const broken = found.find((s) => s.name === "broken");
    const failed = await connectFromConfig(broken?.config as NonNullable<typeof broken>["config"]);
    expect(failed.ok === false && failed.failure.kind).toBe("unavailable");
  });

  it("connectFromConfig with a config no client can be made from: config_rejected / replan, not a retry of an invented ECLOSED", async () => {
    const config = parseMcpConfig(JSON.stringify({ mcpServers: { x: { type: "http", url: "http://127.0.0.1:1/mcp" } } })).mcpServers.x;
    // A resolved config an embedder changed by hand: a scheme the HTTP caller refuses.
    const failed = await connectFromConfig({ ...(config as NonNullable<typeof config>), url: "ftp://127.0.0.1/mcp" } as never);
    expect(failed).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", reason: "config_rejected", source: "local", server: "127.0.0.1", recovery: { action: "replan" } },
    });
    expect(failed.ok || failed.failure.message).toBe(
      "127.0.0.1: cannot create its client: createHttpCaller: url must be http(s), got ftp:",
    );
  });
});
