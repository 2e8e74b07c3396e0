/**
 * `toolwright add` through the CLI's `main` on designs full of comments and odd formatting: the
 * output minus the expected inserted snippets equals the original byte for byte, the edited design
 * loads, and bad input (unknown server, unparsable design, no design(), a server already declared)
 * gives one line, exit 2, and leaves the file exactly as it was.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../cli.js";
import { loadDesign } from "../load/load-design.js";

const repo = fileURLToPath(new URL("../../../..", import.meta.url));
let dir = "";

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

const put = (path: string, text: string) => {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
};
const read = (path: string) => readFileSync(join(dir, path), "utf8");

/** Removes each snippet (exactly once) from `text`; what is left must be the original file. */
function withoutInserted(text: string, snippets: readonly string[]): string {
  let out = text;
  for (const s of snippets) {
    const at = out.indexOf(s);
    expect(at, `inserted snippet not found: ${JSON.stringify(s)}`).toBeGreaterThanOrEqual(0);
    expect(out.indexOf(s, at + 1), `snippet inserted twice: ${JSON.stringify(s)}`).toBe(-1);
    out = out.slice(0, at) + out.slice(at + s.length);
  }
  return out;
}

const MESSY = `// My design -- hand formatted, please keep it.
import {design,   fromExternalMCP, object , string,
  toolset} from '@toolwright/dsl'   // the DSL

/* a block
   comment */
const notes = toolset('notes', fromExternalMCP('notes'), (t) => {
    t.tool('add', { input: object({ text: string() }) })   // four-space indent here
})

export default design({
    // the toolsets
    toolsets: [
        notes,   // first
    ],
})
// trailing comment
`;

beforeEach(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "add-"));
  put(
    ".toolwright/mcp.json",
    JSON.stringify({ mcpServers: { memory: { command: "node", args: ["memory.js"] }, "web-search": { url: "http://127.0.0.1:9/mcp" } } }),
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("toolwright add", () => {
  it("inserts only the new declarations into a hand-formatted design (quotes, no semicolons, comments kept)", async () => {
    put("design.ts", MESSY);
    const r = await cli("add", "memory");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('toolwright add: server "memory" from .toolwright/mcp.json added to design.ts; next: toolwright pull design.ts');
    const out = read("design.ts");
    const inserted = [
      ", externalServer, fromMCP, mcpJson",
      "\n\nconst memory = externalServer('memory', mcpJson())",
      "\n        toolset('memory', fromMCP(memory)),",
    ];
    expect(withoutInserted(out, inserted)).toBe(MESSY);
    const loaded = await loadDesign("design.ts", dir);
    expect(loaded.design.toolsets.map((t) => t.name)).toEqual(["notes", "memory"]);
    expect(loaded.design.servers.map((s) => s.name)).toEqual(["memory"]);
  });

  it("follows the file's style: CRLF, aliases, semicolons, exported servers, a one-line toolsets array", async () => {
    const original = [
      'import { design as d, externalServer as server, fromMCP, mcpJson, toolset as ts } from "@toolwright/dsl";',
      "",
      "/** Memory. */",
      'export const memory = server("memory", mcpJson()); // the first server',
      "",
      'export default d({ toolsets: [ts("memory", fromMCP(memory))] });',
      "",
    ].join("\r\n");
    put("design.ts", original);
    const r = await cli("add", "web-search");
    expect(r.stderr).toBe("");
    const out = read("design.ts");
    const inserted = ['\r\n\r\nexport const webSearch = server("web-search", mcpJson());', ', ts("web-search", fromMCP(webSearch))'];
    expect(withoutInserted(out, inserted)).toBe(original);
    expect(out.replace(/\r\n/g, "")).not.toContain("\n");
    const loaded = await loadDesign("design.ts", dir);
    expect(loaded.design.toolsets.map((t) => t.name)).toEqual(["memory", "web-search"]);
  });

  it("extends a one-per-line import list with a trailing comma in its own layout", async () => {
    const original = 'import {\n  design,\n  toolset, // builders\n} from "@toolwright/dsl";\n\nexport default design({ toolsets: [] });\n';
    put("design.ts", original);
    expect((await cli("add", "memory")).code).toBe(0);
    const inserted = [
      "\n  externalServer,\n  fromMCP,\n  mcpJson,",
      '\n\nconst memory = externalServer("memory", mcpJson());',
      'toolset("memory", fromMCP(memory))',
    ];
    expect(withoutInserted(read("design.ts"), inserted)).toBe(original);
    expect((await loadDesign("design.ts", dir)).design.toolsets.map((t) => t.name)).toEqual(["memory"]);
  });

  it("uses a namespace import's names and adds no import", async () => {
    const original = 'import * as tw from "@toolwright/dsl";\n\nexport default tw.design({ toolsets: [] });\n';
    put("design.ts", original);
    expect((await cli("add", "memory")).code).toBe(0);
    const inserted = ['\n\nconst memory = tw.externalServer("memory", tw.mcpJson());', 'tw.toolset("memory", tw.fromMCP(memory))'];
    expect(withoutInserted(read("design.ts"), inserted)).toBe(original);
    expect((await loadDesign("design.ts", dir)).design.toolsets.map((t) => t.name)).toEqual(["memory"]);
  });

  it("adds the toolsets property when the design has none", async () => {
    const original = 'import { design } from "@toolwright/dsl";\n\nexport default design({\n  agents: [],\n});\n';
    put("design.ts", original);
    expect((await cli("add", "memory")).code).toBe(0);
    const inserted = [
      ", externalServer, fromMCP, mcpJson, toolset",
      '\n\nconst memory = externalServer("memory", mcpJson());',
      '\n  toolsets: [toolset("memory", fromMCP(memory))],',
    ];
    expect(withoutInserted(read("design.ts"), inserted)).toBe(original);
    expect((await loadDesign("design.ts", dir)).design.toolsets.map((t) => t.name)).toEqual(["memory"]);
  });

  it("--force replaces only the existing externalServer(...) call", async () => {
    put("other.json", JSON.stringify({ mcpServers: { memory: { command: "node", args: ["other.js"] } } }));
    const original =
      'import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";\n// keep\nconst memory = externalServer("memory", { command: "node" }); // inline\nexport default design({ toolsets: [toolset("memory", fromMCP(memory))] });\n';
    put("design.ts", original);
    const refused = await cli("add", "memory");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('error: design.ts:3: already declares server "memory"; pass --force to replace its declaration');
    expect(read("design.ts")).toBe(original);
    const forced = await cli("add", "memory", "--from", "other.json", "--force");
    expect(forced.stderr).toBe("");
    expect(read("design.ts")).toBe(
      original.replace('externalServer("memory", { command: "node" })', 'externalServer("memory", mcpJson("other.json"))'),
    );
  });

  it("--inline writes the locked catalogue as t.tool(...) builder code that overrides the pulled tools", async () => {
    put("design.ts", MESSY);
    const tool = {
      name: "search_nodes",
      title: "Search nodes",
      description: "Search the graph",
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: "object",
        properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1 } },
        required: ["query"],
      },
    };
    put("design.lock.json", JSON.stringify({ version: 1, servers: { memory: { tools: [tool] } } }));
    const r = await cli("add", "memory", "--inline", "--json");
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, command: "add", inline: true, tools: 1, catalogue: "lock" });
    const out = read("design.ts");
    expect(out).toContain(`const memoryToolset = toolset('memory', fromMCP(memory), (t) => {
  t.tool("search_nodes", {
    title: "Search nodes",
    description: "Search the graph",
    input: object({
      query: string({ minLength: 1 }),
      limit: integer({ minimum: 1 }).optional(),
    }, { closed: false }),
    annotations: { readOnly: true },
  });
})`);
    const loaded = await loadDesign("design.ts", dir);
    expect(loaded.design.toolsets.map((t) => t.name)).toEqual(["notes", "memory"]);
    expect(loaded.design.servers.map((s) => s.name)).toEqual(["memory"]);
    expect(loaded.design.toolsets[1]?.tools.map((t) => t.name)).toEqual(["search_nodes"]);
  });

  it("--inline --force replaces an inlined fromExternalMCP toolset in place and drops the import only it used", async () => {
    const original = [
      'import { design, externalServer, fromExternalMCP, mcpJson, object, string, toolset } from "@toolwright/dsl";',
      "",
      'const memory = externalServer("memory", mcpJson());',
      "",
      "// the memory tools",
      'const memoryToolset = toolset("memory", fromExternalMCP("memory"), (t) => {',
      '  t.tool("old_tool", { input: object({ text: string() }) });',
      "});",
      "",
      "export default design({ toolsets: [memoryToolset], servers: [memory] });",
      "",
    ].join("\n");
    put("design.ts", original);
    const tool = { name: "search_nodes", inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } };
    put("design.lock.json", JSON.stringify({ version: 1, servers: { memory: { tools: [tool] } } }));
    const r = await cli("add", "memory", "--inline", "--force");
    expect(r.stderr).toBe("");
    const out = read("design.ts");
    expect(out).toContain('import { design, externalServer, mcpJson, object, string, toolset, fromMCP } from "@toolwright/dsl";');
    expect(out).toContain(
      '// the memory tools\nconst memoryToolset = toolset("memory", fromMCP(memory), (t) => {\n  t.tool("search_nodes", {',
    );
    expect(out).not.toContain("fromExternalMCP");
    expect(out).not.toContain("old_tool");
    expect(out).toContain("export default design({ toolsets: [memoryToolset], servers: [memory] });");
    const loaded = await loadDesign("design.ts", dir);
    expect(loaded.design.toolsets.map((t) => [t.name, t.provider.kind, t.tools.map((x) => x.name)])).toEqual([
      ["memory", "mcp", ["search_nodes"]],
    ]);
  });

  it.each([
    [
      "an unknown server",
      "design.ts",
      MESSY,
      ["add", "nope"],
      /^error: mcp\.json: no server "nope" in \.toolwright\/mcp\.json, .*; pass --from <file>$/,
    ],
    [
      "a server missing from --from",
      "design.ts",
      MESSY,
      ["add", "nope", "--from", "project"],
      /^error: \.toolwright\/mcp\.json: no server "nope" \(has: memory, web-search\)$/,
    ],
    [
      "a missing design",
      "other.ts",
      MESSY,
      ["add", "memory"],
      /^error: design\.ts: file not found \(write a starter design with toolwright init\)$/,
    ],
    [
      "an unparsable design",
      "design.ts",
      "import { design } from '@toolwright/dsl'\nexport default design({ toolsets: [\n",
      ["add", "memory"],
      /^error: design\.ts:3:1: cannot parse the design: .+/,
    ],
    [
      "a design without design({...})",
      "design.ts",
      "export default 42;\n",
      ["add", "memory"],
      /^error: design\.ts: cannot find `export default design\(\{ toolsets: \[\.\.\.\] \}\)`/,
    ],
  ])("%s: one line, exit 2, the file untouched", async (_name, file, text, argv, message) => {
    put(file, text);
    const r = await cli(...argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(read(file)).toBe(text);
  });
});
