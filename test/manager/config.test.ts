/**
 * mcp.json loading: layers (project wins), provenance, ${VAR} expansion, errors with file and
 * JSON pointer, and agreement between the hand-written checks and the shipped JSON Schema.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  discoverServers,
  expandVariables,
  loadMcpConfig,
  McpConfigError,
  parseMcpConfig,
  validateConfigFile,
} from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { tempDir } from "./helpers.js";

const require = createRequire(import.meta.url);

let tmp: ReturnType<typeof tempDir>;
let projectDir: string;
let globalDir: string;
const write = (file: string, value: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
};
const projectFile = () => join(projectDir, ".toolwright", "mcp.json");
const globalFile = () => join(globalDir, "mcp.json");

function loadError(fn: () => unknown): McpConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof McpConfigError) return error;
    throw error;
  }
  throw new Error("expected an McpConfigError");
}

beforeEach(() => {
  tmp = tempDir();
  projectDir = join(tmp.dir, "project");
  globalDir = join(tmp.dir, "xdg", "toolwright");
});
afterEach(() => tmp.cleanup());

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

describe("layers", () => {
  it("merges global and project files, the project winning by name, and records the source", () => {
    write(globalFile(), { mcpServers: { shared: { command: "global-cmd" }, onlyGlobal: { url: "http://127.0.0.1:1/mcp" } } });
    write(projectFile(), { mcpServers: { shared: { command: "project-cmd", args: ["x"] }, onlyProject: { command: "p" } } });
    const config = loadMcpConfig({ projectDir, env: { XDG_CONFIG_HOME: join(tmp.dir, "xdg") } });
    expect(Object.keys(config.mcpServers).sort()).toEqual(["onlyGlobal", "onlyProject", "shared"]);
    const shared = config.mcpServers.shared;
    expect(shared?.transport === "stdio" && shared.command).toBe("project-cmd");
    expect(shared?.source).toBe(projectFile());
    expect(config.mcpServers.onlyGlobal?.source).toBe(globalFile());
    expect(config.mcpServers.onlyGlobal?.transport).toBe("http");
    expect(config.files).toEqual([globalFile(), projectFile()]);
  });

  it("falls back to ~/.config/toolwright without XDG_CONFIG_HOME, and missing files are fine", () => {
    const home = join(tmp.dir, "home");
    write(join(home, ".config", "toolwright", "mcp.json"), { mcpServers: { a: { command: "a" } } });
    const config = loadMcpConfig({ projectDir, env: { HOME: home } });
    expect(config.mcpServers.a?.source).toBe(join(home, ".config", "toolwright", "mcp.json"));
    expect(loadMcpConfig({ projectDir: join(tmp.dir, "none"), globalDir: join(tmp.dir, "none") }).mcpServers).toEqual({});
  });
});

describe("variables", () => {
  it("expands ${VAR} and ${VAR:-default} in args, env values, url and headers", () => {
    const text = JSON.stringify({
      mcpServers: {
        s: { command: "c", args: ["--root=${ROOT}", "${MODE:-fast}"], env: { TOKEN: "${TOKEN}", LEVEL: "${LEVEL:-info}" } },
        h: { url: "http://${HOST:-127.0.0.1}:${PORT}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
      },
    });
    const config = parseMcpConfig(text, { env: { ROOT: "/r", TOKEN: "t0k", PORT: "8080" } });
    const s = config.mcpServers.s;
    const h = config.mcpServers.h;
    expect(s?.transport === "stdio" && s.args).toEqual(["--root=/r", "fast"]);
    expect(s?.transport === "stdio" && s.env).toEqual({ TOKEN: "t0k", LEVEL: "info" });
    expect(h?.transport === "http" && h.url).toBe("http://127.0.0.1:8080/mcp");
    expect(h?.transport === "http" && h.headers).toEqual({ Authorization: "Bearer t0k" });
    expect(expandVariables("${A:-}x", {}, () => "never")).toBe("x");
  });

  it("an unset variable without default names the variable, the server and the file", () => {
    write(projectFile(), { mcpServers: { github: { url: "https://example.test/mcp", headers: { Authorization: "Bearer ${GH_TOKEN}" } } } });
    const error = loadError(() => loadMcpConfig({ projectDir, globalDir, env: {} }));
    expect(error.variable).toBe("GH_TOKEN");
    expect(error.file).toBe(projectFile());
    expect(error.pointer).toBe("/mcpServers/github/headers/Authorization");
    expect(error.message).toContain("GH_TOKEN");
    expect(error.message).toContain('"github"');
    expect(error.message).toContain(projectFile());
  });

  it("onMissing replaces the error", () => {
    write(projectFile(), { mcpServers: { s: { command: "c", args: ["${NOPE}"] } } });
    const seen: string[] = [];
    const config = loadMcpConfig({
      projectDir,
      globalDir,
      env: {},
      onMissing: (v, where) => {
        seen.push(`${v}@${where.server}${where.pointer}`);
        return "fallback";
      },
    });
    expect(seen).toEqual(["NOPE@s/mcpServers/s/args/0"]);
    const s = config.mcpServers.s;
    expect(s?.transport === "stdio" && s.args).toEqual(["fallback"]);
  });
});

describe("bad files", () => {
  const cases: [string, unknown, string, RegExp][] = [
    ["unknown type", { mcpServers: { s: { type: "websocket", url: "http://x" } } }, "/mcpServers/s/type", /unknown type "websocket"/],
    ["both command and url", { mcpServers: { s: { command: "c", url: "http://x" } } }, "/mcpServers/s", /both command and url/],
    ["neither command nor url", { mcpServers: { s: { args: [] } } }, "/mcpServers/s", /either command/],
    ["args not strings", { mcpServers: { s: { command: "c", args: ["ok", 3] } } }, "/mcpServers/s/args/1", /string/],
    [
      "bad lifecycle",
      { mcpServers: { s: { command: "c", lifecycle: { idleTimeoutMs: -1 } } } },
      "/mcpServers/s/lifecycle/idleTimeoutMs",
      /positive/,
    ],
    ["bad era", { mcpServers: { s: { command: "c", era: "2099" } } }, "/mcpServers/s/era", /one of/],
    ["escaped name", { mcpServers: { "a/b": { command: "c", enabled: "yes" } } }, "/mcpServers/a~1b/enabled", /boolean/],
    ["mcpServers not an object", { mcpServers: [] }, "/mcpServers", /object/],
  ];
  it.each(cases)("%s → path and JSON pointer", (_label, value, pointer, message) => {
    write(projectFile(), value);
    const error = loadError(() => loadMcpConfig({ projectDir, globalDir }));
    expect(error.file).toBe(projectFile());
    expect(error.pointer).toBe(pointer);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(projectFile());
  });

  it("invalid JSON gives the file and a line and column", () => {
    // A trailing comma is accepted (Claude, Cursor and VS Code accept it); a missing value is not.
    write(projectFile(), '{\n  "mcpServers": {\n    "s": { "command": }\n  }\n}');
    const error = loadError(() => loadMcpConfig({ projectDir, globalDir }));
    expect(error.message).toContain(projectFile());
    expect(error.message).toMatch(/invalid JSON at line 3, column \d+/);
    expect(error.pointer).toBe("");
  });

  it("unknown fields are warnings, not errors", () => {
    write(projectFile(), { mcpServers: { s: { command: "c", alwaysAllow: ["x"] } } });
    const config = loadMcpConfig({ projectDir, globalDir });
    expect(config.warnings?.[0]).toContain("/mcpServers/s/alwaysAllow");
  });
});

describe("the shipped JSON Schema", () => {
  const Ajv2020 = require("ajv/dist/2020").default;
  const schemaPath = join(__dirname, "../../packages/runtime/mcp-config.schema.json");
  const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
  const validate = new Ajv2020({ strict: false }).compile(schema);
  const samples: unknown[] = [
    { mcpServers: { a: { command: "node", args: ["s.js"], env: { K: "${K}" }, lifecycle: { idleTimeoutMs: 1000 }, autoApprove: ["x"] } } },
    {
      mcpServers: { b: { type: "http", url: "http://127.0.0.1:3000/mcp", headers: { A: "b" }, era: "2026-07-28" } },
      collisionPolicy: "prefix",
    },
    { mcpServers: { c: { type: "websocket", url: "http://x" } } },
    { mcpServers: { d: { command: "c", url: "http://x" } } },
    { mcpServers: { e: { args: [] } } },
    { mcpServers: { f: { command: "c", lifecycle: "forever" } } },
    { mcpServers: { g: { type: "stdio", url: "http://x" } } },
    { mcpServers: { h: { command: "c", requestTimeoutMs: 0 } } },
    {
      mcpServers: {
        i: { url: "https://mcp.example", outbound: { allowedHosts: ["mcp.example", "*.cdn.example:443"], allowLoopback: false } },
      },
    },
    { mcpServers: { j: { url: "https://mcp.example", outbound: { allowPrivateNetworks: "yes" } } } },
    { mcpServers: { k: { url: "https://mcp.example", outbound: { allowedHosts: "mcp.example" } } } },
    { mcpServers: { l: { url: "https://mcp.example", outbound: { allowAll: true } } } },
    { mcpServers: { m: { command: "c", limits: { concurrency: 2, workerConcurrency: 1, rateLimit: { calls: 10, periodMs: 1000 } } } } },
    { mcpServers: { n: { command: "c", limits: { concurrency: 0 } } } },
    { mcpServers: { o: { command: "c", limits: { rateLimit: { calls: 10 } } } } },
    { mcpServers: { p: { command: "c", limits: "fast" } } },
  ];
  it.each(samples.map((s, i) => [i, s]))("sample %i: schema and loader agree", (_i, sample) => {
    const schemaOk = validate(sample) as boolean;
    const loaderOk = validateConfigFile(sample).length === 0;
    expect(schemaOk).toBe(loaderOk);
  });
  it("is exported by the package", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "../../packages/runtime/package.json"), "utf8"));
    expect(pkg.exports["./mcp-config.schema.json"]).toBe("./mcp-config.schema.json");
    expect(pkg.files).toContain("mcp-config.schema.json");
  });
});

describe("discoverServers", () => {
  it("lists configured servers without failing on unset variables", () => {
    write(projectFile(), {
      mcpServers: { z: { command: "c", env: { T: "${UNSET_FOR_DISCOVERY}" } }, a: { url: "http://127.0.0.1:1/mcp", enabled: false } },
    });
    const found = discoverServers(projectDir, { globalDir, env: {} });
    expect(found.map((s) => [s.name, s.transport, s.enabled])).toEqual([
      ["a", "http", false],
      ["z", "stdio", true],
    ]);
    expect(found[1]?.missingVariables).toEqual(["UNSET_FOR_DISCOVERY"]);
    expect(found[1]?.source).toBe(projectFile());
  });
});

describe("writeServerEntry", () => {
  it("keeps tab indentation, key order and a missing trailing newline, and refuses to rewrite broken JSON", async () => {
    const { writeServerEntry, detectIndent } = await import("../../packages/runtime/src/manager.js");
    const file = projectFile();
    write(file, '{\n\t"mcpServers": {\n\t\t"b": { "command": "b" },\n\t\t"a": { "command": "a" }\n\t},\n\t"collisionPolicy": "prefix"\n}');
    writeServerEntry(file, "c", { command: "c", args: ["x"] });
    const text = readFileSync(file, "utf8");
    expect(detectIndent(text)).toBe("\t");
    expect(text.endsWith("}")).toBe(true);
    expect(Object.keys(JSON.parse(text).mcpServers)).toEqual(["b", "a", "c"]);
    expect(JSON.parse(text).collisionPolicy).toBe("prefix");
    write(file, "{ broken");
    expect(() => writeServerEntry(file, "d", { command: "d" })).toThrow(McpConfigError);
    expect(readFileSync(file, "utf8")).toBe("{ broken");
  });
});
