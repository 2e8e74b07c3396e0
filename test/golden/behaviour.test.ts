/**
 * Behaviour of the generated golden code: the precompiled validators turn bad payloads into field
 * issues with the MISSION B3 constraint set (through the runtime's ajv helpers and format checks),
 * the agent registration honours its subset, and hostile names still work at run time.
 */
import { createInMemoryCaller, createRuntime } from "@toolwright/runtime";
import { describe, expect, it } from "vitest";
import { createResearchBotRuntime, registerResearchBotAgent, researchBotRunPolicy } from "./agent-subset/expected/agents/index.js";
import { docsSpecs } from "./agent-subset/expected/docs/index.js";
import { webSpecs } from "./agent-subset/expected/web/index.js";
import { inventorySpecs, putItemsSpec } from "./composites/expected/inventory/index.js";
import { createMyWeirdToolsClient, myWeirdToolsSpecs, protoSpec } from "./hostile-names/expected/my-weird-tools/index.js";
import { alphaSpecs } from "./multi-toolset/expected/alpha/index.js";
import { alphaBetaSpecs } from "./multi-toolset/expected/alpha-beta/index.js";
import { legacySpecs, plotSpec } from "./raw-draft07/expected/legacy/index.js";
import { filesSpecs, linkedSpec, mkdirsSpec } from "./refs-recursive/expected/files/index.js";
import { makeUserSpec, scalarsSpecs } from "./scalars/expected/scalars/index.js";
import { areaSpec, shapesSpecs } from "./unions/expected/shapes/index.js";

const specLists = {
  docsSpecs,
  webSpecs,
  inventorySpecs,
  myWeirdToolsSpecs,
  alphaSpecs,
  alphaBetaSpecs,
  legacySpecs,
  filesSpecs,
  scalarsSpecs,
  shapesSpecs,
};

const user = { email: "ada@example.com", handle: "ada", role: "owner" };

function issues(decoded: { ok: boolean; issues?: readonly unknown[] }): readonly unknown[] {
  return decoded.ok ? [] : (decoded.issues ?? []);
}

describe("generated validators report field issues", () => {
  it("accepts a valid payload and the design's example", () => {
    expect(makeUserSpec.decodePayload(user).ok).toBe(true);
    expect(makeUserSpec.decodePayload(JSON.parse(makeUserSpec.exampleJson ?? "null")).ok).toBe(true);
  });

  it.each([
    ["missing_field", {}, "email"],
    ["invalid_format", { ...user, email: "not-an-email" }, "email"],
    ["invalid_format", { ...user, born: "2023-02-29" }, "born"],
    ["invalid_pattern", { ...user, handle: "Ada!" }, "handle"],
    ["invalid_length", { ...user, handle: "a".repeat(17) }, "handle"],
    ["invalid_range", { ...user, age: 151 }, "age"],
    ["invalid_range", { ...user, score: 1 }, "score"],
    ["invalid_enum_value", { ...user, role: "admin" }, "role"],
    ["invalid_field_type", { ...user, admin: "yes" }, "admin"],
    ["unknown_field", { ...user, nickname: "A" }, "nickname"],
  ])("%s (%j)", (constraint, payload, field) => {
    expect(issues(makeUserSpec.decodePayload(payload))).toContainEqual(expect.objectContaining({ field, constraint }));
  });

  it("leap days and date-times go through the runtime's format checks", () => {
    expect(makeUserSpec.decodePayload({ ...user, born: "2024-02-29" }).ok).toBe(true);
    const good = { id: "0b3c1b7e-8d4f-4c2a-9a57-2f1e8d6c5b4a", created: "2026-11-29T18:00:00Z" };
    expect(makeUserSpec.decodeResult?.(good).ok).toBe(true);
    expect(issues(makeUserSpec.decodeResult?.({ ...good, created: "yesterday" }) ?? { ok: true })).toEqual([
      expect.objectContaining({ field: "created", constraint: "invalid_format", expected: "date-time" }),
    ]);
  });

  it("nested arrays and objects give dotted field paths; uniqueItems is a length issue", () => {
    const payload = { bin: { aisle: 0, shelf: "A" }, items: [{ sku: "bad", count: 1 }], labels: ["x", "x"] };
    const found = issues(putItemsSpec.decodePayload(payload));
    expect(found).toContainEqual(expect.objectContaining({ field: "bin.aisle", constraint: "invalid_range" }));
    expect(found).toContainEqual(expect.objectContaining({ field: "items[0].sku", constraint: "invalid_pattern" }));
    expect(found).toContainEqual(expect.objectContaining({ field: "labels", constraint: "invalid_length" }));
    expect(issues(putItemsSpec.decodePayload({ ...payload, bin: { aisle: 1, shelf: "A" }, items: [], labels: [] }))).toEqual([
      expect.objectContaining({ field: "items", constraint: "invalid_length" }),
    ]);
  });

  it("recursive $ref types validate at any depth", () => {
    const deep = { root: { name: "a", children: [{ name: "b", children: [{ name: 3 }] }] } };
    expect(issues(mkdirsSpec.decodePayload(deep))).toContainEqual(
      expect.objectContaining({ field: "root.children[0].children[0].name", constraint: "invalid_field_type" }),
    );
    expect(linkedSpec.decodePayload({ value: "a", next: { value: "b", next: { value: "c" } } }).ok).toBe(true);
    expect(issues(linkedSpec.decodePayload({ value: "a", next: { next: {} } }))).toContainEqual(
      expect.objectContaining({ field: "next.value", constraint: "missing_field" }),
    );
  });

  it("draft-07 tuples and definitions are upgraded to 2020-12", () => {
    expect(plotSpec.decodePayload({ points: [[1, 2]] }).ok).toBe(true);
    expect(plotSpec.decodePayload({ points: [[1, 2, 3]] }).ok).toBe(false);
    expect(plotSpec.decodePayload({ points: [] }).ok).toBe(false);
  });

  it("oneOf, nullable and const", () => {
    expect(areaSpec.decodePayload({ shape: { kind: "circle", radius: 1 }, unit: null }).ok).toBe(true);
    expect(areaSpec.decodePayload({ shape: { kind: "circle", radius: 0 }, unit: "m" }).ok).toBe(false);
    expect(issues(areaSpec.decodePayload({ shape: { kind: "rect", width: 1, height: 2 }, unit: "km" }))).toContainEqual(
      expect.objectContaining({ field: "unit", constraint: "invalid_enum_value" }),
    );
    expect(areaSpec.decodeResult?.({ area: 1, unit: "m", mode: 2 }).ok).toBe(false);
  });

  it("inherited names (constructor) do not count as present", () => {
    expect(issues(protoSpec.decodePayload({}))).toEqual([expect.objectContaining({ field: "constructor", constraint: "missing_field" })]);
    expect(protoSpec.decodePayload({ constructor: 1 }).ok).toBe(true);
  });
});

describe("example JSON", () => {
  const all = [...Object.values(specLists).flat()];

  it("every spec's example (declared or synthesized) passes its own validator", () => {
    const withExample = all.filter((s) => s.exampleJson !== undefined);
    expect(withExample.length).toBeGreaterThan(15);
    for (const spec of withExample) expect(spec.decodePayload(JSON.parse(spec.exampleJson!)), spec.id).toMatchObject({ ok: true });
  });
});

describe("generated registration", () => {
  it("hostile tool names keep their wire names and provider-safe names", async () => {
    const caller = createInMemoryCaller("weird", {
      ["__proto__"]: () => ({ content: [{ type: "text", text: "proto ok" }] }),
      検索: (args) => ({ content: [{ type: "text", text: `found ${String(args.q)}` }] }),
    });
    const client = createMyWeirdToolsClient(caller);
    expect(await client.u691cU7d22({ q: "x" })).toMatchObject({ ok: true, value: "found x" });
    expect(await client.proto({ constructor: 1 })).toMatchObject({ ok: true, value: "proto ok" });
    expect(caller.calls.map((c) => c.name)).toEqual(["検索", "__proto__"]);
    for (const spec of myWeirdToolsSpecs) expect(spec.providerName).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(myWeirdToolsSpecs.map((s) => s.providerName)).size).toBe(myWeirdToolsSpecs.length);
  });

  it("an agent registers only its subset", async () => {
    const docs = createInMemoryCaller("docs", {
      search: () => ({ content: [{ type: "text", text: "hits" }] }),
      read: () => ({ content: [{ type: "text", text: "doc" }] }),
      delete: () => ({ content: [{ type: "text", text: "deleted" }] }),
    });
    const web = createInMemoryCaller("web", { fetch: () => ({ content: [{ type: "text", text: "page" }] }) });
    const runtime = createRuntime();
    registerResearchBotAgent(runtime, { docs, web });
    expect(runtime.specs().map((s) => s.id)).toEqual(["docs.search", "docs.read", "web.fetch"]);
    const denied = await runtime.execute({ tool: "docs.delete", arguments: { id: "1" } });
    expect(denied.ok).toBe(false);
    expect(docs.calls).toHaveLength(0);
    expect(await runtime.execute({ tool: "docs.search", arguments: { q: "mcp" } })).toMatchObject({ ok: true, value: "hits" });
  });

  it("the agent runtime enforces the declared run policy", async () => {
    expect(researchBotRunPolicy).toEqual({ maxToolCalls: 20, maxConsecutiveFailedToolCalls: 3, timeBudget: 120_000, toolTimeout: 15_000 });
    const docs = createInMemoryCaller("docs", { search: () => ({ content: [{ type: "text", text: "hits" }] }) });
    const web = createInMemoryCaller("web", {});
    const runtime = createResearchBotRuntime({ docs, web });
    for (let i = 0; i < 20; i++) expect((await runtime.execute({ tool: "docs.search", arguments: { q: "x" } })).ok).toBe(true);
    const stopped = await runtime.execute({ tool: "docs.search", arguments: { q: "x" } });
    expect(stopped.ok).toBe(false);
    expect(docs.calls).toHaveLength(20);
  });
});
