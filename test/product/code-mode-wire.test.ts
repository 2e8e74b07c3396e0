/**
 * Code mode wired into a provider binding as users get it: the packed `@toolwright/runtime` and
 * `@toolwright/code-mode` tarballs installed into an empty project outside the repository, then a
 * plain Node script that binds an in-memory toolset for OpenAI Chat Completions with the code-mode
 * plug-in, runs a model response calling `run_code`, and checks what `mode: "auto"` chooses.
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
  dir = mkdtempSync(join(tmpdir(), "tw-code-mode-wire-"));
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

describe("code mode through a provider binding, from the packed tarballs", () => {
  it("offers run_code/search/describe, runs the program through the runtime, and keeps a one-tool catalogue direct in auto mode", async () => {
    writeFileSync(join(app, "main.mjs"), SCRIPT);
    const r = await run(process.execPath, ["main.mjs"], app);
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
