/**
 * Security of `toolwright gen`: hostile toolset and tool names never write outside `--out` (not
 * through `..`, absolute paths or a symlink) and always give identifiers that compile under strict
 * tsc; hostile schemas (1,000-deep nesting, `$ref` cycles, a 100,000-value enum, a network `$ref`)
 * finish in bounded time and memory with a clear error or a type, and nothing is ever fetched.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCRIPTED_STDIO_SERVER as scriptedServerPath } from "../support/scripted-stdio-server.js";
import { type CliRun, runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(repo, "node_modules", ".bin", "tsc");
// Inside the repo (and git-ignored) so generated code resolves @toolwright/* like a user's project.
const root = join(repo, ".tmp", `security-codegen-${process.pid}`);
const absoluteName = join(tmpdir(), `tw-abs-escape-${process.pid}`);

/** Runs `toolwright gen` in a child with a memory cap; async so in-process servers keep answering. */
function gen(design: string, out: string, env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return run(["gen", design, "--out", out], env);
}

/** Runs the `toolwright` CLI in a child with a memory cap. */
function run(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runToolwright(argv, { cwd: root, env, nodeArgs: ["--max-old-space-size=768"], killAfterMs: 150_000 });
}

function typecheck(dir: string): { status: number | null; output: string } {
  writeFileSync(
    join(root, `tsconfig.${dir}.json`),
    JSON.stringify({ extends: "../../test/typecheck/tsconfig.strict.json", include: [`${dir}/**/*.ts`] }),
  );
  const run = spawnSync(tsc, ["--noEmit", "-p", `tsconfig.${dir}.json`], { cwd: root, encoding: "utf8", timeout: 150_000 });
  return { status: run.status, output: run.stdout + run.stderr };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

beforeAll(() => {
  // The CLI runs from dist and generated code type-checks against the packages' .d.ts.
  const build = spawnSync(tsc, ["-b", "packages/dsl", "packages/runtime", "packages/codegen"], { cwd: repo, encoding: "utf8" });
  expect(build.status, build.stdout + build.stderr).toBe(0);
  mkdirSync(root, { recursive: true });
}, 180_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(absoluteName, { recursive: true, force: true });
});

const HOSTILE = ["../x", absoluteName, "__proto__", "constructor", "x".repeat(200), "工具", "🔥tools", "..", "C:\\evil", "a/b"];

describe("hostile names", () => {
  it("never write outside --out and always compile under strict tsc", async () => {
    const tools = [...HOSTILE, "prototype", "toString", "delete", "🧪lab"];
    writeFileSync(
      join(root, "names.design.ts"),
      `import { design, fromExternalMCP, object, string, toolset } from "@toolwright/dsl";
const toolNames: string[] = ${JSON.stringify(tools)};
export default design({
  toolsets: ${JSON.stringify(HOSTILE)}.map((name, i) =>
    toolset(name, fromExternalMCP("server" + i), (t) => {
      for (const tool of toolNames) t.tool(tool, { input: object({ q: string() }) });
    }),
  ),
});
`,
    );
    const run = await gen("names.design.ts", "names-out");
    expect(run.output).toMatch(/10 toolsets, 140 tools/);
    expect(run.status).toBe(0);
    const outside = filesUnder(root).filter((f) => !f.startsWith("names-out/") && !/\.(design\.ts|json)$/.test(f));
    expect(outside).toEqual([]);
    expect(existsSync(absoluteName)).toBe(false);
    expect(existsSync(join(root, "..", "x"))).toBe(false);
    const check = typecheck("names-out");
    expect(check.output).toBe("");
    expect(check.status).toBe(0);
  }, 300_000);

  it("a pulled catalogue with hostile tool names and schemas: gen stays inside --out and compiles", async () => {
    const hostileTools = [
      ...["../../escape", absoluteName, "__proto__", "constructor", "toString", "x".repeat(200), "工具", "🔥fire", "C:\\evil", "a/b"].map(
        (name) => ({ name, description: "*/ evil(); /*", inputSchema: { type: "object", properties: { q: { type: "string" } } } }),
      ),
      {
        name: "deep-out",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { __proto__x: { type: "string" }, "a-b": { type: "number" } } },
      },
    ];
    const list = JSON.stringify(hostileTools);
    writeFileSync(
      join(root, "pulled.design.ts"),
      `import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";
const server = externalServer("hostile", { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(scriptedServerPath)}], env: [${JSON.stringify(`SCRIPTED_LIST=${list}`)}] });
export default design({ toolsets: [toolset("hostile", fromMCP(server))] });
`,
    );
    const pulled = await run(["pull", "pulled.design.ts"]);
    expect(pulled.output).not.toMatch(/error/i);
    expect(pulled.status).toBe(0);
    const run2 = await gen("pulled.design.ts", "pulled-out");
    expect(run2.status).toBe(0);
    expect(run2.output).toMatch(/11 tools/);
    const outside = filesUnder(root).filter(
      (f) => f.startsWith("pulled") && !f.startsWith("pulled-out/") && !/^pulled\.design\.(ts|lock\.json)$/.test(f),
    );
    expect(outside).toEqual([]);
    expect(existsSync(absoluteName)).toBe(false);
    expect(existsSync(join(root, "..", "escape"))).toBe(false);
    const check = typecheck("pulled-out");
    expect(check.output).toBe("");
    expect(check.status).toBe(0);
  }, 300_000);

  it("names that collide after sanitizing are a clear design error, and nothing is written", async () => {
    writeFileSync(
      join(root, "collide.design.ts"),
      `import { design, fromExternalMCP, object, toolset } from "@toolwright/dsl";
export default design({ toolsets: [toolset("c", fromExternalMCP("c"), (t) => { t.tool("🧪", { input: object({}) }); t.tool("..", { input: object({}) }); })] });
`,
    );
    const run = await gen("collide.design.ts", "collide-out");
    expect(run.status).toBe(2);
    expect(run.output).toMatch(/tool "\.\."|tool "🧪"/);
    expect(run.output).toMatch(/collides/);
    expect(existsSync(join(root, "collide-out"))).toBe(false);
  }, 300_000);

  it("refuses to follow a symlink inside --out to a folder outside it", async () => {
    mkdirSync(join(root, "outside"), { recursive: true });
    mkdirSync(join(root, "linked-out"), { recursive: true });
    symlinkSync("../outside", join(root, "linked-out", "linked"));
    writeFileSync(
      join(root, "linked.design.ts"),
      `import { design, fromExternalMCP, object, string, toolset } from "@toolwright/dsl";
export default design({ toolsets: [toolset("linked", fromExternalMCP("l"), (t) => { t.tool("t", { input: object({ q: string() }) }); })] });
`,
    );
    const run = await gen("linked.design.ts", "linked-out");
    expect(run.status).toBe(2);
    expect(run.output).toMatch(/symlink/);
    expect(readdirSync(join(root, "outside"))).toEqual([]);
  }, 300_000);
});

describe("hostile schemas", () => {
  const design = (tool: string, schema: string) => `import { design, fromExternalMCP, raw, toolset } from "@toolwright/dsl";
const port = process.env.REF_PORT ?? "1";
void port;
export default design({ toolsets: [toolset("hostile", fromExternalMCP("h"), (t) => { t.tool(${JSON.stringify(tool)}, { input: raw(${schema}) }); })] });
`;

  it("1,000 levels of nesting: a clear design error naming the tool", async () => {
    const deep = `(() => { let s: object = { type: "string" }; for (let i = 0; i < 1000; i++) s = { type: "object", properties: { a: s } }; return s as never; })()`;
    writeFileSync(join(root, "deep.design.ts"), design("deep", deep));
    const run = await gen("deep.design.ts", "deep-out");
    expect(run.signal).toBeNull();
    expect(run.status).toBe(2);
    expect(run.output).toMatch(/tool "deep".*nested deeper than/);
    expect(existsSync(join(root, "deep-out"))).toBe(false);
  }, 300_000);

  it("a network $ref is a clear error and is never fetched", async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end('{"type":"string"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      writeFileSync(
        join(root, "netref.design.ts"),
        design("netref", `{ type: "object", properties: { r: { $ref: "http://127.0.0.1:${port}/schema.json" } } }`),
      );
      const run = await gen("netref.design.ts", "netref-out", { REF_PORT: String(port) });
      expect(run.status).toBe(2);
      expect(run.output).toMatch(/tool "netref".*points outside the schema/);
      expect(hits).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 300_000);

  it("$ref cycles and a 100,000-value enum: generated in bounded memory, and the output compiles", async () => {
    writeFileSync(
      join(root, "shapes.design.ts"),
      `import { design, fromExternalMCP, raw, toolset } from "@toolwright/dsl";
export default design({ toolsets: [toolset("shapes", fromExternalMCP("s"), (t) => {
  t.tool("cycle", { input: raw({ type: "object", properties: { n: { $ref: "#/$defs/node" } }, $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } } }) });
  t.tool("selfref", { input: raw({ type: "object", properties: { me: { $ref: "#" } } }) });
  t.tool("mutual", { input: raw({ type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } }, b: { type: "object", properties: { a: { $ref: "#/$defs/a" } } } } }) });
  t.tool("bigenum", { input: raw({ type: "object", properties: { e: { type: "string", enum: Array.from({ length: 100000 }, (_, i) => "v" + i) } } }) });
})] });
`,
    );
    const run = await gen("shapes.design.ts", "shapes-out");
    expect(run.signal).toBeNull();
    expect(run.output).toMatch(/1 toolset, 4 tools/);
    expect(run.status).toBe(0);
    const check = typecheck("shapes-out");
    expect(check.output).toBe("");
    expect(check.status).toBe(0);
  }, 300_000);
});
