/**
 * Class 3 of #18: prototype keys in configuration. Every map read from a user's file is
 * prototype-free: servers named `__proto__`, `constructor` or `prototype` are real servers (parsed,
 * merged across the global and project files, started, called), env keys of those names reach the
 * child, a top-level `__proto__` changes nothing, and a key that cannot be honoured (a header named
 * `__proto__`, which HTTP stacks drop) is an error naming the file and the JSON pointer. Lock-style
 * fingerprint maps keep such tool names as data too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareCatalogues, fingerprintCatalogue } from "@toolwright/runtime/catalogue";
import { createMcpManager, loadMcpConfig, McpConfigError, parseMcpConfig } from "@toolwright/runtime/manager";
import { beforeAll, describe, expect, it } from "vitest";
import { buildChildEnv } from "../../packages/runtime/src/transport/environment.js";
import { HOSTILE_STDIO_SERVER } from "../support/hostile-stdio-server.js";
import { guardLeaks } from "../support/leak-guard.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tw-proto-"));
});
guardLeaks(async () => {
  rmSync(dir, { recursive: true, force: true });
});

const NAMES = ["__proto__", "constructor", "prototype"];
/** An own property's value; reading `.__proto__` directly would read the accessor on ordinary objects. */
const own = <T>(map: { readonly [key: string]: T }, key: string): T | undefined => Object.getOwnPropertyDescriptor(map, key)?.value;
const entry = (extra: object = {}) => ({ command: process.execPath, args: [HOSTILE_STDIO_SERVER], ...extra });
/** Config text as a user's file holds it: JSON with own "__proto__" keys (JSON.stringify cannot write them from a literal). */
const fileText = (servers: readonly string[], extra: object = {}) =>
  `{"mcpServers": {${servers.map((n) => `${JSON.stringify(n)}: ${JSON.stringify(entry(extra))}`).join(", ")}}}`;

describe("server names", () => {
  it("parse as real servers in a prototype-free map; nothing leaks into the map's prototype", () => {
    const config = parseMcpConfig(fileText(NAMES), { file: "mcp.json" });
    expect(Object.getPrototypeOf(config.mcpServers)).toBeNull();
    expect(Object.keys(config.mcpServers)).toEqual(NAMES);
    for (const name of NAMES) expect(Object.hasOwn(config.mcpServers, name)).toBe(true);
    expect((config.mcpServers as { command?: unknown }).command).toBeUndefined();
    expect(own(config.mcpServers, "__proto__")?.command).toBe(process.execPath);
  });

  it("start, list and answer through the manager", async () => {
    const manager = createMcpManager(parseMcpConfig(fileText(NAMES), { file: "mcp.json" }), { collisionPolicy: "prefix" });
    try {
      const statuses = await manager.start();
      expect(statuses.map((s) => [s.name, s.connected])).toEqual(NAMES.map((n) => [n, true]));
      for (const name of NAMES) {
        const result = await manager.callTool(`${name}.malformed`, { result: { content: [{ type: "text", text: name }] } });
        expect(result).toMatchObject({ ok: true, value: name });
      }
    } finally {
      await manager.stop();
    }
  });

  it("merge across the global and the project file: the project wins, by name, for these names too", () => {
    const globalDir = join(dir, "global");
    const projectDir = join(dir, "project");
    mkdirSync(globalDir, { recursive: true });
    mkdirSync(join(projectDir, ".toolwright"), { recursive: true });
    writeFileSync(join(globalDir, "mcp.json"), fileText(NAMES, { cwd: "/global" }));
    writeFileSync(join(projectDir, ".toolwright", "mcp.json"), fileText(["__proto__"], { cwd: "/project" }));
    const config = loadMcpConfig({ globalDir, projectDir, env: {} });
    expect(Object.getPrototypeOf(config.mcpServers)).toBeNull();
    expect(Object.keys(config.mcpServers).sort()).toEqual([...NAMES].sort());
    const proto = own(config.mcpServers, "__proto__");
    expect(proto?.transport === "stdio" && proto.cwd).toBe("/project");
    const ctor = config.mcpServers.constructor;
    expect(ctor?.transport === "stdio" && ctor.cwd).toBe("/global");
  });

  it("a top-level __proto__ in the file changes nothing", () => {
    const text = `{"__proto__": {"collisionPolicy": "prefix", "mcpServers": {"ghost": {"command": "x"}}}, "mcpServers": {}}`;
    const config = parseMcpConfig(text, { file: "mcp.json" });
    expect(config.collisionPolicy).toBeUndefined();
    expect(Object.keys(config.mcpServers)).toEqual([]);
    expect(config.warnings).toEqual([]);
  });
});

describe("env and headers", () => {
  it("env keys __proto__ and constructor are variables the child really gets", async () => {
    const text = `{"mcpServers": {"envy": {"command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(HOSTILE_STDIO_SERVER)}], "env": {"__proto__": "proto-value", "constructor": "ctor-value"}}}}`;
    const config = parseMcpConfig(text, { file: "mcp.json" });
    const envy = config.mcpServers.envy;
    expect(envy?.transport === "stdio" && Object.getPrototypeOf(envy.env)).toBeNull();
    const manager = createMcpManager(config);
    try {
      await manager.start();
      const result = await manager.callTool("envy.env", {});
      const env = JSON.parse(result.ok ? (result.value as string) : "{}") as Record<string, string>;
      expect(Object.hasOwn(env, "__proto__") && own(env, "__proto__")).toBe("proto-value");
      expect(Object.hasOwn(env, "constructor") && env.constructor).toBe("ctor-value");
    } finally {
      await manager.stop();
    }
  });

  it("a pass-through name that only Object.prototype has is not passed", () => {
    const env = buildChildEnv(["constructor", "toString", "__proto__"], { PATH: "/bin" }, ["PATH"]);
    expect(Object.keys(env)).toEqual(["PATH"]);
  });

  it("a header named __proto__ cannot be honoured: an error names the file and the pointer", () => {
    const text = `{"mcpServers": {"web": {"url": "http://127.0.0.1:1/mcp", "headers": {"__proto__": "x", "constructor": "y"}}}}`;
    let error: unknown;
    try {
      parseMcpConfig(text, { file: "/etc/mcp.json" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpConfigError);
    expect(error).toMatchObject({ file: "/etc/mcp.json", pointer: "/mcpServers/web/headers/__proto__" });
    expect((error as Error).message).toMatch(
      /\/etc\/mcp\.json: \/mcpServers\/web\/headers\/__proto__ header name "__proto__" cannot be sent/,
    );
  });
});

describe("lock-style fingerprint maps", () => {
  it("keep __proto__ and constructor as tool names, and compare against a parsed lock without confusion", () => {
    const tools = ["__proto__", "constructor", "then"].map((name) => ({ name, inputSchema: { type: "object" } }));
    const live = fingerprintCatalogue(tools);
    expect(Object.keys(live.tools).sort()).toEqual(["__proto__", "constructor", "then"]);
    const lock = JSON.parse(JSON.stringify({ tools: live.tools })) as { tools: Record<string, string> };
    expect(compareCatalogues(lock.tools, live.tools)).toEqual([]);
    const without = JSON.parse(`{"__proto__": ${JSON.stringify(own(live.tools, "__proto__"))}}`) as Record<string, string>;
    expect(compareCatalogues(without, live.tools).map((d) => [d.tool, d.change])).toEqual([
      ["constructor", "added"],
      ["then", "added"],
    ]);
  });
});
