/**
 * The generated typed readers (examples/everything: `get<Prompt>Prompt(args)`, `read<Resource>()`,
 * template readers from RFC 6570 templates) against the real server-everything over stdio,
 * Streamable HTTP and SSE: every declared prompt got, every declared resource read, both templates
 * instantiated; the live catalogue matches the declarations.
 */
import type { ChildProcess } from "node:child_process";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEverythingClient, type EverythingClient } from "../../examples/everything/src/gen/everything/index.js";
import { EVERYTHING, startEverything, stopEverything } from "../support/everything-server.js";
import { createLeakCheck } from "../support/leak-check.js";

const leaks = createLeakCheck();
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  for (const [what, found] of Object.entries(report)) expect(found, what).toEqual([]);
});

const DOCS = ["architecture", "extension", "features", "howItWorks", "instructions", "startup", "structure"] as const;

describe.each(["stdio", "streamableHttp", "sse"] as const)("generated typed readers over %s", (transport) => {
  let child: ChildProcess | undefined;
  let caller: SessionCaller;
  let client: EverythingClient;
  beforeAll(async () => {
    clearHttpEraCache();
    if (transport === "stdio") caller = createStdioCaller({ command: process.execPath, args: [EVERYTHING, "stdio"], name: "everything" });
    else {
      const started = await startEverything(transport, (pids) => leaks.track(pids));
      child = started.child;
      caller = createHttpCaller({ url: `http://127.0.0.1:${started.port}/${transport === "sse" ? "sse" : "mcp"}`, name: "everything" });
    }
    client = createEverythingClient(caller);
  });
  afterAll(async () => {
    await caller.close();
    await stopEverything(child);
  });

  it("gets every declared prompt with typed arguments", async () => {
    const simple = await client.getSimplePromptPrompt();
    expect(simple.ok && simple.value.messages.length).toBeGreaterThan(0);
    const args = await client.getArgsPromptPrompt({ city: "Lyon", state: "Rhône" });
    expect(JSON.stringify(args.ok && args.value.messages)).toContain("Lyon");
    const embedded = await client.getResourcePromptPrompt({ resourceType: "Text", resourceId: "2" });
    expect(embedded.ok && embedded.value.messages.some((m) => m.content.type === "resource")).toBe(true);
    const completable = await client.getCompletablePromptPrompt({ department: "Engineering", name: "Alice" });
    expect(completable.ok).toBe(true);
    // The declared prompts are the live ones.
    const live = await caller.listPrompts();
    expect(live.ok && live.value.map((p) => p.name).sort()).toEqual([
      "args-prompt",
      "completable-prompt",
      "resource-prompt",
      "simple-prompt",
    ]);
  });

  it("reads every declared resource, and the declarations cover the live list", async () => {
    for (const doc of DOCS) {
      const read = await client[`read${doc[0]?.toUpperCase()}${doc.slice(1)}Doc` as `read${Capitalize<(typeof DOCS)[number]>}Doc`]();
      if (!read.ok) throw new Error(`${doc}: ${read.failure.message}`);
      expect(read.value[0] && "text" in read.value[0] && read.value[0].text.length).toBeGreaterThan(0);
    }
    const live = await caller.listResources();
    expect(live.ok && live.value.length).toBe(DOCS.length);
  });

  it("template readers expand their typed parameters", async () => {
    const text = await client.readDynamicText({ resourceId: "5" });
    expect(text.ok && text.value[0]?.uri).toBe("demo://resource/dynamic/text/5");
    const blob = await client.readDynamicBlob({ resourceId: "5" });
    expect(blob.ok && blob.value[0] && "blob" in blob.value[0]).toBe(true);
    const bad = await client.readDynamicText({ resourceId: "not-a-number" });
    expect(bad.ok).toBe(false);
  });
});
