/**
 * Type tests: tsc over sdk-types.check.ts proves each adapter's output is assignable to the SDK's
 * own parameter types (openai, @anthropic-ai/sdk, @google/genai, ai, @langchain/core; ai and openai
 * in both their Node 20 majors and the Node-22-only ones), and a
 * deliberately wrong file proves the check can fail.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(repo, "node_modules", ".bin", "tsc");

describe("adapter output is assignable to the SDKs' parameter types", () => {
  beforeAll(() => {
    // The check imports the packages through their exports, i.e. dist/*.d.ts.
    const build = spawnSync(tsc, ["-b", "packages/runtime", "packages/ai-sdk", "packages/langchain"], { cwd: repo, encoding: "utf8" });
    expect(build.status, build.stdout + build.stderr).toBe(0);
  }, 180_000);

  it("tsc -p test/providers/tsconfig.sdk-types.json", () => {
    const run = spawnSync(tsc, ["-p", "test/providers/tsconfig.sdk-types.json"], { cwd: repo, encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  }, 180_000);

  it("also against the Node-22-only majors ai 7 and openai 7 (tsconfig paths into .tmp/providers-node22)", () => {
    const marker = join(repo, ".tmp", "providers-node22", "node_modules", "ai", "package.json");
    expect(existsSync(marker), "run bash test/providers/setup.sh (npm test does)").toBe(true);
    const run = spawnSync(tsc, ["-p", "test/providers/tsconfig.sdk-types-node22.json", "--traceResolution"], {
      cwd: repo,
      encoding: "utf8",
      maxBuffer: 512 * 1024 * 1024,
    });
    expect(
      run.status,
      run.stdout
        .split("\n")
        .filter((l) => l.includes("error TS"))
        .join("\n"),
    ).toBe(0);
    const resolved = run.stdout.split("\n").filter((l) => /Module name '(ai|openai)' was successfully resolved/.test(l));
    expect(resolved.length).toBeGreaterThan(0);
    expect(resolved.every((l) => l.includes("/.tmp/providers-node22/node_modules/"))).toBe(true);
  }, 180_000);

  it("a mismatched use fails to compile (Anthropic tools as OpenAI tools, Gemini contents as Anthropic messages)", () => {
    const run = spawnSync(tsc, ["-p", "test/providers/tsconfig.sdk-types-negative.json"], { cwd: repo, encoding: "utf8" });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toMatch(
      /sdk-types\.negative\.ts\(11,\d+\): error TS2322: Type 'AnthropicTool\[\]' is not assignable to type 'ChatCompletionTool\[\]'/,
    );
    expect(run.stdout).toMatch(
      /sdk-types\.negative\.ts\(13,\d+\): error TS2322: Type 'GeminiFunctionResponseContent\[\]' is not assignable to type 'MessageParam\[\]'/,
    );
  }, 180_000);
});
