/**
 * Interop: the stdio caller plus client features against the real server-everything, every tool.
 * gzip-file-as-resource is called only with data: URIs (no network).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { CallResponse } from "@toolwright/runtime/caller";
import { createClientFeatures, type LogEntry, urlElicitationsRequired } from "@toolwright/runtime/client-features";
import type { ContentBlock, Progress } from "@toolwright/runtime/protocol";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const everything = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

const open: StdioCaller[] = [];
function start(options: Partial<Parameters<typeof createStdioCaller>[0]> = {}): StdioCaller {
  const caller = createStdioCaller({ command: process.execPath, args: [everything, "stdio"], name: "everything", ...options });
  open.push(caller);
  return caller;
}

function resultOf(response: CallResponse) {
  if (!response.ok) throw new Error(`call failed: ${response.failure.kind} ${response.failure.message}`);
  return response.value;
}
const texts = (content: readonly ContentBlock[]) => content.flatMap((b) => (b.type === "text" ? [b.text] : []));
const types = (content: readonly ContentBlock[]) => content.map((b) => b.type);

// Everything this client can do, declared at once.
const elicited: unknown[] = [];
const sampled: unknown[] = [];
const logs: LogEntry[] = [];
const listChanged: string[] = [];
let firstLog: (entry: LogEntry) => void = () => {};
const features = createClientFeatures({
  roots: { list: [{ uri: "file:///tmp/tw-root", name: "tw-root" }] },
  elicitation: {
    form: (request) => {
      elicited.push(request);
      return { action: "accept", content: { name: "Ada Lovelace", check: true } };
    },
    url: (request) => {
      elicited.push(request);
      return { action: "accept" };
    },
  },
  sampling: {
    createMessage: (request) => {
      sampled.push(request);
      return { role: "assistant", content: { type: "text", text: "sampled by toolwright" }, model: "fake-model", stopReason: "endTurn" };
    },
  },
  onLog: (entry) => {
    logs.push(entry);
    firstLog(entry);
  },
});

let full: StdioCaller;
let toolNames: string[] = [];
beforeAll(async () => {
  full = createStdioCaller({
    command: process.execPath,
    args: [everything, "stdio"],
    name: "everything",
    capabilities: features.capabilities,
    handlers: features.handlers,
    onNotification: (n) => {
      if (!features.onNotification(n)) listChanged.push(n.method);
    },
  });
  const listed = await full.listTools();
  if (!listed.ok) throw new Error(listed.failure.message);
  toolNames = listed.value.map((t) => t.name);
});
afterAll(async () => {
  await full.close();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe("server-everything over stdio: tools", () => {
  it("lists the conditional tools only because roots, elicitation and sampling were declared", () => {
    for (const name of [
      "echo",
      "get-annotated-message",
      "get-env",
      "get-resource-links",
      "get-resource-reference",
      "get-structured-content",
      "get-sum",
      "get-tiny-image",
      "gzip-file-as-resource",
      "toggle-simulated-logging",
      "toggle-subscriber-updates",
      "trigger-long-running-operation",
      "simulate-research-query",
      "get-roots-list",
      "trigger-elicitation-request",
      "trigger-url-elicitation",
      "trigger-sampling-request",
    ]) {
      expect(toolNames).toContain(name);
    }
    expect(listChanged).toContain("notifications/tools/list_changed");
  });

  it("echo, get-sum and get-structured-content", async () => {
    expect(texts(resultOf(await full.callTool({ name: "echo", arguments: { message: "hi" } })).content)).toEqual(["Echo: hi"]);
    expect(texts(resultOf(await full.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } })).content).join(" ")).toContain("42");
    const structured = resultOf(await full.callTool({ name: "get-structured-content", arguments: { location: "Chicago" } }));
    expect(structured.structuredContent).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
  });

  it("content blocks: image, annotations, resource_link and embedded resource", async () => {
    const image = resultOf(await full.callTool({ name: "get-tiny-image", arguments: {} }));
    expect(types(image.content)).toEqual(["text", "image", "text"]);
    const img = image.content[1];
    expect(img?.type === "image" && img.mimeType === "image/png" && Buffer.from(img.data, "base64").subarray(1, 4).toString()).toBe("PNG");

    const annotated = resultOf(
      await full.callTool({ name: "get-annotated-message", arguments: { messageType: "error", includeImage: true } }),
    );
    expect(types(annotated.content)).toContain("image");
    expect(annotated.content[0]).toMatchObject({ type: "text", annotations: { priority: 1 } });

    const links = resultOf(await full.callTool({ name: "get-resource-links", arguments: { count: 2 } }));
    expect(types(links.content)).toEqual(["text", "resource_link", "resource_link"]);
    expect(links.content[1]).toMatchObject({ type: "resource_link", uri: expect.stringMatching(/^demo:\/\//), name: expect.any(String) });

    const embedded = resultOf(await full.callTool({ name: "get-resource-reference", arguments: { resourceType: "Text", resourceId: 1 } }));
    expect(types(embedded.content)).toEqual(["text", "resource", "text"]);
    expect(embedded.content[1]).toMatchObject({
      type: "resource",
      resource: { uri: "demo://resource/dynamic/text/1", text: expect.any(String) },
    });

    const blob = resultOf(await full.callTool({ name: "get-resource-reference", arguments: { resourceType: "Blob", resourceId: 2 } }));
    expect(blob.content[1]).toMatchObject({ type: "resource", resource: { blob: expect.any(String) } });
  });

  it("gzip-file-as-resource with data: URIs, as embedded resource and as resource_link", async () => {
    const data = `data:text/plain;base64,${Buffer.from("hello toolwright").toString("base64")}`;
    const asResource = resultOf(
      await full.callTool({ name: "gzip-file-as-resource", arguments: { name: "a.gz", data, outputType: "resource" } }),
    );
    const block = asResource.content[0];
    expect(block?.type).toBe("resource");
    if (block?.type !== "resource" || !block.resource.blob) throw new Error("no blob");
    const { gunzipSync } = await import("node:zlib");
    expect(gunzipSync(Buffer.from(block.resource.blob, "base64")).toString()).toBe("hello toolwright");
    const asLink = resultOf(
      await full.callTool({
        name: "gzip-file-as-resource",
        arguments: { name: "b.gz", data: "data:text/plain,hi", outputType: "resourceLink" },
      }),
    );
    expect(asLink.content[0]).toMatchObject({ type: "resource_link", name: "b.gz", mimeType: "application/gzip" });
  });

  it("progress notifications from trigger-long-running-operation", async () => {
    const progress: Progress[] = [];
    const result = resultOf(
      await full.callTool(
        { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
        { onProgress: (p) => progress.push(p) },
      ),
    );
    expect(texts(result.content).join("")).toContain("completed");
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it("form elicitation: the handler is asked, and schema defaults are applied to the accepted content", async () => {
    elicited.length = 0;
    const result = resultOf(await full.callTool({ name: "trigger-elicitation-request", arguments: {} }));
    expect(elicited).toHaveLength(1);
    expect(elicited[0]).toMatchObject({ mode: "form", requestedSchema: { properties: { name: { type: "string" } } } });
    const raw = texts(result.content).join("\n");
    expect(raw).toContain("Ada Lovelace");
    // firstLine has a default in the server's schema; we never set it, so it must come from the default.
    expect(raw).toContain("It was a dark and stormy night.");
  });

  it("url elicitation reaches the url handler", async () => {
    elicited.length = 0;
    const result = resultOf(
      await full.callTool({ name: "trigger-url-elicitation", arguments: { url: "https://example.test/consent", elicitationId: "el-1" } }),
    );
    expect(elicited).toEqual([{ mode: "url", message: expect.any(String), url: "https://example.test/consent", elicitationId: "el-1" }]);
    expect(texts(result.content).join("\n")).toContain("el-1");
  });

  it("URLElicitationRequiredError (-32042): the failure carries the URL elicitations, answered by the url handler", async () => {
    elicited.length = 0;
    const response = await full.callTool({
      name: "trigger-url-elicitation",
      arguments: { url: "https://example.test/consent", elicitationId: "el-2", errorPath: true },
    });
    expect(response.ok).toBe(false);
    if (response.ok) return;
    expect(response.failure.rpc?.code).toBe(-32042);
    const wanted = urlElicitationsRequired(response.failure);
    expect(wanted).toEqual([
      { mode: "url", url: expect.stringMatching(/^https:\/\//), elicitationId: expect.any(String), message: expect.any(String) },
    ]);
    expect(await features.answerUrlElicitations(response.failure)).toBe(true);
    expect(elicited).toEqual(wanted);
  });

  it("sampling: trigger-sampling-request goes through the createMessage hook", async () => {
    sampled.length = 0;
    const result = resultOf(await full.callTool({ name: "trigger-sampling-request", arguments: { prompt: "tell me", maxTokens: 9 } }));
    expect(sampled).toHaveLength(1);
    expect(sampled[0]).toMatchObject({ maxTokens: 9, messages: [{ role: "user" }] });
    expect(texts(result.content).join("")).toContain("sampled by toolwright");
  });

  it("roots: get-roots-list reports the roots we declared", async () => {
    const result = resultOf(await full.callTool({ name: "get-roots-list", arguments: {} }));
    expect(texts(result.content).join("")).toContain("file:///tmp/tw-root");
  });

  it("logging: toggle-simulated-logging delivers notifications/message to onLog", async () => {
    const got = new Promise<LogEntry>((resolve) => {
      firstLog = resolve;
    });
    const before = logs.length;
    resultOf(await full.callTool({ name: "toggle-simulated-logging", arguments: {} }));
    const entry = await got;
    expect(logs.length).toBeGreaterThan(before);
    expect(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]).toContain(entry.level);
    resultOf(await full.callTool({ name: "toggle-simulated-logging", arguments: {} })); // off again
  });

  it("toggle-subscriber-updates answers", async () => {
    const r = resultOf(await full.callTool({ name: "toggle-subscriber-updates", arguments: {} }));
    expect(texts(r.content).join("")).toMatch(/resource updated notifications/);
    resultOf(await full.callTool({ name: "toggle-subscriber-updates", arguments: {} }));
  });

  it("simulate-research-query (taskSupport required) runs through a task automatically", async () => {
    const response = await full.callTool({ name: "simulate-research-query", arguments: { topic: "mcp" } }, { timeoutMs: 30_000 });
    const result = resultOf(response);
    expect(result.isError).not.toBe(true);
    expect(texts(result.content).join("\n")).toContain("Research Report: mcp");
    // The connection survives.
    expect(texts(resultOf(await full.callTool({ name: "echo", arguments: { message: "still" } })).content)).toEqual(["Echo: still"]);
  });
});

describe("server-everything over stdio: capability-conditional behaviour", () => {
  it("with no client capabilities, no elicitation/sampling/roots tools are offered", async () => {
    const bare = start();
    const listed = await bare.listTools();
    if (!listed.ok) throw new Error(listed.failure.message);
    const names = listed.value.map((t) => t.name);
    expect(names).toContain("echo");
    for (const name of ["trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request", "get-roots-list"]) {
      expect(names).not.toContain(name);
    }
  });

  it("url-only elicitation: the server's form request is refused with -32602 and the tool reports it", async () => {
    const urlOnly = createClientFeatures({ elicitation: { url: () => ({ action: "decline" }) } });
    const caller = start({ capabilities: urlOnly.capabilities, handlers: urlOnly.handlers });
    const result = resultOf(await caller.callTool({ name: "trigger-elicitation-request", arguments: {} }));
    expect(result.isError).toBe(true);
    expect(texts(result.content).join("")).toMatch(/-32602.*form/);
  });

  it("a server-to-client request without a handler gets -32601 (sampling declared, no handler)", async () => {
    const caller = start({ capabilities: { sampling: {} } });
    const result = resultOf(await caller.callTool({ name: "trigger-sampling-request", arguments: { prompt: "x" } }));
    expect(result.isError).toBe(true);
    expect(texts(result.content).join("")).toContain("-32601");
  });

  it("list_changed sent on connect is delivered, not lost", async () => {
    const seen: string[] = [];
    const changed = new Promise<void>((resolve) => {
      const caller = start({
        capabilities: { roots: { listChanged: true } },
        handlers: new Map([["roots/list", () => ({ roots: [] })]]),
        onNotification: (n) => {
          seen.push(n.method);
          if (n.method === "notifications/tools/list_changed") resolve();
        },
      });
      void caller.connect();
    });
    await changed;
    expect(seen[0]).toBe("notifications/tools/list_changed");
  });

  it("get-env: a parent secret is not visible unless named in env", async () => {
    const previous = process.env.SECRET_TOKEN;
    process.env.SECRET_TOKEN = "tw-secret-value-123";
    try {
      const hidden = start();
      const env1 = texts(resultOf(await hidden.callTool({ name: "get-env", arguments: {} })).content).join("");
      expect(env1).toContain("PATH");
      expect(env1).not.toContain("SECRET_TOKEN");
      expect(env1).not.toContain("tw-secret-value-123");
      const named = start({ env: ["SECRET_TOKEN", "TW_LITERAL=yes"] });
      const env2 = texts(resultOf(await named.callTool({ name: "get-env", arguments: {} })).content).join("");
      expect(env2).toContain("tw-secret-value-123");
      expect(env2).toContain("TW_LITERAL");
    } finally {
      if (previous === undefined) delete process.env.SECRET_TOKEN;
      else process.env.SECRET_TOKEN = previous;
    }
  });
});

describe("list_changed before the initialize result (scripted stdio server)", () => {
  // A tiny server that writes list_changed before it answers initialize, like server-everything
  // does when initialize and initialized arrive together.
  const script = `
    const rl = require("node:readline").createInterface({ input: process.stdin });
    const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
    rl.on("line", (line) => {
      const m = JSON.parse(line);
      if (m.method === "initialize") {
        send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
        send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "early log" } });
        send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: "early", version: "1" } } });
      } else if (m.method === "tools/list") {
        send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "late", inputSchema: { type: "object" } }] } });
      }
    });`;

  it("delivers the notifications in wire order before connect() resolves", async () => {
    const events: string[] = [];
    const f = createClientFeatures({ onLog: (e) => events.push(`log:${String(e.data)}`) });
    const caller = start({
      args: ["-e", script],
      capabilities: f.capabilities,
      onNotification: (n) => {
        if (!f.onNotification(n)) events.push(n.method);
      },
    });
    const handshake = await caller.connect();
    events.push("connected");
    expect(handshake.ok).toBe(true);
    expect(events).toEqual(["notifications/tools/list_changed", "log:early log", "connected"]);
    const listed = await caller.listTools();
    expect(listed.ok && listed.value.map((t) => t.name)).toEqual(["late"]);
  });
});
