/**
 * Fault injection for `add`'s re-read before write: another program edits the design each time
 * `add` reads it (a wrapped `readFileSync` appends a line right after every read of design.ts), so
 * every planned edit is stale by the time it would be written. `add` plans again a bounded number
 * of times, then fails with one line and exit 2; the other program's edits are all there and
 * `add`'s is not, so no overwritten edit is reported as a success. With one change only, the edit
 * is planned again on the new text and both are kept.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const touch = vi.hoisted(() => ({ remaining: 0, reads: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const readFileSync = ((path: Parameters<typeof real.readFileSync>[0], ...rest: unknown[]) => {
    const text = (real.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
    if (String(path).endsWith("design.ts")) {
      touch.reads++;
      if (touch.remaining > 0) {
        touch.remaining--;
        real.appendFileSync(path as string, `// edited by another program ${touch.reads}\n`);
      }
    }
    return text;
  }) as typeof real.readFileSync;
  return { ...real, readFileSync, default: { ...real, readFileSync } };
});

const { main } = await import("../cli.js");

const repo = fileURLToPath(new URL("../../../..", import.meta.url));
const STARTER = 'import { design } from "@toolwright/dsl";\n\nexport default design({ toolsets: [] });\n';
let dir = "";

beforeEach(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "add-conflict-"));
  mkdirSync(join(dir, ".toolwright"));
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: { memory: { command: "node", args: ["m.js"] } } }));
  writeFileSync(join(dir, "design.ts"), STARTER);
  touch.reads = 0;
});
afterEach(() => {
  touch.remaining = 0;
  rmSync(dir, { recursive: true, force: true });
});

async function add() {
  const err: string[] = [];
  const out: string[] = [];
  const code = await main(["add", "memory"], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("toolwright add when the design changes under it", () => {
  it("keeps both edits when the design changed once between read and write", async () => {
    touch.remaining = 1;
    const r = await add();
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const text = readFileSync(join(dir, "design.ts"), "utf8");
    expect(text).toContain("// edited by another program 1\n");
    expect(text).toContain('toolset("memory", fromMCP(memory))');
  });

  it("gives up with one line and exit 2 when it keeps changing, and writes nothing over it", async () => {
    touch.remaining = 1_000;
    const r = await add();
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      'error: design.ts: changed by another program while toolwright add was editing it (5 tries); server "memory" was not added, run add again',
    );
    touch.remaining = 0;
    const reads = touch.reads;
    const text = readFileSync(join(dir, "design.ts"), "utf8");
    expect(text).not.toContain("memory");
    // Every edit of the other program is still there: the file was never replaced.
    for (let i = 1; i <= reads; i++) expect(text).toContain(`// edited by another program ${i}\n`);
    // Bounded: the first read, the read under the lock, then one per attempt.
    expect(reads).toBe(7);
  });
});
