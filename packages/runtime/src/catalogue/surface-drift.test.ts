import { describe, expect, it } from "vitest";
import type { Caller } from "../caller/caller.js";
import { checkDrift } from "./drift.js";
import { fingerprintEntry } from "./fingerprint.js";
import { compareSurface } from "./surface-drift.js";

const prompt = { name: "greet", description: "Greets", arguments: [{ name: "who", required: true }] };
const readme = { uri: "docs://readme", name: "readme", mimeType: "text/markdown" };
const pinned = {
  prompts: { greet: fingerprintEntry(prompt) },
  resources: { "docs://readme": fingerprintEntry(readme) },
  snapshots: { prompts: { greet: prompt } },
};

function caller(capabilities: { [key: string]: unknown }, lists: { prompts?: object[]; resources?: object[] }): Caller {
  const answer = (value: object[] | undefined) => async () =>
    value ? { ok: true, value } : { ok: false, failure: { kind: "unavailable", message: "down", retryable: true } };
  return {
    server: "docs",
    callTool: async () => ({ ok: true, value: { content: [] } }),
    listTools: async () => ({ ok: true, value: [] }),
    handshake: { protocolVersion: "2025-11-25", capabilities },
    listPrompts: answer(lists.prompts),
    listResources: answer(lists.resources),
    listResourceTemplates: answer([]),
  } as unknown as Caller;
}

describe("surface drift", () => {
  it("compares only the lists the lock pins, field by field when the pulled entry is known", () => {
    const changed = { ...prompt, arguments: [{ name: "who" }] };
    expect(compareSurface(pinned, { prompts: [changed], resources: [readme, { uri: "docs://new", name: "new" }] })).toEqual([
      {
        kind: "prompt",
        item: "greet",
        change: "changed",
        expected: pinned.prompts.greet,
        actual: fingerprintEntry(changed),
        fields: [{ field: "arguments[0].required", before: "true" }],
      },
      { kind: "resource", item: "docs://new", change: "added", actual: fingerprintEntry({ uri: "docs://new", name: "new" }) },
    ]);
    // Templates are not pinned by this lock: a live one is not drift.
    expect(compareSurface(pinned, { prompts: [prompt], resources: [readme], resourceTemplates: [{ uriTemplate: "x://{a}" }] })).toEqual([]);
  });

  it("a server that stopped announcing prompts lost them; a failing list fails the check naming it", async () => {
    const expected = { tools: {}, surface: pinned };
    const gone = await checkDrift(caller({ resources: {} }, { resources: [readme] }), expected, { policy: "fail" });
    expect(!gone.ok && gone.message).toBe('server "docs": live catalogue drifted from the lock: prompt "greet" (removed)');
    const down = await checkDrift(caller({ prompts: {}, resources: {} }, { resources: [readme] }), expected);
    expect(!down.ok && down.message).toBe('server "docs": cannot list prompts: down');
    const same = await checkDrift(caller({ prompts: {}, resources: {} }, { prompts: [prompt], resources: [readme] }), expected, {
      policy: "fail",
    });
    expect(same).toEqual({ ok: true, server: "docs", drift: [] });
    // Under block-changed a drifted prompt is reported, not hidden (only tools can be).
    const warnings: string[] = [];
    const changed = caller({ prompts: {}, resources: {} }, { prompts: [{ ...prompt, description: "Greets loudly" }], resources: [readme] });
    const blocked = await checkDrift(changed, expected, { policy: "block-changed", onWarning: (m) => warnings.push(m) });
    expect(blocked.ok && blocked.surface?.map((d) => d.item)).toEqual(["greet"]);
    expect(warnings).toEqual([
      'server "docs": prompt "greet" changed since the pull (description: "Greets" -> "Greets loudly"); run toolwright pull',
    ]);
  });
});
