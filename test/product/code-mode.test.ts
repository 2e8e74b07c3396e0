/**
 * Code mode as users get it: the packed `@toolwright/runtime` and `@toolwright/code-mode` tarballs
 * installed into an empty project outside the repository (the sandbox's wasm comes from the npm
 * registry with its package, no install script), then a plain Node script that runs programs in the
 * sandbox against an in-memory tool, with a per-call confirmation hook and a hostile program.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_FLAGS, type PackedPackage, packWorkspaces, run } from "./support.js";

let dir = "";
let app = "";
let packed: readonly PackedPackage[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tw-code-mode-product-"));
  const tarballs = join(dir, "tarballs");
  app = join(dir, "app");
  for (const d of [tarballs, app]) await run("mkdir", ["-p", d], dir);
  packed = await packWorkspaces(tarballs);
  const tgz = (name: string) => join(tarballs, packed.find((p) => p.name === name)?.filename ?? `${name}-missing.tgz`);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const installed = await run(
    "npm",
    ["install", ...NPM_FLAGS, "--ignore-scripts", tgz("@toolwright/runtime"), tgz("@toolwright/code-mode")],
    app,
    600_000,
  );
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const SCRIPT = `
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

describe("code mode from the packed tarballs", () => {
  it("ships the wasm sandbox with no install script, and runs programs through the runtime", async () => {
    const codeMode = packed.find((p) => p.name === "@toolwright/code-mode");
    expect(codeMode?.files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "README.md", "LICENSE", "CHANGELOG.md"]));
    expect(codeMode?.files.some((f) => f.endsWith(".test.js"))).toBe(false);
    writeFileSync(join(app, "main.mjs"), SCRIPT);
    const r = await run(process.execPath, ["main.mjs"], app);
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
