/**
 * Mocks from the lock as users get them: the packed tarballs installed into an empty project outside
 * the repository, `npx toolwright gen` printing `mock.gen.ts`, a user's test file (node:test, so the
 * project needs no test runner) compiled by plain `tsc` with a strict user tsconfig, then run: the
 * same planner against the mock in memory, over streamable HTTP on 127.0.0.1 and over stdio (the
 * installed `toolwright mock`), asserting on the calls the mock recorded.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NPM_FLAGS, type PackedPackage, packWorkspaces, REPO, type RunResult, run, USER_TSCONFIG } from "./support.js";

const rootPkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { devDependencies: { [name: string]: string } };
const EXTRA = ["typescript", "@types/node"].map((n) => `${n}@${rootPkg.devDependencies[n]}`);

let dir = "";
let app = "";
let packed: readonly PackedPackage[] = [];

const ok = (r: RunResult, what: string): RunResult => {
  expect(r.code, `${what} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r;
};

const DESIGN = `import { design, fromExternalMCP, number, object, string, toolset } from "@toolwright/dsl";

const weather = toolset("weather", fromExternalMCP("weather"), (t) => {
  t.tool("forecast", {
    description: "Forecast for a city",
    input: object({ city: string() }),
    output: object({ city: string(), celsius: number(), summary: string() }),
    examples: [{ city: "Oslo" }],
  });
  t.tool("note", { description: "Saves a note", input: object({ text: string() }) });
});

export default design({ toolsets: [weather] });
`;

const TEST = `import { test } from "node:test";
import assert from "node:assert/strict";
import type { Caller } from "@toolwright/runtime";
import { startMock, type RunningMock } from "@toolwright/testkit";
import { createWeatherClient } from "./gen/weather/index.js";
import { createWeatherMock } from "./gen/weather/mock.gen.js";

async function plan(caller: Caller): Promise<string> {
  const client = createWeatherClient(caller);
  const forecast = await client.forecast({ city: "Oslo" });
  if (!forecast.ok) return "failed: " + forecast.failure.message;
  const saved = await client.note({ text: forecast.value.summary });
  return saved.ok ? forecast.value.city + " " + forecast.value.celsius + " " + saved.value : "failed: " + saved.failure.message;
}

const handlers = {
  forecast: ({ city }: { city: string }) => ({ city, celsius: -3, summary: "snow" }),
  note: ({ text }: { text: string }) => "saved " + text,
};

for (const transport of ["memory", "http"] as const) {
  test("the plan against the mock, " + transport, async () => {
    const mock: RunningMock = await startMock(createWeatherMock(handlers), { transport });
    try {
      assert.equal(await plan(mock.caller), "Oslo -3 saved snow");
      assert.deepEqual(mock.calls.map((c) => [c.tool, c.call]), [["forecast", 1], ["note", 1]]);
      assert.deepEqual(mock.callsTo("note")[0]?.arguments, { text: "snow" });
    } finally {
      await mock.close();
    }
  });
}

test("the plan against the mock over stdio (toolwright mock), on the defaults from the design", async () => {
  const mock = await startMock(createWeatherMock(), { transport: "stdio", design: "design.ts" });
  try {
    assert.equal(await plan(mock.caller), "string 0 mock answer of weather.note");
    assert.deepEqual(mock.calls.map((c) => c.tool), ["forecast", "note"]);
  } finally {
    await mock.close();
  }
});

test("a wrong answer fails the call, naming toolset, tool and field", async () => {
  const mock = await startMock(createWeatherMock({ forecast: () => ({ city: "Oslo", celsius: "cold", summary: "x" }) as never }));
  try {
    assert.match(await plan(mock.caller), /mock weather\\.forecast: the handler's answer breaks the output schema: celsius/);
    assert.equal(mock.failures.length, 1);
  } finally {
    await mock.close();
  }
});
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tw-testkit-mock-product-"));
  const tarballs = join(dir, "tarballs");
  app = join(dir, "app");
  mkdirSync(tarballs);
  mkdirSync(join(app, "src"), { recursive: true });
  packed = await packWorkspaces(tarballs);
  const tgz = (name: string) => join(tarballs, packed.find((p) => p.name === name)?.filename ?? `${name}-missing.tgz`);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const names = ["@toolwright/runtime", "@toolwright/dsl", "@toolwright/codegen", "@toolwright/testkit"];
  const installed = await run("npm", ["install", ...NPM_FLAGS, ...names.map(tgz), ...EXTRA], app, 600_000);
  if (installed.code !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
}, 900_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("mocks from the lock, from the packed tarballs", () => {
  it("gen prints mock.gen.ts; a user's test, compiled by tsc, runs the planner against it three ways", async () => {
    writeFileSync(join(app, "design.ts"), DESIGN);
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify(USER_TSCONFIG, null, 2));
    writeFileSync(join(app, "src", "planner.test.ts"), TEST);
    ok(await run("npx", ["--no-install", "toolwright", "gen", "design.ts", "--out", "src/gen"], app, 300_000), "toolwright gen");
    expect(readFileSync(join(app, "src", "gen", "weather", "mock.gen.ts"), "utf8")).toContain("export function createWeatherMock(");
    ok(await run("npx", ["--no-install", "tsc", "-p", "tsconfig.json"], app, 300_000), "tsc");
    const r = await run(process.execPath, ["--test", "--test-reporter=tap", "dist/planner.test.js"], app, 300_000);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/# pass 4/);
    expect(r.stdout).toMatch(/# fail 0/);
  });

  it("toolwright mock names the toolsets when asked for one the design does not have", async () => {
    const r = await run("npx", ["--no-install", "toolwright", "mock", "design.ts", "--toolset", "wether"], app, 300_000);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the design has no toolset "wether" (it has "weather")');
  });
});
