/**
 * The token bill through the built `toolwright` bin: `gen` reports definition tokens per provider,
 * server, toolset and tool for the real catalogues in examples/catalogues, the counts are what the
 * runtime's adapters send for the generated specs, and `--budget N` fails with exit code 3 naming
 * the toolset.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProviderTools, type ProviderFormat, type ToolRunner } from "@toolwright/runtime/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySpecs } from "../../examples/catalogues/src/gen/memory/index.js";
import { countTokens } from "../../packages/codegen/src/tokens/count.js";
import { CHILD_ENV, REPO } from "./support.js";

const bin = join(REPO, "packages/codegen/dist/bin.js");
const design = "examples/catalogues/design.ts";
let out: string;

function gen(...extra: string[]) {
  const r = spawnSync(process.execPath, [bin, "gen", design, "--out", out, ...extra], {
    cwd: REPO,
    env: CHILD_ENV,
    encoding: "utf8",
    timeout: 170_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "tw-bill-"));
  const build = spawnSync("npm", ["run", "build"], { cwd: REPO, env: CHILD_ENV, encoding: "utf8" });
  expect(build.status, build.stdout + build.stderr).toBe(0);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

const FORMATS: readonly ProviderFormat[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];

describe("toolwright gen: the token bill", () => {
  it("--json reports tokens per provider, toolset and tool, equal to what the runtime adapters send", () => {
    const r = gen("--json", "--no-cache");
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    const bill = summary.bill;
    expect(bill.encoding).toBe("o200k_base");
    expect(bill.formats).toEqual(FORMATS);
    expect(bill.toolsets.map((t: { name: string }) => t.name)).toEqual(["everything", "everything-features", "filesystem", "memory"]);
    expect(bill.tools).toHaveLength(summary.tools);
    // Each memory tool costs, per provider, exactly the tokens of the definition the runtime builds
    // from the generated spec (the path a user's agent takes at run time).
    for (const spec of memorySpecs) {
      const line = bill.tools.find((t: { id: string }) => t.id === spec.id);
      const runner: ToolRunner = {
        specs: () => [spec],
        lookup: () => ({ spec, caller: { server: "memory" } }),
        execute: () => Promise.reject(new Error("not run")),
      };
      for (const format of FORMATS) {
        const [definition] = createProviderTools(runner, { format }).definitions();
        expect(line.tokens[format], `${spec.id} ${format}`).toBe(countTokens(JSON.stringify(definition)));
      }
    }
    // Groups are sums of their tools; the top five are the five costliest, costliest first.
    for (const t of bill.toolsets)
      for (const f of FORMATS)
        expect(t.tokens[f]).toBe(
          bill.tools
            .filter((x: { toolset: string }) => x.toolset === t.name)
            .reduce((n: number, x: { tokens: Record<string, number> }) => n + x.tokens[f], 0),
        );
    const byMax = [...bill.tools]
      .sort((a, b) => b.max - a.max)
      .slice(0, 5)
      .map((t) => t.max);
    expect(bill.top.map((t: { max: number }) => t.max)).toEqual(byMax);
    expect(bill.top).toHaveLength(5);
    // The guide's table is this bill (regenerate it with the same command when a catalogue changes).
    for (const page of ["docs/guides/token-economy.md", "docs/guides/model-sdks.md"]) {
      const guide = readFileSync(join(REPO, page), "utf8");
      const table = /<!-- token-bill:start -->([\s\S]*?)<!-- token-bill:end -->/.exec(guide)?.[1] ?? "";
      // Cells, not layout: a Markdown formatter may align the columns.
      const rows = table
        .split("\n")
        .filter((l) => /^\| [a-z]/.test(l) && !l.startsWith("| toolset"))
        .map((l) =>
          l
            .split("|")
            .slice(1, -1)
            .map((c) => c.trim()),
        );
      const fmt = (n: number) => n.toLocaleString("en-US");
      expect(rows).toEqual(
        bill.toolsets.map((t: { name: string; tools: number; tokens: Record<string, number> }) => [
          t.name,
          String(t.tools),
          ...FORMATS.map((f) => fmt(t.tokens[f] ?? 0)),
        ]),
      );
    }
  });

  it("prints the bill after the summary, also when the run is answered from the cache", () => {
    gen("--no-cache");
    const first = gen();
    const again = gen();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/nothing changed/);
    for (const r of [first, again]) {
      expect(r.stdout).toMatch(/^token bill \(o200k_base tokens/m);
      expect(r.stdout).toMatch(/^ {2}toolset memory \(9 tools\): openai-chat \d+, openai-responses \d+, anthropic \d+, gemini \d+$/m);
      expect(r.stdout).toMatch(/^ {2}most expensive tools: [\w.-]+ \d+(, [\w.-]+ \d+){4}$/m);
    }
    expect(again.stdout.split("\n").slice(1)).toEqual(first.stdout.split("\n").slice(1));
  });

  it("--budget fails with exit code 3 naming each toolset over it, and its tokens", () => {
    const bill = JSON.parse(gen("--json", "--no-cache").stdout).bill;
    const sizes = bill.toolsets.map((t: { name: string; max: number }) => [t.name, t.max] as const);
    const memory = sizes.find(([n]: readonly [string, number]) => n === "memory")[1];
    // A budget just under the memory toolset: memory and every bigger toolset fail, smaller ones pass.
    const budget = memory - 1;
    const over = sizes.filter(([, m]: readonly [string, number]) => m > budget);
    const r = gen("--budget", String(budget), "--no-cache");
    expect(r.code).toBe(3);
    for (const [name, tokens] of over) expect(r.stderr).toContain(`toolset "${name}" costs ${tokens} definition tokens`);
    expect(r.stderr).toContain(`over --budget ${budget}`);
    const json = JSON.parse(gen("--budget", String(budget), "--json", "--no-cache").stdout);
    expect(json).toMatchObject({ ok: false, exitCode: 3, budget });
    expect(json.overruns.map((o: { toolset: string }) => o.toolset).sort()).toEqual(over.map(([n]: readonly [string, number]) => n).sort());
    // Within budget: exit 0.
    expect(gen("--budget", String(Math.max(...sizes.map(([, m]: readonly [string, number]) => m))), "--no-cache").code).toBe(0);
  });

  it("refuses a budget that is not a positive whole number (exit 2, naming the flag)", () => {
    const r = gen("--budget", "lots");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--budget/);
  });
});
