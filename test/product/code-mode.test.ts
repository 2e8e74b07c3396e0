/**
 * Code mode as users get it, from one install of the packed tarballs into an empty project outside
 * the repository (one install, not three: each costs a minute of CI on a loaded machine):
 * - the sandbox: a plain Node script runs programs against an in-memory tool, with a per-call
 *   confirmation hook and a hostile program (the wasm comes with its package, no install script);
 * - a provider binding: the code-mode plug-in bound for OpenAI Chat Completions runs a `run_code`
 *   call, and `mode: "auto"` keeps a one-tool catalogue direct;
 * - the generated API and type check (issue 27, items 1 and 2): the installed `toolwright gen`
 *   prints `code-mode.gen.ts` from the real servers' locks (examples/catalogues), and the user's
 *   script checks a model's programs with the installed `@toolwright/code-mode` (its TypeScript 6
 *   dependency resolved by npm, not the repository's).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_FLAGS, type PackedPackage, packWorkspaces, REPO, run } from "./support.js";

const rootPkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { devDependencies: { [name: string]: string } };

let dir = "";
let app = "";
let packed: readonly PackedPackage[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tw-code-mode-product-"));
  const tarballs = join(dir, "tarballs");
  app = join(dir, "app");
  for (const d of [tarballs, app]) mkdirSync(d, { recursive: true });
  packed = await packWorkspaces(tarballs);
  const tgz = (name: string) => join(tarballs, packed.find((p) => p.name === name)?.filename ?? `${name}-missing.tgz`);
  cpSync(join(REPO, "examples", "catalogues", "design.lock.json"), join(app, "design.lock.json"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "code-mode-app", private: true, type: "module" }));
  writeFileSync(join(app, "design.ts"), DESIGN);
  const installed = await run(
    "npm",
    [
      "install",
      ...["@toolwright/dsl", "@toolwright/runtime", "@toolwright/codegen", "@toolwright/code-mode"].map(tgz),
      `tsx@${rootPkg.devDependencies.tsx}`,
      ...NPM_FLAGS,
      // No install script runs: the sandbox's wasm must work as npm unpacks it.
      "--ignore-scripts",
    ],
    app,
    600_000,
  );
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const SANDBOX_SCRIPT = `
import { createCodeMode } from "@toolwright/code-mode";
import { createInMemoryCaller, createRuntime } from "@toolwright/runtime";

const notes = [];
const caller = createInMemoryCaller("notes", {
  add: (args) => { notes.push(args.text); return { content: [{ type: "text", text: "added " + args.text }] }; },
  wipe: () => { notes.length = 0; return { content: [{ type: "text", text: "wiped" }] }; },
});
const spec = (name, annotations) => ({
  id: "notes." + name, toolset: "notes", name, providerName: "notes_" + name,
  inputSchema: { type: "object" }, annotations,
  decodePayload: (v) => typeof v === "object" && v !== null ? { ok: true, value: v } : { ok: false, issues: [{ field: "", constraint: "invalid_field_type" }] },
});
const asked = [];
const runtime = createRuntime({ confirm: (s, payload) => { asked.push(s.id); return false; } });
runtime.registerToolset({ toolset: "notes", caller, specs: [spec("add", {}), spec("wipe", { destructive: true })] });
const mode = createCodeMode({ runtime });
const ok = await mode.run(\`
  await notes.add({ text: "one" });
  try { await notes.wipe({}); } catch (e) { console.log(e.reason); }
  return [typeof process, typeof require, typeof fetch];\`);
const loop = await mode.run("while (true) {}", { limits: { wallTimeMs: 200 } });
await caller.close();
console.log(JSON.stringify({ ok, loop: loop.ok ? null : loop.failure.kind, notes, asked }));
`;

const WIRE_SCRIPT = `
import { createCodeModeTools } from "@toolwright/code-mode";
import { createInMemoryCaller, createRuntime } from "@toolwright/runtime";
import { createProviderTools } from "@toolwright/runtime/providers";

const stored = [];
const caller = createInMemoryCaller("notes", {
  add: (args) => { stored.push(args.text); return { content: [{ type: "text", text: "added " + args.text }] }; },
});
const runtime = createRuntime();
runtime.registerToolset({ toolset: "notes", caller, specs: [{
  id: "notes.add", toolset: "notes", name: "add", providerName: "notes_add", description: "Add a note.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  decodePayload: (v) => typeof v?.text === "string" ? { ok: true, value: v } : { ok: false, issues: [{ field: "text", constraint: "missing_field" }] },
}] });
const plugin = createCodeModeTools();
const code = createProviderTools(runtime, { format: "openai-chat", codeMode: { plugin, mode: "code" } });
const names = code.definitions().map((d) => d.function.name);
const program = 'for (const t of ["a", "b", "c"]) await notes.add({ text: t });\\nreturn "3 notes";';
const response = { choices: [{ message: { role: "assistant", content: null, tool_calls: [
  { id: "c1", type: "function", function: { name: "run_code", arguments: JSON.stringify({ code: program }) } },
] } }] };
const { messages } = await code.run(response);
const auto = createProviderTools(runtime, { format: "openai-chat", codeMode: { plugin } });
await caller.close();
console.log(JSON.stringify({ names, messages, stored, auto: auto.codeMode().code, autoNames: auto.definitions().map((d) => d.function.name) }));
`;

const DESIGN = `import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";
const filesystem = externalServer("filesystem", { command: "node", args: ["server-filesystem.js", "."] });
const memory = externalServer("memory", { command: "node", args: ["server-memory.js"] });
export default design({ toolsets: [toolset("filesystem", fromMCP(filesystem)), toolset("memory", fromMCP(memory))] });
`;

const CHECK_SCRIPT = `import { createTypeChecker } from "@toolwright/code-mode";
import { filesystemCodeMode } from "./gen/filesystem/code-mode.gen.js";
import { memoryCodeMode } from "./gen/memory/code-mode.gen.js";

const checker = createTypeChecker([filesystemCodeMode, memoryCodeMode]);
const good = checker.check('const g = await memory.readGraph();\\nconst names: string[] = g.entities.map((e) => e.name);\\nreturn names;');
const bad = checker.check('const g = await memory.readGraph();\\nawait filesystem.readTextFile({ path: g.nodes });');
console.log(JSON.stringify({ good, bad, index: memoryCodeMode.index.length, tokens: memoryCodeMode.tokens }));
checker.dispose();
`;

describe("code mode from the packed tarballs", () => {
  it("ships the wasm sandbox with no install script, and runs programs through the runtime", async () => {
    const codeMode = packed.find((p) => p.name === "@toolwright/code-mode");
    expect(codeMode?.files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "README.md", "LICENSE", "CHANGELOG.md"]));
    expect(codeMode?.files.some((f) => f.endsWith(".test.js"))).toBe(false);
    writeFileSync(join(app, "sandbox.mjs"), SANDBOX_SCRIPT);
    const r = await run(process.execPath, ["sandbox.mjs"], app);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(out).toEqual({
      ok: {
        ok: true,
        value: ["undefined", "undefined", "undefined"],
        console: [{ level: "log", text: "confirmation_denied" }],
        calls: [
          { tool: "notes.add", ok: true },
          { tool: "notes.wipe", ok: false, kind: "canceled", reason: "confirmation_denied" },
        ],
      },
      loop: "timeout",
      notes: ["one"],
      asked: ["notes.wipe"],
    });
  });
});

describe("code mode through a provider binding, from the packed tarballs", () => {
  it("offers run_code/search/describe, runs the program through the runtime, and keeps a one-tool catalogue direct in auto mode", async () => {
    writeFileSync(join(app, "wire.mjs"), WIRE_SCRIPT);
    const r = await run(process.execPath, ["wire.mjs"], app);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(out).toEqual({
      names: ["run_code", "search", "describe", "read_result"],
      messages: [{ role: "tool", tool_call_id: "c1", content: '"3 notes"' }],
      stored: ["a", "b", "c"],
      auto: false,
      autoNames: ["notes_add"],
    });
  });
});

describe("installed code mode", { timeout: 600_000 }, () => {
  it("gen prints code-mode.gen.ts, and the user's script checks programs against it", async () => {
    const gen = await run("npx", ["--no-install", "toolwright", "gen", "design.ts", "--out", "src/gen"], app, 300_000);
    expect(gen.code, gen.stderr).toBe(0);
    expect(readFileSync(join(app, "src", "gen", "memory", "code-mode.gen.ts"), "utf8")).toMatch(
      /^export const memoryCodeMode: CodeModeApiData = \{$/m,
    );
    writeFileSync(join(app, "src", "check.ts"), CHECK_SCRIPT);
    const r = await run("npx", ["--no-install", "tsx", "src/check.ts"], app, 300_000);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      good: { ok: boolean; js?: string };
      bad: {
        ok: boolean;
        failure?: { kind: string; recovery: { action: string }; diagnostics: { line: number; column: number; code: number }[] };
      };
      index: number;
      tokens: number;
    };
    expect(out.good.ok).toBe(true);
    expect(out.good.js).toContain("return names;");
    expect(out.good.js).not.toContain(": string[]");
    expect(out.bad.ok).toBe(false);
    expect(out.bad.failure).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call" } });
    expect(out.bad.failure!.diagnostics).toEqual([expect.objectContaining({ line: 2, column: 41, code: 2339 })]);
    expect(out.index).toBe(9);
    expect(out.tokens).toBeGreaterThan(500);
  });
});
