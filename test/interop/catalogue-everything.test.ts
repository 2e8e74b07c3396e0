/**
 * Real catalogue: every tool server-everything lists to a client without roots, sampling,
 * elicitation or tasks (13) called through the client generated from the pulled lock
 * (examples/catalogues). `get-structured-content` (the only outputSchema) gives a typed value; the
 * others give their joined text plus content blocks. `simulate-research-query` requires tasks
 * (taskSupport "required"): the caller runs it through a task automatically.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { ToolResult } from "@toolwright/runtime";
import { checkDrift } from "@toolwright/runtime/catalogue";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkEverythingDrift,
  createEverythingClient,
  type EverythingClient,
  everythingCatalogue,
  everythingSpecs,
  type GetStructuredContentResult,
} from "../../examples/catalogues/src/gen/everything/index.js";

const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
const SECRET = "tw-catalogue-secret-value-123";

let caller: StdioCaller;
let everything: EverythingClient;
const called = new Set<string>();
let previousSecret: string | undefined;

function ok<R>(name: string, result: ToolResult<R>): Extract<ToolResult<R>, { ok: true }> {
  called.add(name);
  if (!result.ok) throw new Error(`${name} failed: ${result.failure.kind} ${result.failure.message}`);
  return result;
}
const types = (r: { content: readonly { type: string }[] }) => r.content.map((c) => c.type);

beforeAll(() => {
  previousSecret = process.env.TW_CATALOGUE_SECRET;
  process.env.TW_CATALOGUE_SECRET = SECRET;
  caller = createStdioCaller({ name: "everything", command: process.execPath, args: [bin, "stdio"], capabilities: {} });
  everything = createEverythingClient(caller);
});
afterAll(async () => {
  await caller.close();
  if (previousSecret === undefined) delete process.env.TW_CATALOGUE_SECRET;
  else process.env.TW_CATALOGUE_SECRET = previousSecret;
});

describe("server-everything through the generated client", () => {
  it("the live catalogue matches the lock (no drift under the fail policy)", async () => {
    expect(await checkEverythingDrift(caller, { policy: "fail" })).toEqual({ ok: true, server: "everything", drift: [] });
  });

  it("drift against the real server: a lock missing a tool and with one stale fingerprint", async () => {
    const { echo: _gone, ...rest } = everythingCatalogue.tools;
    const stale = { ...everythingCatalogue, tools: { ...rest, "get-sum": "sha256:stale", "retired-tool": "sha256:old" } };
    const warnings: string[] = [];
    const warned = await checkDrift(caller, stale, { onWarning: (m) => warnings.push(m) });
    expect(warned.ok).toBe(true);
    expect(warned.drift.map((d) => `${d.tool}:${d.change}`)).toEqual(["echo:added", "get-sum:changed", "retired-tool:removed"]);
    expect(warnings).toHaveLength(3);
    const failed = await checkDrift(caller, stale, { policy: "fail" });
    expect(failed.ok).toBe(false);
    expect(!failed.ok && failed.message).toBe(
      'server "everything": live catalogue drifted from the lock: echo (added), get-sum (changed), retired-tool (removed)',
    );
  });

  it("calls every tool", async () => {
    expect(ok("echo", await everything.echo({ message: "hi" })).value).toBe("Echo: hi");
    expect(ok("get-sum", await everything.getSum({ a: 2, b: 3 })).value).toMatch(/\b5\b/);
    const weather = ok("get-structured-content", await everything.getStructuredContent({ location: "Chicago" }));
    const typed: GetStructuredContentResult = weather.value;
    expect(typed).toBe(weather.structured);
    expect(typeof typed.temperature).toBe("number");
    expect(typeof typed.conditions).toBe("string");
    expect(typeof typed.humidity).toBe("number");
    expect(
      types(ok("get-annotated-message", await everything.getAnnotatedMessage({ messageType: "success", includeImage: true }))),
    ).toContain("image");
    expect(
      types(ok("get-resource-links", await everything.getResourceLinks({ count: 2 }))).filter((t) => t === "resource_link"),
    ).toHaveLength(2);
    expect(types(ok("get-resource-reference", await everything.getResourceReference({ resourceType: "Text", resourceId: 1 })))).toContain(
      "resource",
    );
    expect(types(ok("get-tiny-image", await everything.getTinyImage({})))).toContain("image");
    const gz = ok(
      "gzip-file-as-resource",
      await everything.gzipFileAsResource({
        name: "hi.txt.gz",
        data: `data:text/plain;base64,${Buffer.from("hello").toString("base64")}`,
        outputType: "resource",
      }),
    );
    expect(types(gz)).toContain("resource");
    // get-env dumps the child's environment: the allowlist keeps the parent's secret out.
    const env = ok("get-env", await everything.getEnv({}));
    expect(env.value).toContain("PATH");
    expect(env.value).not.toContain(SECRET);
    const progress: number[] = [];
    ok(
      "trigger-long-running-operation",
      await everything.triggerLongRunningOperation({ duration: 0.2, steps: 2 }, { onProgress: (p) => progress.push(p.progress) }),
    );
    expect(progress).toEqual([1, 2]);
    // Toggles start and then stop background notifications.
    expect(ok("toggle-simulated-logging", await everything.toggleSimulatedLogging({})).value).toMatch(/Started/i);
    expect(ok("toggle-simulated-logging", await everything.toggleSimulatedLogging({})).value).toMatch(/Stopped/i);
    expect(ok("toggle-subscriber-updates", await everything.toggleSubscriberUpdates({})).value).toMatch(/Started/i);
    expect(ok("toggle-subscriber-updates", await everything.toggleSubscriberUpdates({})).value).toMatch(/Stopped/i);
    // taskSupport "required": the caller makes it a task, polls it and fetches the report.
    called.add("simulate-research-query");
    const research = await everything.simulateResearchQuery({ topic: "drift" });
    expect(ok("simulate-research-query", research).value).toContain("Research Report: drift");
    expect([...called].sort()).toEqual(everythingSpecs.map((s) => s.name).sort());
    expect(called.size).toBe(13);
  }, 30_000);
});
