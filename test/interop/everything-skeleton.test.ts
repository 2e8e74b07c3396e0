/**
 * The walking skeleton against the real @modelcontextprotocol/server-everything over stdio, through
 * the generated typed client: typed results, `isError` as domain_rejection, and invalid payloads
 * caught locally with nothing sent.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Caller, createRuntime } from "@toolwright/runtime";
import { type CallRequest, invokeTool } from "@toolwright/runtime/caller";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createEverythingClient,
  everythingRequests,
  type GetSumPayload,
  getSumSpec,
  registerEverythingToolset,
} from "../../examples/everything/src/gen/everything/index.js";
import {
  checkEverythingDrift,
  createEverythingClient as createLockedClient,
  everythingCatalogue,
} from "../golden/lock-catalogue/expected/everything/index.js";

const require = createRequire(import.meta.url);
const entry = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

let stdio: StdioCaller;
const sent: CallRequest[] = [];
/** The real caller, wrapped to record every request that reaches the wire. */
let counting: Caller;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(() => {
  stdio = createStdioCaller({ name: "everything", command: process.execPath, args: [entry, "stdio"] });
  counting = {
    server: stdio.server,
    callTool: (request, options) => {
      sent.push(request);
      return stdio.callTool(request, options);
    },
  };
});

let pid: number | undefined;
afterAll(async () => {
  await stdio.close();
  if (pid !== undefined) expect(isAlive(pid)).toBe(false);
});

describe("server-everything through the generated client", () => {
  it("echo returns the joined text", async () => {
    const client = createEverythingClient(counting);
    const result = await client.echo({ message: "hello toolwright" });
    pid = stdio.pid;
    expect(pid).toBeTypeOf("number");
    expect(result).toMatchObject({ ok: true, value: "Echo: hello toolwright" });
  });

  it("get-sum adds", async () => {
    const result = await createEverythingClient(counting).getSum({ a: 19.5, b: 22.5 });
    if (!result.ok) throw new Error(result.failure.message);
    expect(result.value).toContain("42");
  });

  it("get-structured-content returns a decoded, typed structured result", async () => {
    const result = await createEverythingClient(counting).getStructuredContent({ location: "Los Angeles" });
    if (!result.ok) throw new Error(result.failure.message);
    expect(typeof result.value.temperature).toBe("number");
    expect(typeof result.value.conditions).toBe("string");
    expect(typeof result.value.humidity).toBe("number");
    expect(result.structured).toEqual(result.value);
    expect(result.content[0]?.type).toBe("text");
  });

  it("isError from the server becomes domain_rejection (payload bypasses the local validator)", async () => {
    const before = sent.length;
    const lenient = { ...getSumSpec, decodePayload: (value: unknown) => ({ ok: true as const, value: value as GetSumPayload }) };
    const result = await invokeTool(counting, lenient, { a: 1 } as unknown as GetSumPayload);
    expect(sent.length).toBe(before + 1);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.kind).toBe("domain_rejection");
    expect(result.failure.tool).toBe("everything.get-sum");
    expect(result.failure.message).toMatch(/b/);
  });

  it("invalid payloads are caught locally with field issues, and nothing is sent", async () => {
    const client = createEverythingClient(counting);
    const before = sent.length;
    const wrongType = await client.getSum({ a: 1, b: "two" } as unknown as GetSumPayload);
    const missing = await client.getSum({ a: 1 } as unknown as GetSumPayload);
    const badEnum = await client.getStructuredContent({ location: "Paris" } as never);
    expect(sent.length).toBe(before);
    for (const r of [wrongType, missing, badEnum]) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.failure).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call" } });
    }
    if (wrongType.ok || missing.ok || badEnum.ok) return;
    expect(wrongType.failure.recovery.issues).toEqual([
      { field: "b", constraint: "invalid_field_type", expected: "number", actual: "two" },
    ]);
    expect(missing.failure.recovery.issues).toEqual([{ field: "b", constraint: "missing_field" }]);
    expect(badEnum.failure.recovery.issues?.[0]).toMatchObject({
      field: "location",
      constraint: "invalid_enum_value",
      allowed: ["New York", "Chicago", "Los Angeles"],
      actual: "Paris",
    });
    expect(wrongType.failure.recovery.exampleJson).toBe('{"a":2,"b":3}');
  });

  it("registerEverythingToolset + typed request builders run through the runtime registry", async () => {
    const runtime = createRuntime();
    registerEverythingToolset(runtime, counting);
    expect(runtime.specs().map((s) => s.name)).toEqual(["echo", "get-sum", "get-structured-content"]);
    const result = await runtime.execute(everythingRequests.getSum({ a: 40, b: 2 }));
    expect(result).toMatchObject({ ok: true });
    if (result.ok) expect(result.value).toContain("42");
    const byProvider = await runtime.execute({ tool: getSumSpec.providerName, arguments: { a: 1, b: 1 } });
    expect(byProvider.ok).toBe(true);
  });
});

describe("server-everything through a client generated from a pulled lock (test/golden/lock-catalogue)", () => {
  it("every tool of the snapshot answers through its typed method", async () => {
    const client = createLockedClient(counting);
    expect(Object.keys(everythingCatalogue.tools)).toHaveLength(5);
    const echo = await client.echo({ message: "locked" });
    expect(echo).toMatchObject({ ok: true, value: "Echo: locked" });
    const sum = await client.getSum({ a: 1, b: 2 });
    if (!sum.ok) throw new Error(sum.failure.message);
    expect(sum.value).toContain("3");
    const weather = await client.getStructuredContent({ location: "New York" });
    if (!weather.ok) throw new Error(weather.failure.message);
    expect(typeof weather.value.temperature).toBe("number");
    const annotated = await client.getAnnotatedMessage({ messageType: "success", includeImage: true });
    if (!annotated.ok) throw new Error(annotated.failure.message);
    expect(annotated.content.some((b) => b.type === "image")).toBe(true);
    const long = await client.triggerLongRunningOperation({ duration: 0.2, steps: 2 });
    if (!long.ok) throw new Error(long.failure.message);
    expect(long.value).toMatch(/completed/i);
  });

  it("the inline override is what the client enforces (bounds the server does not have)", async () => {
    const before = sent.length;
    const result = await createLockedClient(counting).getSum({ a: 2e9, b: 1 });
    expect(sent.length).toBe(before);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.recovery.issues).toEqual([expect.objectContaining({ field: "a", constraint: "invalid_range" })]);
  });
});

describe("drift check generated for the pulled catalogue", () => {
  it("the fingerprints generated from the lock match the live server's tools", async () => {
    const locked = Object.keys(everythingCatalogue.tools);
    const report = await checkEverythingDrift(stdio, { policy: "fail", tools: locked });
    expect(report).toMatchObject({ ok: true, drift: [] });
  });

  it("tools the lock does not have are reported per tool (the fixture snapshot holds 5 of them)", async () => {
    const warnings: string[] = [];
    const report = await checkEverythingDrift(stdio, { onWarning: (m) => warnings.push(m) });
    expect(report.ok).toBe(true);
    expect(report.drift.length).toBeGreaterThan(0);
    expect(report.drift.every((d) => d.change === "added")).toBe(true);
    expect(report.drift.map((d) => d.tool)).toContain("get-tiny-image");
    expect(warnings.length).toBe(report.drift.length);
  });
});
