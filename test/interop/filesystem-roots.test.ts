/**
 * Interop: the real server-filesystem over stdio. Its sandbox comes from argv unless the client
 * declares roots, which then replace the argv directories; out-of-root paths are tool errors.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CallResponse } from "@toolwright/runtime/caller";
import { failureFromToolError } from "@toolwright/runtime/caller";
import { createClientFeatures } from "@toolwright/runtime/client-features";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const filesystem = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist/index.js");

let base = "";
let dirA = "";
let dirB = "";
let dirC = "";
const open: StdioCaller[] = [];

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "tw-fs-")));
  dirA = join(base, "a");
  dirB = join(base, "b");
  dirC = join(base, "c");
  for (const [dir, file] of [
    [dirA, "a.txt"],
    [dirB, "b.txt"],
    [dirC, "c.txt"],
  ] as const) {
    mkdirSync(dir);
    writeFileSync(join(dir, file), `hello from ${file}\n`);
  }
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  rmSync(base, { recursive: true, force: true });
});

function start(options: Partial<Parameters<typeof createStdioCaller>[0]> = {}): StdioCaller {
  const caller = createStdioCaller({ command: process.execPath, args: [filesystem, dirA], name: "filesystem", ...options });
  open.push(caller);
  return caller;
}
function result(response: CallResponse) {
  if (!response.ok) throw new Error(`call failed: ${response.failure.kind} ${response.failure.message}`);
  return response.value;
}
const text = (r: { content: readonly { type: string; text?: string }[] }) => r.content.map((b) => b.text ?? "").join("");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function allowed(caller: StdioCaller): Promise<string> {
  return text(result(await caller.callTool({ name: "list_allowed_directories", arguments: {} })));
}
/** Polls until the server's allowed directories mention `dir` (bounded by attempts, not by time). */
async function waitAllowed(caller: StdioCaller, dir: string): Promise<string> {
  let last = "";
  for (let i = 0; i < 100; i++) {
    last = await allowed(caller);
    if (last.includes(dir)) return last;
    await sleep(20);
  }
  return last;
}

describe("server-filesystem over stdio", () => {
  it("without roots, argv directories are the sandbox; an out-of-root path is an isError result with no structuredContent", async () => {
    const caller = start();
    const listed = await caller.listTools();
    if (!listed.ok) throw new Error(listed.failure.message);
    expect(listed.value).toHaveLength(14);
    expect(listed.value.every((t) => t.outputSchema !== undefined)).toBe(true);
    expect(await allowed(caller)).toContain(dirA);

    const inside = result(await caller.callTool({ name: "read_text_file", arguments: { path: join(dirA, "a.txt") } }));
    expect(inside.isError).not.toBe(true);
    expect(inside.structuredContent).toEqual({ content: "hello from a.txt\n" });

    const outside = result(await caller.callTool({ name: "read_text_file", arguments: { path: join(dirB, "b.txt") } }));
    expect(outside.isError).toBe(true);
    expect(outside.structuredContent).toBeUndefined();
    expect(text(outside)).toMatch(/Access denied - path outside allowed directories/);
    const failure = failureFromToolError(outside.content, { tool: "read_text_file", server: "filesystem" });
    expect(failure.kind).toBe("domain_rejection");
  });

  it("writes inside the root land on disk", async () => {
    const caller = start();
    const target = join(dirA, "new.txt");
    result(await caller.callTool({ name: "write_file", arguments: { path: target, content: "written by toolwright" } }));
    expect(readFileSync(target, "utf8")).toBe("written by toolwright");
    const escaped = result(await caller.callTool({ name: "write_file", arguments: { path: join(base, "escape.txt"), content: "x" } }));
    expect(escaped.isError).toBe(true);
  });

  it("declared roots replace the argv directories", async () => {
    let asked = 0;
    const features = createClientFeatures({
      roots: {
        list: () => {
          asked++;
          return [{ uri: pathToFileURL(dirB).href, name: "b" }];
        },
      },
    });
    const caller = start({ capabilities: features.capabilities, handlers: features.handlers });
    const dirs = await waitAllowed(caller, dirB);
    expect(asked).toBeGreaterThan(0);
    expect(dirs).toContain(dirB);
    expect(dirs).not.toContain(dirA);
    const a = result(await caller.callTool({ name: "read_text_file", arguments: { path: join(dirA, "a.txt") } }));
    expect(a.isError).toBe(true);
    const b = result(await caller.callTool({ name: "read_text_file", arguments: { path: join(dirB, "b.txt") } }));
    expect(text(b)).toBe("hello from b.txt\n");
  });

  it("setRoots sends roots/list_changed and the server moves its sandbox", async () => {
    const features = createClientFeatures({ roots: { list: [{ uri: pathToFileURL(dirB).href }] } });
    const caller = start({ capabilities: features.capabilities, handlers: features.handlers });
    features.addNotifier(caller.notify);
    expect(await waitAllowed(caller, dirB)).toContain(dirB);
    await features.setRoots([{ uri: pathToFileURL(dirC).href, name: "c" }]);
    const dirs = await waitAllowed(caller, dirC);
    expect(dirs).toContain(dirC);
    expect(dirs).not.toContain(dirB);
    const c = result(await caller.callTool({ name: "read_text_file", arguments: { path: join(dirC, "c.txt") } }));
    expect(text(c)).toBe("hello from c.txt\n");
    const b = result(await caller.callTool({ name: "read_text_file", arguments: { path: join(dirB, "b.txt") } }));
    expect(b.isError).toBe(true);
  });
});
