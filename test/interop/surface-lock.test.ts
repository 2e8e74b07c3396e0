/**
 * The pulled surface of a real server, end to end through the CLI: `toolwright pull` records
 * server-everything's prompts, resources and resource templates in the lock exactly as the server
 * lists them; then the lock is edited by hand (the scripted fault) and `pull --check` names each
 * changed item with its server, `gen --check` finds the generated code stale, and lock content
 * that is not a usable surface is refused naming the file, server and field. A lock without the
 * new sections (written before they existed) still generates.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING } from "../support/everything-server.js";
import { runMainInProcess } from "../support/toolwright-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = join(root, ".tmp", `surface-lock-${process.pid}`);
const design = join(dir, "design.ts");
const lockPath = join(dir, "design.lock.json");
const out = join(dir, "gen");

type Lock = { servers: { everything: { [list: string]: { [field: string]: unknown }[] } } };
const readLockJson = () => JSON.parse(readFileSync(lockPath, "utf8")) as Lock;
let pulled = "";

const cli = (...args: string[]) => runMainInProcess(args, root);

beforeAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    design,
    [
      'import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";',
      `const everything = externalServer("everything", { command: "node", args: [${JSON.stringify(EVERYTHING)}, "stdio"] });`,
      'export default design({ toolsets: [toolset("everything", fromMCP(everything))] });',
      "",
    ].join("\n"),
  );
  const pull = await cli("pull", design);
  expect(pull.code, pull.stderr).toBe(0);
  pulled = readFileSync(lockPath, "utf8");
  const gen = await cli("gen", design, "--out", out, "--no-cache");
  expect(gen.code, gen.stderr).toBe(0);
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the lock records the live prompts, resources and templates", () => {
  it("exactly as the server lists them, sorted by name, URI and URI template", async () => {
    const lock = readLockJson().servers.everything;
    const caller = createStdioCaller({ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], capabilities: {} });
    try {
      const sortBy = (key: string) => (a: { [k: string]: unknown }, b: { [k: string]: unknown }) =>
        String(a[key]) < String(b[key]) ? -1 : 1;
      const prompts = await caller.listPrompts();
      const resources = await caller.listResources();
      const templates = await caller.listResourceTemplates();
      if (!prompts.ok || !resources.ok || !templates.ok) throw new Error("listing failed");
      expect(lock.prompts).toEqual([...prompts.value].sort(sortBy("name")));
      expect(lock.resources).toEqual([...resources.value].sort(sortBy("uri")));
      expect(lock.resourceTemplates).toEqual([...templates.value].sort(sortBy("uriTemplate")));
      expect(lock.prompts?.length).toBe(4);
      expect(lock.resources?.length).toBe(7);
      expect(lock.resourceTemplates?.length).toBe(2);
    } finally {
      await caller.close();
    }
    // The generated client has a typed method for each.
    const client = readFileSync(join(out, "everything", "client.gen.ts"), "utf8");
    for (const m of [
      "getArgsPromptPrompt(args: ArgsPromptPromptArgs",
      "readArchitectureMd(",
      "readDynamicTextResource(params: DynamicTextResourceParams",
    ])
      expect(client).toContain(m);
  });

  it("an edited lock: pull --check names server and item for each change; gen --check finds the code stale", async () => {
    expect((await cli("pull", design, "--check")).code).toBe(0);
    const lock = readLockJson();
    const e = lock.servers.everything;
    const args = e.prompts?.find((p) => p.name === "args-prompt") as { arguments: { name: string; required?: boolean }[] };
    args.arguments = args.arguments.map((a) => (a.name === "state" ? { ...a, required: true } : a));
    e.resources = e.resources?.filter((r) => r.uri !== "demo://resource/static/document/startup.md");
    const text = e.resourceTemplates?.find((t) => t.uriTemplate === "demo://resource/dynamic/text/{resourceId}") as { uriTemplate: string };
    text.uriTemplate = "demo://resource/dynamic/text/{id}";
    const simple = e.prompts?.find((p) => p.name === "simple-prompt") as { description: string };
    simple.description = "Says something else";
    writeFileSync(lockPath, JSON.stringify(lock, null, 2));

    const check = await cli("pull", design, "--check");
    expect(check.code).toBe(1);
    const lines = check.stderr.split("\n").filter((l) => l.startsWith("drift: "));
    expect(lines).toEqual([
      'drift: server "everything": prompt "args-prompt" changed since the pull (arguments[1].required: "true" -> "false"); run toolwright pull',
      'drift: server "everything": prompt "simple-prompt" changed since the pull (description: "Says something else" -> "A prompt with no arguments"); run toolwright pull',
      'drift: server "everything": resource "demo://resource/static/document/startup.md" is live but not in the lock (added since the pull)',
      'drift: server "everything": resource template "demo://resource/dynamic/text/{id}" is in the lock but the server no longer lists it (removed)',
      'drift: server "everything": resource template "demo://resource/dynamic/text/{resourceId}" is live but not in the lock (added since the pull)',
    ]);
    const stale = await cli("gen", design, "--out", out, "--check", "--no-cache");
    expect(stale.code).toBe(1);
    expect(stale.stderr + stale.stdout).toMatch(/everything\/client\.gen\.ts/);
    expect(stale.stderr + stale.stdout).toMatch(/everything\/specs\.gen\.ts/);
    writeFileSync(lockPath, pulled);
    expect((await cli("gen", design, "--out", out, "--check", "--no-cache")).code).toBe(0);
  });

  it("bad surface content in the lock is refused naming file, server and field; nothing is written", async () => {
    const cases: [(e: Lock["servers"]["everything"]) => void, RegExp][] = [
      [
        (e) => ((e.prompts as { name: unknown }[])[0]!.name = 5),
        /design\.lock\.json server "everything": prompts\[0\]\.name must be a non-empty string/,
      ],
      [
        (e) => ((e.prompts as { arguments: unknown }[])[0]!.arguments = [{ name: "city", required: "yes" }]),
        /prompts\[0\]\.arguments\[0\]\.required must be a boolean/,
      ],
      [
        (e) => ((e.resources as { uri: unknown }[])[1]!.uri = "not a uri"),
        /server "everything": resources\[1\]\.uri must be an absolute URI/,
      ],
      [(e) => ((e as { resources: unknown }).resources = { uri: "x://y" }), /server "everything" field "resources": must be array/],
      [
        (e) => ((e.resourceTemplates as { uriTemplate: unknown }[])[0]!.uriTemplate = "demo://{a b}"),
        /resourceTemplates\[0\]\.uriTemplate: .*bad variable/,
      ],
      [(e) => e.prompts?.push({ ...e.prompts[0] }), /prompts\[4\]: name "args-prompt" is listed twice/],
    ];
    for (const [edit, message] of cases) {
      const lock = JSON.parse(pulled) as Lock;
      edit(lock.servers.everything);
      writeFileSync(lockPath, JSON.stringify(lock));
      const before = readFileSync(join(out, "everything", "client.gen.ts"), "utf8");
      const r = await cli("gen", design, "--out", out, "--no-cache");
      expect(r.code, String(message)).toBe(2);
      expect(r.stderr, String(message)).toMatch(message);
      expect(readFileSync(join(out, "everything", "client.gen.ts"), "utf8")).toBe(before);
    }
    writeFileSync(lockPath, pulled);
  });

  it("a lock written before the surface was recorded still generates: no readers, no surface drift", async () => {
    const lock = JSON.parse(pulled) as Lock;
    for (const list of ["prompts", "resources", "resourceTemplates"]) delete lock.servers.everything[list];
    writeFileSync(lockPath, JSON.stringify(lock));
    const old = join(dir, "gen-old");
    const r = await cli("gen", design, "--out", old, "--no-cache");
    expect(r.code, r.stderr).toBe(0);
    const client = readFileSync(join(old, "everything", "client.gen.ts"), "utf8");
    expect(client).not.toMatch(/getPromptVia|readResourceVia/);
    expect(readFileSync(join(old, "everything", "specs.gen.ts"), "utf8")).not.toContain("surface:");
    // pull --check against it reports the new sections as a stale lock, but no item drift (nothing was pinned).
    const check = await cli("pull", design, "--check");
    expect(check.code).toBe(1);
    expect(check.stderr).not.toMatch(/drift: /);
    writeFileSync(lockPath, pulled);
  });
});
