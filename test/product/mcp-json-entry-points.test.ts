/**
 * One reader for mcp.json everywhere: the same `.toolwright/mcp.json` texts — a BOM, comments,
 * trailing commas, CRLF line breaks, VS Code's `servers` key, and malformed variants — are fed to
 * `init`, `pull`, `gen` and `approve` through the built bin and to the manager in-process. Every
 * entry point accepts the same texts (pull and approve reach the real server-memory), and refuses
 * the others with the same file, line and column, never printing an invisible character raw.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager, loadMcpConfig } from "../../packages/runtime/src/manager.js";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const memoryBin = join(repo, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
const RAW_INVISIBLE = /[\p{Cc}\p{Cf}\u00a0]/u;

let dir = "";
let globalDir = "";

const entry = () => `{ "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(memoryBin)}] }`;
/** The entry on its own line, so a comment after it stays on that line. */
const plain = () => `{\n  "mcpServers": {\n    "memory": ${entry()}\n  }\n}\n`;

/** name -> text; `where` is what every refusal must name (line and column, or the JSON pointer). */
const ACCEPTED: [string, () => string][] = [
  ["a UTF-8 BOM", () => `\uFEFF${plain()}`],
  [
    "comments and trailing commas",
    () =>
      `// servers for this project\n{\n  /* the knowledge graph */\n  "mcpServers": {\n    "memory": ${entry().replace(/]/, ",]").replace(/ }$/, ", }")}, // stdio\n  },\n}\n`,
  ],
  [
    "all of them with CRLF line breaks and VS Code's servers key",
    () => `\uFEFF{\r\n  // VS Code\r\n  "servers": {\r\n    "memory": ${entry()}, /* stdio */\r\n  },\r\n}\r\n`,
  ],
];
const REFUSED: [string, string, () => string][] = [
  ["a BOM inside the text", "line 2, column 3", () => `{\n  \uFEFF"mcpServers": {}\n}\n`],
  ["a zero-width space", "line 3, column 1", () => `{\r\n  "mcpServers": {\r\n\u200B    "memory": ${entry()}\r\n  }\r\n}\r\n`],
  ["an unterminated comment", "line 3, column 3", () => `{\n  "mcpServers": {}\n  /* left open\n}\n`],
  ["a missing value", "line 4, column 3", () => `{\n  "mcpServers": {\n    "memory": \n  }\n}\n`],
  ["a wrongly typed field", "/mcpServers/memory/args", () => `{ "mcpServers": { "memory": { "command": "node", "args": "x" } } }`],
];

const DESIGN = `import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";
const memory = externalServer("memory", mcpJson());
export default design({ toolsets: [toolset("memory", fromMCP(memory))] });
`;

beforeAll(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "mcp-json-entry-"));
  globalDir = mkdtempSync(join(repo, ".tmp", "mcp-json-entry-global-"));
  mkdirSync(join(dir, ".toolwright"));
  writeFileSync(join(dir, "design.ts"), DESIGN);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(globalDir, { recursive: true, force: true });
});

/** How each entry point ended on the current file: exit status and what it printed. */
async function everyEntryPoint(): Promise<{ [entry: string]: { ok: boolean; output: string } }> {
  // The global mcp.json comes from XDG_CONFIG_HOME: an empty folder, so only the project file counts.
  const env = { XDG_CONFIG_HOME: globalDir };
  const cli = async (...argv: string[]) => {
    const run = await runToolwright(argv, { cwd: dir, env, killAfterMs: 90_000 });
    expect(run.killed).toBe(false);
    return { ok: run.status === 0, output: run.output };
  };
  const out: { [entry: string]: { ok: boolean; output: string } } = {};
  out.init = await cli("init", "--design", "init-design.ts", "--force");
  out.pull = await cli("pull", "design.ts");
  out.gen = await cli("gen", "design.ts", "--out", "src/gen");
  out.approve = await cli("approve");
  try {
    const config = loadMcpConfig({ projectDir: dir, globalDir: join(globalDir, "toolwright") });
    const manager = createMcpManager(config);
    try {
      const statuses = await manager.start();
      const tools = manager.tools().map((t) => t.id);
      out.manager = { ok: statuses.every((s) => s.state !== "failed") && tools.includes("memory.read_graph"), output: tools.join(",") };
    } finally {
      await manager.stop();
    }
  } catch (error) {
    out.manager = { ok: false, output: String(error) };
  }
  return out;
}

describe("every entry point reads mcp.json the same way", () => {
  it.each(ACCEPTED)(
    "accepts %s: init, pull, gen, approve and the manager",
    async (_name, text) => {
      writeFileSync(join(dir, ".toolwright", "mcp.json"), text());
      const got = await everyEntryPoint();
      for (const [entry, r] of Object.entries(got))
        expect({ entry, ok: r.ok, output: r.ok ? "" : r.output }).toEqual({ entry, ok: true, output: "" });
      expect(got.pull?.output).toMatch(/memory 9/);
      expect(got.approve?.output).toMatch(/9 tools recorded/);
    },
    300_000,
  );

  it.each(REFUSED)(
    "refuses %s everywhere, naming the file and %s",
    async (_name, where, text) => {
      writeFileSync(join(dir, ".toolwright", "mcp.json"), text());
      const got = await everyEntryPoint();
      for (const [entry, r] of Object.entries(got)) {
        expect({ entry, ok: r.ok }).toEqual({ entry, ok: false });
        expect(r.output, entry).toContain("mcp.json");
        expect(r.output, entry).toContain(where);
        // Line breaks separate the lines printed; nothing else invisible may appear.
        expect(r.output.replace(/\n/g, " "), entry).not.toMatch(RAW_INVISIBLE);
      }
    },
    300_000,
  );
});
