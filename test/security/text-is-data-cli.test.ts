/**
 * Text is data, through the built CLI (issue 25, item 1): an `mcp.json` whose server name closes
 * the JSDoc comment `init` writes and carries code that would create a marker file. `init`, `pull`
 * (a real stdio server in a child), `gen`, loading the generated modules and type-checking them
 * never run it, and the name comes back as data. A name with a line separator or a newline is
 * refused by `init` and `add` alike, naming the mcp.json and the server, and nothing is written.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCRIPTED_STDIO_SERVER } from "../support/scripted-stdio-server.js";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repo (git-ignored) so generated code resolves @toolwright/* like a user's project.
const root = join(repo, ".tmp", `text-is-data-cli-${process.pid}`);
const marker = join(root, "PWNED");
const env = { TW_MARKER: marker };

/** Closes init's JSDoc, then exports code that writes `$TW_MARKER` (no dots: the mcp.json reader refuses them in names). */
const HOSTILE =
  "a */ export const b = process[`getBuiltinModule`](`node:fs`)[`writeFileSync`](process[`env`][`TW_MARKER`], `injected`) /* ";

const toolwright = (dir: string, ...argv: string[]) => runToolwright(argv, { cwd: dir, env, killAfterMs: 150_000 });

function project(name: string, servers: Record<string, unknown>): string {
  const dir = join(root, name);
  mkdirSync(join(dir, ".toolwright"), { recursive: true });
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));
  return dir;
}

const scripted = { command: process.execPath, args: [SCRIPTED_STDIO_SERVER] };

beforeAll(() => {
  const build = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", "packages/dsl", "packages/runtime", "packages/codegen"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(build.status, build.stdout + build.stderr).toBe(0);
  mkdirSync(root, { recursive: true });
}, 180_000);

afterAll(() => {
  delete process.env.TW_MARKER;
  rmSync(root, { recursive: true, force: true });
});

describe("a server name that closes a comment", () => {
  it("init, pull, gen, importing and type-checking the generated code never run it", async () => {
    const dir = project("comment", { [HOSTILE]: scripted });
    const init = await toolwright(dir, "init");
    expect(init.output).toMatch(/toolwright init: wrote design\.ts with 1 server/);
    expect(init.status).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(dir, "design.ts"), "utf8")).toContain(`externalServer(${JSON.stringify(HOSTILE)}, mcpJson())`);

    const pull = await toolwright(dir, "pull", "design.ts");
    expect(pull.status, pull.output).toBe(0);
    expect(existsSync(marker)).toBe(false);

    const gen = await toolwright(dir, "gen", "design.ts", "--out", "gen");
    expect(gen.status, gen.output).toBe(0);
    expect(existsSync(marker)).toBe(false);

    // The generated modules load, and hold the name as a value.
    const [folder] = readdirSync(join(dir, "gen"));
    process.env.TW_MARKER = marker;
    const mod = (await import(pathToFileURL(join(dir, "gen", folder!, "index.ts")).href)) as Record<string, unknown>;
    const nameExport = Object.keys(mod).find((k) => k.endsWith("ToolsetName"));
    expect(mod[nameExport!]).toBe(HOSTILE);
    expect(existsSync(marker)).toBe(false);

    writeFileSync(
      join(root, "tsconfig.comment.json"),
      JSON.stringify({ extends: "../../test/typecheck/tsconfig.strict.json", include: ["comment/gen/**/*.ts"] }),
    );
    const check = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "tsconfig.comment.json"], {
      cwd: root,
      encoding: "utf8",
      timeout: 150_000,
    });
    expect(check.stdout + check.stderr).toBe("");
    expect(check.status).toBe(0);
    expect(existsSync(marker)).toBe(false);
  }, 600_000);

  it("add writes it as data too", async () => {
    const dir = project("add", { memory: scripted, [HOSTILE]: scripted });
    writeFileSync(
      join(dir, "design.ts"),
      `import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";\n\nexport const memory = externalServer("memory", mcpJson());\n\nexport default design({ toolsets: [toolset("memory", fromMCP(memory))] });\n`,
    );
    const add = await toolwright(dir, "add", HOSTILE);
    expect(add.status, add.output).toBe(0);
    const pull = await toolwright(dir, "pull", "design.ts");
    expect(pull.status, pull.output).toBe(0);
    expect(existsSync(marker)).toBe(false);
  }, 300_000);
});

describe("a server name with a line break", () => {
  it.each([
    ["U+2028", "evil\u2028name", "contains line separator U+2028"],
    ["a newline", "evil\nname", "contains control character U+000A"],
    ["a carriage return", "evil\rname", "contains control character U+000D"],
  ])(
    "%s: init and add refuse it with the same line, and write nothing",
    async (_label, name, problem) => {
      const line = `.toolwright/mcp.json server ${JSON.stringify(name)}: the server name ${problem}; rename it there (a design cannot declare it)`;
      const dir = project(`lines-${name.charCodeAt(4)}`, { memory: scripted, [name]: scripted });
      const init = await toolwright(dir, "init");
      expect(init.status).toBe(2);
      expect(init.output).toContain(line);
      expect(existsSync(join(dir, "design.ts"))).toBe(false);

      const design = `import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";\n\nexport const memory = externalServer("memory", mcpJson());\n\nexport default design({ toolsets: [toolset("memory", fromMCP(memory))] });\n`;
      writeFileSync(join(dir, "design.ts"), design);
      const add = await toolwright(dir, "add", name);
      expect(add.status).toBe(2);
      expect(add.output).toContain(line);
      expect(readFileSync(join(dir, "design.ts"), "utf8")).toBe(design);
    },
    300_000,
  );
});
