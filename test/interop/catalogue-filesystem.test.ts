/**
 * Real catalogue: every tool of server-filesystem (14, all with an outputSchema) called through the
 * client generated from the pulled lock (examples/catalogues), sandboxed to a temp folder passed as
 * the root argument at run time. Structured results are decoded by the generated validators.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolResult } from "@toolwright/runtime";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkFilesystemDrift,
  createFilesystemClient,
  type FilesystemClient,
  filesystemSpecs,
} from "../../examples/catalogues/src/gen/filesystem/index.js";

const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist/index.js");
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

let root = "";
let caller: StdioCaller;
let fs: FilesystemClient;
const called = new Set<string>();

function value<R>(name: string, result: ToolResult<R>): R {
  called.add(name);
  if (!result.ok) throw new Error(`${name} failed: ${result.failure.kind} ${result.failure.message}`);
  expect(result.value).toBe(result.structured);
  return result.value;
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "tw-catalogue-fs-")));
  // No roots capability: the argv root stays the sandbox (declared roots would replace it).
  caller = createStdioCaller({ name: "filesystem", command: process.execPath, args: [bin, root], capabilities: {} });
  fs = createFilesystemClient(caller);
});
afterAll(async () => {
  await caller.close();
  rmSync(root, { recursive: true, force: true });
});

describe("server-filesystem through the generated client", () => {
  it("the live catalogue matches the lock (no drift under the fail policy)", async () => {
    expect(await checkFilesystemDrift(caller, { policy: "fail" })).toEqual({ ok: true, server: "filesystem", drift: [] });
  });

  it("calls every tool with typed results", async () => {
    const sub = join(root, "sub");
    const a = join(sub, "a.txt");
    expect(value("list_allowed_directories", await fs.listAllowedDirectories({})).content).toContain(root);
    value("create_directory", await fs.createDirectory({ path: sub }));
    value("write_file", await fs.writeFile({ path: a, content: "hello\nworld\n" }));
    expect(readFileSync(a, "utf8")).toBe("hello\nworld\n");
    expect(value("read_text_file", await fs.readTextFile({ path: a, head: 1 })).content).toBe("hello");
    expect(value("read_file", await fs.readFile({ path: a })).content).toBe("hello\nworld\n");
    const edit = value("edit_file", await fs.editFile({ path: a, edits: [{ oldText: "world", newText: "there" }] }));
    expect(edit.content).toMatch(/-world\n\+there/);
    expect(readFileSync(a, "utf8")).toBe("hello\nthere\n");
    writeFileSync(join(sub, "b.txt"), "bee");
    const multi = value("read_multiple_files", await fs.readMultipleFiles({ paths: [a, join(sub, "b.txt")] }));
    expect(multi.content).toContain("bee");
    expect(value("get_file_info", await fs.getFileInfo({ path: a })).content).toMatch(/size: 12/);
    expect(
      value("list_directory", await fs.listDirectory({ path: sub }))
        .content.split("\n")
        .sort(),
    ).toEqual(["[FILE] a.txt", "[FILE] b.txt"]);
    expect(value("list_directory_with_sizes", await fs.listDirectoryWithSizes({ path: sub, sortBy: "size" })).content).toMatch(/a\.txt/);
    const tree = JSON.parse(value("directory_tree", await fs.directoryTree({ path: root })).content) as {
      name: string;
      children?: { name: string }[];
    }[];
    expect(tree.map((e) => e.name)).toEqual(["sub"]);
    expect(tree[0]?.children?.map((c) => c.name).sort()).toEqual(["a.txt", "b.txt"]);
    expect(value("search_files", await fs.searchFiles({ path: root, pattern: "**/b.txt" })).content).toBe(join(sub, "b.txt"));
    value("move_file", await fs.moveFile({ source: join(sub, "b.txt"), destination: join(root, "c.txt") }));
    expect(readFileSync(join(root, "c.txt"), "utf8")).toBe("bee");
    writeFileSync(join(root, "dot.png"), Buffer.from(PNG_1X1, "base64"));
    const media = value("read_media_file", await fs.readMediaFile({ path: join(root, "dot.png") }));
    expect(media.content).toEqual([{ type: "image", mimeType: "image/png", data: PNG_1X1 }]);
    expect([...called].sort()).toEqual(filesystemSpecs.map((s) => s.name).sort());
    expect(called.size).toBe(14);
  });

  it("a path outside the root is a tool error (isError, no structured content), not a crash", async () => {
    const outside = await fs.readTextFile({ path: "/etc/hostname" });
    expect(outside.ok).toBe(false);
    expect(!outside.ok && outside.failure.message).toMatch(/Access denied|outside allowed/);
  });
});
