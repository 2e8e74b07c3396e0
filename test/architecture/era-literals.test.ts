/**
 * The `no-era-literal` rule (scripts/check-era-literals.mjs, run by `npm run lint`) really fails:
 * the real script runs on a scratch tree laid out like the repository, where some files break the
 * rule and others write the same dates where they are allowed (revision folders, negotiation,
 * comments, test files, regular expressions, template substitutions).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const script = join(repo, "scripts", "check-era-literals.mjs");
const scratches: string[] = [];
afterAll(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

function scratchTree(files: { readonly [path: string]: string }): string {
  const dir = mkdtempSync(join(tmpdir(), "toolwright-era-"));
  scratches.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function check(dir: string): Promise<{ code: number; stdout: string }> {
  return promisify(execFile)(process.execPath, [script, dir]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "" }),
  );
}

const R = "packages/runtime/src";
const allowed = {
  [`${R}/revisions/2026-07-28/versions.ts`]: 'export const V = "2026-07-28";\n',
  [`${R}/revisions/legacy/versions.ts`]: "export const L = ['2025-11-25', \"2024-11-05\"];\n",
  [`${R}/protocol/mcp-handshake.ts`]: 'export type Era = "legacy" | "2026-07-28";\n',
  [`${R}/caller/comments.ts`]:
    '// the "2026-07-28" era\n/* also "2025-06-18" */\nexport const url = "https://example.com//x"; // "2025-03-26"\nexport const r = /"2026-07-28"/;\n',
  [`${R}/caller/template.ts`]: 'export const t = (v: string) => `${v === "x" ? v : v}-2026-07-28`;\n',
  [`${R}/caller/session-core.test.ts`]: 'export const inTests = "2026-07-28";\n',
  [`${R}/caller/not-a-date.ts`]: 'export const n = "2026-07-28T00:00:00Z";\n',
};

describe("no-era-literal", () => {
  it("passes a tree whose era literals sit in revision folders, negotiation, comments and tests", async () => {
    const result = await check(scratchTree(allowed));
    expect(result).toEqual({ code: 0, stdout: "" });
  });

  it("fails on an era literal outside them, naming file, line and value", async () => {
    const dir = scratchTree({
      ...allowed,
      [`${R}/caller/http-connection.ts`]: 'const a = 1;\nexport const modern = (era: string) => era === "2026-07-28";\n',
      [`${R}/server/legacy-tasks.ts`]: "export const tasks = (v: string) => v >= '2025-11-25';\n",
      [`${R}/manager/pool.ts`]: "export const t = `2026-07-28`;\n",
      "packages/codegen/src/ir/ir.ts": 'export type Era = "auto" | "2026-07-28";\n',
    });
    const result = await check(dir);
    expect(result.code).toBe(1);
    const found = [...result.stdout.matchAll(/error no-era-literal: (\S+) (\S+)/g)].map((m) => `${m[1]} ${m[2]}`).sort();
    expect(found).toEqual([
      'packages/codegen/src/ir/ir.ts:1 "2026-07-28"',
      `${R}/caller/http-connection.ts:2 "2026-07-28"`,
      `${R}/manager/pool.ts:1 "2026-07-28"`,
      `${R}/server/legacy-tasks.ts:1 "2025-11-25"`,
    ]);
  });

  it("passes on this repository", async () => {
    const result = await check(repo);
    expect(result.stdout).toBe("");
    expect(result.code).toBe(0);
  });
});
