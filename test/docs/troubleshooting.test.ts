/**
 * docs/troubleshooting.md quotes the first errors people hit. Each one is produced here for real
 * (the built `toolwright` bin in a scratch folder, and the built runtime against the real memory
 * server) and compared with the page: the quoted text must appear in what was printed, where `…`
 * stands for a part that depends on the machine (a home folder). A renamed message fails here.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, run } from "../product/support.js";
import { blocksOf, readPage } from "./extract.js";

const PAGE = "docs/troubleshooting.md";
const DIR = join(REPO, ".tmp", "docs-troubleshooting");
const BIN = join(REPO, "packages", "codegen", "dist", "bin.js");
const MEMORY = join(REPO, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");

/** A fresh folder under DIR with `files` written into it. */
function folder(name: string, files: { readonly [path: string]: string } = {}): string {
  const dir = join(DIR, name);
  mkdirSync(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

/** Runs the built bin; returns what it printed on both streams. */
async function toolwright(cwd: string, ...args: string[]): Promise<string> {
  const r = await run(process.execPath, [BIN, ...args], cwd, 120_000);
  return `${r.stdout}${r.stderr}`;
}

const mcpJson = (args: readonly string[]) => JSON.stringify({ mcpServers: { memory: { command: "node", args: [MEMORY, ...args] } } });

/** What each numbered section's scenario printed. */
const printed = new Map<number, string>();

beforeAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
  printed.set(1, await toolwright(folder("empty"), "init"));
  printed.set(2, await toolwright(folder("no-out"), "gen", "design.ts"));
  const project = folder("project", { ".mcp.json": mcpJson([]) });
  await toolwright(project, "init");
  printed.set(3, await toolwright(project, "gen", "design.ts", "--out", "src/gen"));
  printed.set(
    4,
    await toolwright(
      folder("unknown-server", {
        ".mcp.json": mcpJson([]),
        "design.ts": `import { design, externalServer, fromMCP, mcpJson, toolset } from "@toolwright/dsl";\nexport default design({ toolsets: [toolset("files", fromMCP(externalServer("files", mcpJson(".mcp.json"))))] });\n`,
      }),
      "pull",
      "design.ts",
    ),
  );
  printed.set(
    5,
    await toolwright(
      folder("no-binary", {
        "design.ts": `import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";\nexport default design({ toolsets: [toolset("x", fromMCP(externalServer("x", { command: "no-such-server-binary" })))] });\n`,
      }),
      "pull",
      "design.ts",
    ),
  );
  printed.set(6, await toolwright(folder("no-design", { "design.ts": "export const x = 1;\n" }), "gen", "design.ts", "--out", "src/gen"));
  printed.set(7, await toolwright(project, "init"));
  // 8: generate for real, then edit the mcp.json entry the caller was made from.
  const pull = await toolwright(project, "pull", "design.ts");
  if (!/wrote design\.lock\.json/.test(pull)) throw new Error(`pull failed: ${pull}`);
  await toolwright(project, "gen", "design.ts", "--out", "src/gen");
  writeFileSync(join(project, ".mcp.json"), mcpJson(["--verbose"]));
  printed.set(8, await toolwright(project, "gen", "design.ts", "--out", "src/gen", "--check"));
  // 9 and 10: the generated client over the real memory server, with the built runtime.
  writeFileSync(
    join(project, "calls.ts"),
    [
      'import { renderFailure } from "@toolwright/runtime";',
      'import { createStdioCaller } from "@toolwright/runtime/stdio";',
      'import { createMemoryClient } from "./src/gen/memory/index.js";',
      `const caller = createStdioCaller({ name: "memory", command: "node", args: [${JSON.stringify(MEMORY)}], connectTimeoutMs: 60_000 });`,
      "const memory = createMemoryClient(caller);",
      "const bad = await memory.searchNodes({ query: 42 } as never);",
      'console.log(bad.ok ? "ok" : renderFailure(bad.failure));',
      "await caller.close();",
      "try { await memory.readGraph({}); } catch (e) { console.log(`${(e as Error).name}: ${(e as Error).message}`); }",
    ].join("\n"),
  );
  const calls = await run(process.execPath, [join(REPO, "node_modules", "tsx", "dist", "cli.mjs"), "calls.ts"], project, 180_000);
  printed.set(9, `${calls.stdout}${calls.stderr}`);
  printed.set(10, `${calls.stdout}${calls.stderr}`);
}, 900_000);

/** The numbered sections of the page and the message each quotes. */
function quoted(): { readonly n: number; readonly title: string; readonly message: string }[] {
  const text = readPage(PAGE);
  return text
    .split(/^## /m)
    .slice(1)
    .flatMap((section) => {
      const head = /^(\d+)\. (.*)$/m.exec(section);
      const block = blocksOf(section).find((b) => b.lang === "text");
      return head && block ? [{ n: Number(head[1]), title: head[2] ?? "", message: block.code.trim() }] : [];
    });
}

describe("the troubleshooting page's messages", () => {
  it("quotes ten numbered errors", () => {
    expect(quoted().map((q) => q.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it.each(quoted().map((q) => [q.n, q.title, q.message] as const))(
    "%i. %s: the message is what Toolwright prints",
    (n, _title, message) => {
      const out = printed.get(n) ?? "";
      let at = 0;
      for (const part of message.split("…")) {
        const found = out.indexOf(part, at);
        expect(found, `section ${n}: "${part}" not in what was printed:\n${out}`).toBeGreaterThanOrEqual(0);
        at = found + part.length;
      }
    },
  );
});
