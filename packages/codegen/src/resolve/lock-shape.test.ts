/**
 * A malformed lock is the lock's problem: generated corruptions of a real lock (the pulled
 * catalogues of server-everything, -filesystem and -memory in examples/catalogues) give a
 * `LockError` naming the lock file, the server, the tool and the field, never a crash, a stack
 * trace, an internal function's name or the design file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { design, externalServer, fromMCP, toolset } from "@toolwright/dsl";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { copyLock as copy, lockCorruption as corruption, parentOf, put, REAL_LOCK } from "../../../../test/support/lock-corruptions.js";
import { readLock } from "./lock.js";
import { LockError } from "./lock-shape.js";
import { resolveDesign } from "./resolve.js";

const REAL = REAL_LOCK;
const dir = mkdtempSync(join(tmpdir(), "toolwright-lock-shape-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const designPath = join(dir, "app.design.ts");
const LOCK_LABEL = "app.design.lock.json";

/** Writes `lock` (any JSON, `__proto__` keys kept as own keys) and reads it back through `readLock`. */
function read(lock: unknown): unknown {
  writeFileSync(join(dir, LOCK_LABEL), JSON.stringify(lock));
  try {
    readLock(designPath, LOCK_LABEL);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** What a user may see: the lock named first, no design file, no stack, no internal function. */
function expectLockMessage(error: unknown): string {
  expect(error).toBeInstanceOf(LockError);
  const message = (error as Error).message;
  expect(message.startsWith(`${LOCK_LABEL} `) || message.startsWith(`${LOCK_LABEL}:`)).toBe(true);
  expect(message).not.toMatch(/design\.ts|\n\s+at |\w\(\)/);
  return message;
}

describe("a malformed lock is reported as the lock's problem", () => {
  it("each corruption of the format names the lock file, the server, the tool and the field", () => {
    fc.assert(
      fc.property(corruption, (c) => {
        const lock = copy();
        put(lock, c.path, c.value);
        const message = expectLockMessage(read(lock));
        const s = c.path[1];
        if (typeof s === "string") expect(message).toContain(`server ${JSON.stringify(s)}`);
        const tool = c.tool;
        if (tool !== undefined) expect(message).toContain(`tool ${JSON.stringify(tool)}`);
        if (c.field !== undefined) expect(message).toContain(`field ${JSON.stringify(c.field)}`);
      }),
      { numRuns: 400 },
    );
  });

  it("a tool listed twice names the server and the tool", () => {
    const lock = copy();
    const tools = lock.servers.memory!.tools;
    tools.push(tools[0]!);
    expect(expectLockMessage(read(lock))).toContain(`server "memory" tool ${JSON.stringify(tools[0]!.name)}: is listed twice`);
  });

  it("the real lock reads, and its server map answers no prototype names", () => {
    expect(read(REAL)).toBeUndefined();
    const lock = readLock(designPath, LOCK_LABEL);
    expect(lock?.servers.constructor).toBeUndefined();
    expect(lock?.servers.toString).toBeUndefined();
  });

  it("any change anywhere in a server's entry either generates or is a LockError, never a crash or a design error", () => {
    // gen's resolve step over the whole lock: every path of one server entry, any JSON put there.
    const pathsOf = (node: unknown, at: Path): Path[] =>
      typeof node !== "object" || node === null
        ? [at]
        : [at, ...Object.entries(node).flatMap(([k, v]) => pathsOf(v, [...at, Array.isArray(node) ? Number(k) : k]))];
    const memoryPaths = pathsOf(REAL.servers.memory, ["servers", "memory"]).filter((p) => p.length > 2);
    const app = design({ toolsets: [toolset("memory", fromMCP(externalServer("memory", { command: "node", args: ["server.js"] })))] });
    fc.assert(
      fc.property(
        fc.constantFrom(...memoryPaths),
        fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
        fc.boolean(),
        (path, value, asProto) => {
          const lock = copy();
          // Either change the value at the path, or add a "__proto__" key to the object holding it.
          if (asProto && typeof parentOf(lock, path) === "object" && !Array.isArray(parentOf(lock, path)))
            put(lock, [...path.slice(0, -1), "__proto__"], value ?? {});
          else put(lock, path, value);
          writeFileSync(join(dir, LOCK_LABEL), JSON.stringify(lock));
          try {
            resolveDesign(app, { file: "app.design.ts", designPath, cwd: dir });
          } catch (error) {
            expectLockMessage(error);
          }
        },
      ),
      { numRuns: 100 },
    );
  }, 300_000);
});
