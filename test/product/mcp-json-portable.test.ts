/**
 * A design written by `init` from a config outside the project holds no one's home path: Claude
 * Desktop's config is named by application (`mcpJson({ app: "claude-desktop" })`) and found per
 * platform when the design is loaded; another file under the home directory is written `~/...`.
 * Through the built bin: init under one HOME, then pull and gen under another HOME find that
 * person's file. The per-platform places are checked with the platform and environment injected.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeDesktopConfig, mcpJsonPath, portableMcpJson } from "../../packages/codegen/src/mcp-json/read-mcp-json.js";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const memoryBin = join(repo, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
const config = JSON.stringify({ mcpServers: { memory: { command: process.execPath, args: [memoryBin] } } }, null, 2);

let root = "";
let project = "";

/** A fresh home holding Claude Desktop's config where this platform keeps it. */
function homeWithClaudeConfig(name: string): string {
  const home = join(root, name);
  const file = claudeDesktopConfig({ HOME: home, USERPROFILE: home, APPDATA: join(home, "AppData", "Roaming") });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, config);
  return home;
}

/** The environment of a person whose home is `home` (nothing inherited points elsewhere). */
const personEnv = (home: string) => ({ HOME: home, USERPROFILE: home, APPDATA: join(home, "AppData", "Roaming"), XDG_CONFIG_HOME: "" });

beforeAll(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  root = mkdtempSync(join(repo, ".tmp", "mcp-json-portable-"));
  project = join(root, "project");
  mkdirSync(project);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("a design names configs outside the project portably", () => {
  it("init from Claude Desktop's config writes no home path; pull and gen under another HOME find that person's file", async () => {
    const ann = homeWithClaudeConfig("ann");
    const init = await runToolwright(["init", "--from", "claude"], { cwd: project, env: personEnv(ann) });
    expect(init.status).toBe(0);
    const design = readFileSync(join(project, "design.ts"), "utf8");
    expect(design).toContain('externalServer("memory", mcpJson({ app: "claude-desktop" }))');
    expect(design).not.toContain(ann);
    expect(design).not.toContain("claude_desktop_config.json");

    // Ann's machine is gone: only Bob's home has the file.
    rmSync(ann, { recursive: true, force: true });
    const bob = homeWithClaudeConfig("bob");
    const pull = await runToolwright(["pull", "design.ts"], { cwd: project, env: personEnv(bob) });
    expect(pull.output).toMatch(/memory 9/);
    expect(pull.status).toBe(0);
    const gen = await runToolwright(["gen", "design.ts", "--out", "src/gen"], { cwd: project, env: personEnv(bob) });
    expect(gen.status).toBe(0);
    expect(existsSync(join(project, "src", "gen", "memory", "caller.gen.ts"))).toBe(true);

    // Carol's machine has no Claude Desktop config (nor Bob's home): the error names where it was looked for on hers.
    rmSync(bob, { recursive: true, force: true });
    const carol = join(root, "carol");
    const missing = await runToolwright(["gen", "design.ts", "--out", "src/gen"], { cwd: project, env: personEnv(carol) });
    expect(missing.status).not.toBe(0);
    expect(missing.output).toContain('mcpJson({ app: "claude-desktop" })');
    expect(missing.output).toContain("carol/.config/Claude/claude_desktop_config.json: file not found");
  }, 240_000);

  it("init from a file under the home directory writes it as ~/...", async () => {
    const dave = join(root, "dave");
    const file = join(dave, ".cursor", "mcp.json");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, config);
    const init = await runToolwright(["init", "--from", file, "--design", "cursor-design.ts"], { cwd: project, env: personEnv(dave) });
    expect(init.status).toBe(0);
    const design = readFileSync(join(project, "cursor-design.ts"), "utf8");
    expect(design).toContain('mcpJson("~/.cursor/mcp.json")');
    expect(design).not.toContain(dave);
  }, 120_000);

  it("Claude Desktop's config is found per platform from the loading machine's environment", () => {
    const cases: [NodeJS.Platform, { [key: string]: string }, string][] = [
      ["darwin", { HOME: "/Users/ann" }, "/Users/ann/Library/Application Support/Claude/claude_desktop_config.json"],
      ["linux", { HOME: "/home/ann" }, "/home/ann/.config/Claude/claude_desktop_config.json"],
      ["linux", { HOME: "/home/ann", XDG_CONFIG_HOME: "/xdg" }, "/xdg/Claude/claude_desktop_config.json"],
      ["win32", { USERPROFILE: "C:\\Users\\ann", APPDATA: "D:\\Roaming" }, "D:\\Roaming\\Claude\\claude_desktop_config.json"],
      ["win32", { USERPROFILE: "C:\\Users\\ann" }, "C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json"],
    ];
    for (const [platform, env, path] of cases) {
      expect(claudeDesktopConfig(env, platform)).toBe(path);
      expect(mcpJsonPath({ kind: "mcp-json", app: "claude-desktop" }, "/design", env, platform)).toBe(path);
    }
    expect(mcpJsonPath({ kind: "mcp-json", file: "~/.cursor/mcp.json" }, "/design", { HOME: "/home/bob" }, "linux")).toBe(
      "/home/bob/.cursor/mcp.json",
    );
    expect(portableMcpJson("/home/ann/.config/Claude/claude_desktop_config.json", { HOME: "/home/ann" }, "linux")).toEqual({
      app: "claude-desktop",
    });
    expect(portableMcpJson("/home/ann/work/mcp.json", { HOME: "/home/ann" }, "linux")).toEqual({ path: "~/work/mcp.json" });
    expect(portableMcpJson("/etc/mcp.json", { HOME: "/home/ann" }, "linux")).toBeUndefined();
  });
});
