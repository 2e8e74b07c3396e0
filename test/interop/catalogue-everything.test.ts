/**
 * Real catalogue: every tool server-everything lists to a client without roots, sampling,
 * elicitation or tasks (13) called through the client generated from the pulled lock
 * (examples/catalogues), over stdio, Streamable HTTP and legacy HTTP+SSE. `get-structured-content`
 * (the only outputSchema) gives a typed value; the others give their joined text plus content
 * blocks. `simulate-research-query` requires tasks (taskSupport "required"): the caller runs it
 * through a task automatically. The lock also records the server's prompts, resources and resource
 * templates: every one is got or read through its generated typed method, and drift covers them.
 */
import type { ChildProcess } from "node:child_process";
import type { ToolResult } from "@toolwright/runtime";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { checkDrift, fingerprintEntry } from "@toolwright/runtime/catalogue";
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkEverythingDrift,
  createEverythingClient,
  type EverythingClient,
  everythingCatalogue,
  everythingSpecs,
  type GetStructuredContentResult,
} from "../../examples/catalogues/src/gen/everything/index.js";
import { EVERYTHING as bin, startEverything, stopEverything } from "../support/everything-server.js";
import { createLeakCheck } from "../support/leak-check.js";

const SECRET = "tw-catalogue-secret-value-123";
const leaks = createLeakCheck();
let previousSecret: string | undefined;

const types = (r: { content: readonly { type: string }[] }) => r.content.map((c) => c.type);

beforeAll(() => {
  previousSecret = process.env.TW_CATALOGUE_SECRET;
  process.env.TW_CATALOGUE_SECRET = SECRET;
});
afterAll(async () => {
  if (previousSecret === undefined) delete process.env.TW_CATALOGUE_SECRET;
  else process.env.TW_CATALOGUE_SECRET = previousSecret;
  const report = await leaks.check();
  leaks.dispose();
  for (const [what, found] of Object.entries(report)) expect(found, what).toEqual([]);
});

describe.each(["stdio", "streamableHttp", "sse"] as const)("server-everything over %s through the generated client", (transport) => {
  let child: ChildProcess | undefined;
  let caller: SessionCaller;
  let everything: EverythingClient;
  const called = new Set<string>();
  function ok<R>(name: string, result: ToolResult<R>): Extract<ToolResult<R>, { ok: true }> {
    called.add(name);
    if (!result.ok) throw new Error(`${name} failed: ${result.failure.kind} ${result.failure.message}`);
    return result;
  }
  beforeAll(async () => {
    clearHttpEraCache();
    if (transport === "stdio")
      caller = createStdioCaller({ name: "everything", command: process.execPath, args: [bin, "stdio"], capabilities: {} });
    else {
      const started = await startEverything(transport, (pids) => leaks.track(pids));
      child = started.child;
      const url = `http://127.0.0.1:${started.port}/${transport === "sse" ? "sse" : "mcp"}`;
      caller = createHttpCaller({ name: "everything", url, capabilities: {} });
    }
    everything = createEverythingClient(caller);
  });
  afterAll(async () => {
    await caller.close();
    await stopEverything(child);
  });

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
  });

  it("gets every pulled prompt and reads every pulled resource and template through the generated typed methods", async () => {
    const surface = everythingCatalogue.surface;
    const got = new Set<string>();
    const prompt = async (name: string, result: ReturnType<EverythingClient["getSimplePromptPrompt"]>) => {
      const r = await result;
      if (!r.ok) throw new Error(`prompt ${name}: ${r.failure.message}`);
      expect(r.value.messages.length, name).toBeGreaterThan(0);
      got.add(name);
      return JSON.stringify(r.value.messages);
    };
    await prompt("simple-prompt", everything.getSimplePromptPrompt());
    expect(await prompt("args-prompt", everything.getArgsPromptPrompt({ city: "Lyon", state: "Rhône" }))).toContain("Lyon");
    expect(
      await prompt("completable-prompt", everything.getCompletablePromptPrompt({ department: "Engineering", name: "Alice" })),
    ).toContain("Engineering");
    expect(await prompt("resource-prompt", everything.getResourcePromptPrompt({ resourceType: "Text", resourceId: "2" }))).toContain(
      "demo://resource/dynamic/text/2",
    );
    expect([...got].sort()).toEqual(Object.keys(surface?.prompts ?? {}).sort());

    const docs: [string, () => ReturnType<EverythingClient["readArchitectureMd"]>][] = [
      ["architecture.md", everything.readArchitectureMd],
      ["extension.md", everything.readExtensionMd],
      ["features.md", everything.readFeaturesMd],
      ["how-it-works.md", everything.readHowItWorksMd],
      ["instructions.md", everything.readInstructionsMd],
      ["startup.md", everything.readStartupMd],
      ["structure.md", everything.readStructureMd],
    ];
    const read = new Set<string>();
    for (const [doc, reader] of docs) {
      const r = await reader();
      if (!r.ok) throw new Error(`${doc}: ${r.failure.message}`);
      const uri = `demo://resource/static/document/${doc}`;
      expect(r.value[0]?.uri).toBe(uri);
      expect(r.value[0] && "text" in r.value[0] && r.value[0].text.length).toBeGreaterThan(0);
      read.add(uri);
    }
    expect([...read].sort()).toEqual(Object.keys(surface?.resources ?? {}).sort());

    const text = await everything.readDynamicTextResource({ resourceId: "7" });
    expect(text.ok && text.value[0]).toMatchObject({ uri: "demo://resource/dynamic/text/7", mimeType: "text/plain" });
    const blob = await everything.readDynamicBlobResource({ resourceId: "7" });
    expect(blob.ok && blob.value[0] && "blob" in blob.value[0] && blob.value[0].uri).toBe("demo://resource/dynamic/blob/7");
    expect(Object.keys(surface?.resourceTemplates ?? {}).sort()).toEqual([
      "demo://resource/dynamic/blob/{resourceId}",
      "demo://resource/dynamic/text/{resourceId}",
    ]);
    // The server's own check: a template variable that must be an integer.
    const bad = await everything.readDynamicTextResource({ resourceId: "seven" });
    expect(bad.ok).toBe(false);
  });

  it("drift of prompts, resources and templates against the real server: each named with its server and what changed", async () => {
    const surface = everythingCatalogue.surface;
    if (!surface?.prompts || !surface.resources || !surface.resourceTemplates || !surface.snapshots) throw new Error("no pulled surface");
    // The lock as if pulled from an older build: one prompt described differently, one resource
    // with another mimeType, a retired template, and the simple prompt not yet there.
    const argsPrompt = { ...(surface.snapshots.prompts?.["args-prompt"] as object), description: "Old text of the args prompt" };
    const doc = "demo://resource/static/document/features.md";
    const features = { ...(surface.snapshots.resources?.[doc] as object), mimeType: "text/plain" };
    const { "simple-prompt": _added, ...prompts } = surface.prompts;
    const stale = {
      ...everythingCatalogue,
      surface: {
        prompts: { ...prompts, "args-prompt": fingerprintEntry(argsPrompt) },
        resources: { ...surface.resources, [doc]: fingerprintEntry(features) },
        resourceTemplates: { ...surface.resourceTemplates, "demo://retired/{id}": "sha256:old" },
        snapshots: { prompts: { "args-prompt": argsPrompt }, resources: { [doc]: features } },
      },
    };
    const warnings: string[] = [];
    const warned = await checkDrift(caller, stale, { onWarning: (m) => warnings.push(m) });
    expect(warned.ok && warned.drift).toEqual([]);
    // gzip-file-as-resource (called above, outputType "resource") registered a session resource:
    // live, not in the lock. Resources a server adds at run time are reported like any other drift.
    const session = "demo://resource/session/hi.txt.gz";
    expect(warned.ok && warned.surface?.map((d) => `${d.kind} ${d.item} ${d.change}`)).toEqual([
      "prompt args-prompt changed",
      "prompt simple-prompt added",
      `resource ${session} added`,
      `resource ${doc} changed`,
      "resourceTemplate demo://retired/{id} removed",
    ]);
    expect(warnings).toEqual([
      'server "everything": prompt "args-prompt" changed since the pull (description: "Old text of the args prompt" -> "A prompt with two arguments, one required and one optional"); run toolwright pull',
      'server "everything": prompt "simple-prompt" is live but not in the lock (added since the pull)',
      `server "everything": resource "${session}" is live but not in the lock (added since the pull)`,
      `server "everything": resource "${doc}" changed since the pull (mimeType: "text/plain" -> "text/markdown"); run toolwright pull`,
      'server "everything": resource template "demo://retired/{id}" is in the lock but the server no longer lists it (removed)',
    ]);
    const failed = await checkDrift(caller, stale, { policy: "fail" });
    expect(!failed.ok && failed.message).toBe(
      `server "everything": live catalogue drifted from the lock: prompt "args-prompt" (changed), prompt "simple-prompt" (added), resource "${session}" (added), resource "${doc}" (changed), resource template "demo://retired/{id}" (removed)`,
    );
  });
});
