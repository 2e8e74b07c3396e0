/**
 * Hostile values through a generated client (the checked-in refs-recursive golden output, whose
 * schemas are recursive): a payload or a server result nested 100,000 levels deep is a failure
 * value (invalid_call / malformed_result), never a thrown stack overflow; 1,000 levels is fine.
 */
import { createInMemoryCaller } from "@toolwright/runtime";
import { describe, expect, it } from "vitest";
import { createFilesClient } from "../golden/refs-recursive/expected/files/client.gen.js";

interface Tree {
  name: string;
  children?: Tree[];
}

function tree(depth: number): Tree {
  let node: Tree = { name: "leaf" };
  for (let i = 0; i < depth; i++) node = { name: "n", children: [node] };
  return node;
}

interface Linked {
  value: string;
  next?: Linked;
}

function linked(depth: number): Linked {
  let node: Linked = { value: "leaf" };
  for (let i = 0; i < depth; i++) node = { value: "n", next: node };
  return node;
}

function client(resultDepth: number) {
  const caller = createInMemoryCaller("file-server", {
    mkdirs: () => ({ content: [{ type: "text", text: "made" }], structuredContent: { created: tree(resultDepth) } }),
    linked: () => ({ content: [{ type: "text", text: "ok" }] }),
  });
  return { caller, files: createFilesClient(caller) };
}

describe("deeply nested values through a generated client", () => {
  it("1,000 levels in and out are validated normally", async () => {
    const { files } = client(1_000);
    expect((await files.mkdirs({ root: tree(1_000) })).ok).toBe(true);
    expect((await files.linked(linked(1_000))).ok).toBe(true);
  });

  it("a 100,000-level payload is an invalid_call before anything is sent", async () => {
    const { caller, files } = client(1);
    const a = await files.mkdirs({ root: tree(100_000) });
    const b = await files.linked(linked(100_000));
    for (const r of [a, b]) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.failure).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call" } });
    }
    expect(caller.calls).toEqual([]);
  });

  it("a 100,000-level server result is a malformed_result that keeps the content", async () => {
    const { files } = client(100_000);
    const r = await files.mkdirs({ root: { name: "r" } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure.kind).toBe("malformed_result");
      expect(r.failure.content).toEqual([{ type: "text", text: "made" }]);
    }
  });
});
