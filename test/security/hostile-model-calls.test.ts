/**
 * Hostile model output at the planner boundary: tool names that are prototype keys or 1 MB long,
 * arguments that are not JSON, not objects, or nested 100,000 levels deep. Each becomes a
 * `rejection` value and nothing is sent, nothing throws, and a huge name is compared and shown only
 * by a bounded prefix (the suggestion search is quadratic: it took ~47 s for 100 kB and 50 tools).
 */
import { createInMemoryCaller, createRuntime, toolRequestFromModelCall } from "@toolwright/runtime";
import { describe, expect, it } from "vitest";
import { registerFilesToolset } from "../golden/refs-recursive/expected/files/register.gen.js";

function setup() {
  const caller = createInMemoryCaller("file-server", {
    ship: () => ({ content: [{ type: "text", text: "shipped" }] }),
    mkdirs: () => ({ content: [], structuredContent: { created: { name: "r" } } }),
    linked: () => ({ content: [{ type: "text", text: "ok" }] }),
  });
  const runtime = createRuntime();
  registerFilesToolset(runtime, caller);
  return { runtime, caller };
}

describe("hostile model tool calls", () => {
  it.each(["__proto__", "constructor", "toString", "hasOwnProperty", "files.__proto__", "", " ", "\u0000"])(
    "unknown name %j: tool_unavailable rejection, nothing sent",
    async (name) => {
      const { runtime, caller } = setup();
      const request = toolRequestFromModelCall({ id: "c1", name, arguments: "{}" }, runtime);
      expect(request.rejection?.recovery.action).toBe("replan");
      const result = await runtime.execute(request);
      expect(result.ok).toBe(false);
      expect(caller.calls).toEqual([]);
    },
  );

  it("a 1 MB tool name: rejected with a capped message and close suggestions, without stalling", () => {
    const { runtime } = setup();
    const name = `files_ship${"_x".repeat(512 * 1024)}`;
    const request = toolRequestFromModelCall({ name, arguments: "{}" }, runtime);
    expect(request.rejection).toBeDefined();
    expect(request.rejection?.message.length).toBeLessThan(400);
    expect(JSON.stringify(request.rejection)).toContain("files_ship");
  });

  it.each([
    ["malformed JSON", '{"to": {"street": '],
    ["a JSON array", "[1,2,3]"],
    ["a JSON string", '"hello"'],
    ["a number", 42],
    ["100,000 levels of nesting", `${'{"next":'.repeat(100_000)}{"value":"x"}${"}".repeat(100_000)}`],
  ])("arguments that are %s: a rejection, nothing sent", async (_what, args) => {
    const { runtime, caller } = setup();
    const tool = typeof args === "string" && args.startsWith('{"next"') ? "files.linked" : "files.ship";
    const request = toolRequestFromModelCall({ name: tool, arguments: args }, runtime);
    expect(request.rejection).toBeDefined();
    expect(request.rejection?.kind).toBe("invalid_call");
    const result = await runtime.execute(request);
    expect(result.ok).toBe(false);
    expect(caller.calls).toEqual([]);
  });
});
