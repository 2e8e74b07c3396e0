/**
 * `toolwright init` through the CLI's `main`: the starter design from each mcp.json dialect
 * (project, Cursor, VS Code with comments, `servers` and `${env:X}`, Claude Desktop), the design
 * it writes loads and resolves, and bad input (no file, bad JSON, no servers, an existing design)
 * gives one line, exit 2, and leaves every file as it was.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExternalServerDecl } from "@toolwright/dsl";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { main } from "../cli.js";
import { loadDesign } from "../load/load-design.js";
import { resolveConnection } from "../resolve/connection.js";
import { runInit } from "./init.js";

const repo = fileURLToPath(new URL("../../../..", import.meta.url));
let dir = "";

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

function put(path: string, text: string): void {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
}

const read = (path: string) => readFileSync(join(dir, path), "utf8");

beforeEach(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "init-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("toolwright init", () => {
  it("writes one externalServer and toolset per server of .toolwright/mcp.json, and the design resolves", async () => {
    put(
      ".toolwright/mcp.json",
      JSON.stringify({ mcpServers: { "my-memory": { command: "node", args: ["m.js"] }, design: { url: "http://127.0.0.1:9/mcp" } } }),
    );
    const r = await cli("init");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = read("design.ts");
    expect(text).toContain('import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";');
    expect(text).toContain('export const myMemory = externalServer("my-memory", mcpJson());');
    // A server named like a DSL import gets an identifier that does not shadow it.
    expect(text).toContain('export const designServer = externalServer("design", mcpJson());');
    expect(text).toContain('toolset("design", fromMCP(designServer)),');
    const loaded = await loadDesign("design.ts", dir);
    expect(loaded.design.servers.map((s) => s.name)).toEqual(["my-memory", "design"]);
    expect(loaded.design.toolsets.map((t) => t.name)).toEqual(["my-memory", "design"]);
  });

  it("reads VS Code's file: comments, trailing commas, the servers key and ${env:X} references", async () => {
    put(
      ".vscode/mcp.json",
      `// VS Code MCP servers
{
  "inputs": [],
  "servers": {
    /* the search server */
    "search": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${env:SEARCH_TOKEN}" } },
  },
}
`,
    );
    const r = await cli("init", "--from", "vscode");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(read("design.ts")).toContain('export const search = externalServer("search", mcpJson(".vscode/mcp.json"));');
    // Codegen reads the same file: the VS Code reference becomes a ${VAR} kept for run time.
    const loaded = await loadDesign("design.ts", dir);
    const server = loaded.design.servers[0] as ExternalServerDecl;
    const made = resolveConnection(server, { file: "design.ts", designPath: loaded.path, cwd: dir });
    expect(made.configFile).toBe(join(dir, ".vscode", "mcp.json"));
    expect(made.connection).toMatchObject({ transport: "http", headers: { Authorization: "Bearer ${SEARCH_TOKEN}" } });
  });

  it("finds Cursor's file when the project has no .toolwright/mcp.json", async () => {
    put(".cursor/mcp.json", JSON.stringify({ mcpServers: { fetch: { command: "uvx", args: ["mcp-server-fetch"] } } }));
    const r = await cli("init", "--design", "src/design.ts");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("from .cursor/mcp.json");
    expect(read("src/design.ts")).toContain('externalServer("fetch", mcpJson("../.cursor/mcp.json"))');
  });

  it("reads Claude Desktop's config by its platform path", async () => {
    const home = mkdtempSync(join(tmpdir(), "tw-home-"));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    const config = join(home, ".config", "Claude", "claude_desktop_config.json");
    mkdirSync(join(config, ".."), { recursive: true });
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] } } }),
    );
    const s = await runInit({ cwd: dir, from: "claude", env: { HOME: home } });
    expect(s.servers).toEqual(["memory"]);
    // Outside the project, the design names the application, found per platform when loaded: no one's home path.
    expect(read("design.ts")).toContain('mcpJson({ app: "claude-desktop" })');
    expect(read("design.ts")).not.toContain(home);
  });

  it("never overwrites an existing design without --force; --force replaces it", async () => {
    put(".toolwright/mcp.json", JSON.stringify({ mcpServers: { memory: { command: "node" } } }));
    put("design.ts", "// my own design\n");
    const r = await cli("init");
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: design.ts: already exists; pass --force to overwrite it");
    expect(read("design.ts")).toBe("// my own design\n");
    const forced = await cli("init", "--force", "--json");
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ ok: true, command: "init", replaced: true, servers: ["memory"] });
    expect(read("design.ts")).toContain('externalServer("memory", mcpJson())');
  });

  it.each([
    [
      "no mcp.json anywhere",
      undefined,
      undefined,
      /^error: mcp\.json: none found \(looked for \.toolwright\/mcp\.json, \.cursor\/mcp\.json, .*\); pass --from <file>$/,
    ],
    ["a missing --from file", undefined, "nope.json", /^error: nope\.json: file not found$/],
    ["invalid JSON", '{ "mcpServers": {', undefined, /^error: \.toolwright\/mcp\.json: invalid JSON at line 1/],
    [
      "a bad entry",
      JSON.stringify({ mcpServers: { memory: { command: 3 } } }),
      undefined,
      /^error: \.toolwright\/mcp\.json: \/mcpServers\/memory\/command must be a non-empty string$/,
    ],
    ["no servers", JSON.stringify({ mcpServers: {} }), undefined, /^error: \.toolwright\/mcp\.json: lists no servers/],
  ])("%s: one line, exit 2, nothing written", async (_name, config, from, message) => {
    if (config !== undefined) put(".toolwright/mcp.json", config);
    const r = await cli("init", ...(from === undefined ? [] : ["--from", from]));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(() => read("design.ts")).toThrow(/ENOENT/);
  });
});
