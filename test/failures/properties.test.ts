/**
 * Property tests: every failure the runtime can produce passes `validateFailure` and survives a
 * JSON round trip unchanged, whatever the wire fault, input, content or model call.
 */

import {
  createInMemoryCaller,
  createRuntime,
  type FieldIssue,
  renderFailure,
  type ToolFailure,
  toolRequestFromModelCall,
} from "@toolwright/runtime";
import {
  createHostedCaller,
  FAILURE_REASONS,
  failureFrom,
  failureFromFault,
  failureFromInvalidInput,
  failureFromInvalidOutput,
  failureFromLocal,
  failureFromToolError,
  failureFromUnparsableArguments,
  mayHaveRun,
  validateFailure,
  type WireFault,
} from "@toolwright/runtime/caller";
import type { CallToolResult } from "@toolwright/runtime/protocol";
import { createToolServer } from "@toolwright/runtime/server";
import { withFaults } from "@toolwright/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { spec } from "./fixtures.js";

function check(f: ToolFailure): void {
  expect(validateFailure(f)).toEqual([]);
  expect(JSON.parse(JSON.stringify(f))).toStrictEqual(f);
  expect(renderFailure(f).length).toBeGreaterThan(0);
}

const secretish = fc.record(
  { token: fc.string(), password: fc.string(), apiKey: fc.string(), plain: fc.jsonValue() },
  { requiredKeys: [] },
);
const input = fc.oneof(
  fc.jsonValue(),
  secretish,
  fc.anything(),
  fc.constant(undefined),
  fc.bigInt().map((b) => ({ big: b })),
);
const context = fc.record(
  {
    tool: fc.string(),
    server: fc.string(),
    input,
    exampleJson: fc.jsonValue().map((v) => JSON.stringify(v)),
    // The run's facts a caller builds with: repeatable or not, which deadline applies.
    repeatable: fc.boolean(),
    deadline: fc.constantFrom("tool_timeout" as const, "time_budget" as const),
  },
  { requiredKeys: ["tool", "server"] },
);

const wireFault: fc.Arbitrary<WireFault> = fc.oneof(
  fc.record(
    {
      type: fc.constant("rpc" as const),
      code: fc.oneof(fc.integer({ min: -32768, max: -32000 }), fc.integer()),
      message: fc.string(),
      data: fc.oneof(fc.jsonValue(), secretish),
      httpStatus: fc.constantFrom(400, 404), // a JSON-RPC error that came as an HTTP error body
    },
    { requiredKeys: ["type", "code", "message"] },
  ),
  fc.record(
    {
      type: fc.constant("http" as const),
      status: fc.integer({ min: 100, max: 599 }),
      message: fc.string(),
      retryAfterMs: fc.nat(),
      body: fc.string(),
    },
    { requiredKeys: ["type", "status", "message"] },
  ),
  fc.record(
    {
      type: fc.constant("transport" as const),
      code: fc.constantFrom(
        "ECONNREFUSED",
        "ECONNRESET",
        "ENOENT",
        "EACCES",
        "EXIT",
        "EPIPE",
        "ETIMEDOUT",
        "EOVERSIZE",
        "EPROTO",
        "EOTHER",
      ),
      message: fc.string(),
      exitCode: fc.option(fc.integer({ min: 0, max: 255 })),
      signal: fc.option(fc.constantFrom("SIGTERM", "SIGKILL")),
      stderrTail: fc.string(),
    },
    { requiredKeys: ["type", "code", "message"] },
  ),
  fc.record({
    type: fc.constant("timeout" as const),
    phase: fc.constantFrom("connect" as const, "request" as const),
    message: fc.string(),
  }),
  fc.record({ type: fc.constant("canceled" as const), message: fc.string() }),
);

const contentBlock = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string() }),
  fc.record({ type: fc.constant("image"), data: fc.base64String(), mimeType: fc.constantFrom("image/png", "image/jpeg") }),
  fc.record({ type: fc.constant("resource_link"), uri: fc.webUrl() }),
  fc.jsonValue(),
);
const content = fc.array(contentBlock, { maxLength: 5 });

const issue: fc.Arbitrary<FieldIssue> = fc.record(
  {
    field: fc.string(),
    constraint: fc.constantFrom(
      "missing_field",
      "invalid_enum_value",
      "invalid_format",
      "invalid_pattern",
      "invalid_range",
      "invalid_length",
      "invalid_field_type",
      "unknown_field",
    ),
    allowed: fc.array(fc.jsonValue(), { maxLength: 3 }),
    expected: fc.string(),
    actual: fc.jsonValue(),
  },
  { requiredKeys: ["field", "constraint"] },
);

describe("every mapped failure is valid and JSON-stable", () => {
  it("wire faults, with or without the sent input", () => {
    fc.assert(
      fc.property(wireFault, context, (fault, ctx) => {
        const f = failureFromFault(fault, ctx);
        check(f);
        check(failureFromFault(fault, { tool: ctx.tool, server: ctx.server }));
        // Not safe to repeat: a tool that may have run is never retried as is when it is not repeatable.
        if (ctx.repeatable === false && mayHaveRun(f)) expect(f.recovery.action).not.toBe("retry");
      }),
      { numRuns: 500 },
    );
  });

  it("anything thrown: failureFrom always answers a valid failure, and a failure passes through unchanged", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.string().map((m) => new Error(m)),
        ),
        context,
        (thrown, ctx) => {
          const f = failureFrom(thrown, ctx);
          check(f);
          expect(failureFrom(f, ctx)).toBe(f);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("isError results", () => {
    fc.assert(
      fc.property(content, context, (blocks, ctx) => {
        const f = failureFromToolError(blocks, ctx);
        check(f);
        expect(f.kind).toBe("domain_rejection");
      }),
      { numRuns: 300 },
    );
  });

  it("local input and output validation, unparsable arguments, policy", () => {
    fc.assert(
      fc.property(
        fc.array(issue, { maxLength: 4 }),
        input,
        content,
        context,
        fc.constantFrom(...FAILURE_REASONS),
        (issues, raw, blocks, ctx, reason) => {
          const where = { tool: ctx.tool, server: ctx.server };
          check(failureFromInvalidInput(issues, raw, ctx.exampleJson, where));
          check(failureFromInvalidOutput(issues, blocks, where));
          check(failureFromUnparsableArguments(raw, "not an object", ctx.exampleJson, where));
          check(failureFromLocal(reason, "stopped by policy", where, { suggestions: ["a", "b"] }));
        },
      ),
      // A regression found by this property: an own "__proto__" key in the input.
      { numRuns: 300, examples: [[[], JSON.parse('{"__proto__":null}'), [], { tool: "", server: "" }, "tool_unavailable"]] },
    );
  });
});

describe("toolRequestFromModelCall never throws", () => {
  it("for any call shape, the request is usable and any rejection is valid", () => {
    const runtime = createRuntime();
    runtime.registerToolset({
      toolset: "util",
      specs: [spec("util", "echo", { text: "string" })],
      caller: createInMemoryCaller("mem", {}),
    });
    fc.assert(
      fc.property(
        fc.record(
          { id: fc.anything(), name: fc.oneof(fc.constantFrom("util_echo", "util.echo", "echo"), fc.anything()), arguments: fc.anything() },
          { requiredKeys: [] },
        ),
        (call) => {
          const request = toolRequestFromModelCall(call as never, runtime);
          expect(typeof request.tool).toBe("string");
          if (request.rejection) check(request.rejection);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("end to end: random model calls against a runtime with random server behaviour", () => {
  it("every failure the runtime returns is valid and JSON-stable", async () => {
    const outcome = fc.oneof(
      content.map((c) => ({ kind: "ok" as const, content: c })),
      content.map((c) => ({ kind: "isError" as const, content: c })),
      fc.string().map((m) => ({ kind: "throw" as const, message: m })),
    );
    const names = fc.oneof(fc.constantFrom("util_echo", "util.echo", "echo", "util_count", "util.count", "missing"), fc.string());
    const args = fc.oneof(
      input,
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ text: fc.string() }).map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(names, args, outcome), { minLength: 1, maxLength: 12 }), async (calls) => {
        let i = 0;
        const answer = (): CallToolResult => {
          const o = calls[i++ % calls.length]?.[2];
          if (!o || o.kind === "throw") throw new Error(o?.message ?? "x");
          return { content: o.content as CallToolResult["content"], ...(o.kind === "isError" ? { isError: true } : {}) };
        };
        const runtime = createRuntime({ policy: { maxToolCalls: 5, maxConsecutiveFailedToolCalls: 4 } });
        runtime.registerToolset({
          toolset: "util",
          specs: [spec("util", "echo", { text: "string" }, { exampleJson: '{"text":"a"}' }), spec("util", "count", { n: "integer" })],
          caller: createInMemoryCaller("mem", { echo: answer, count: answer }),
        });
        for (const [name, raw] of calls) {
          const request = toolRequestFromModelCall({ id: "c", name, arguments: raw }, runtime);
          if (request.rejection) check(request.rejection);
          const result = await runtime.execute(request);
          if (!result.ok) check(result.failure);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("run policy invariants over random episodes", () => {
  it("never sends more than maxToolCalls, stops for good once a limit is hit, and counts what it sends", async () => {
    const step = fc.record({
      tool: fc.constantFrom("util.echo", "util.fail", "util.count", "nope"),
      args: fc.oneof(fc.record({ text: fc.string() }), fc.record({ n: fc.integer() }), fc.jsonValue()),
      parallel: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(step, { maxLength: 25 }),
        async (maxCalls, maxFailed, steps) => {
          // A real tool server; "fail" is a working tool that the testkit's fault layer turns into a tool error.
          const server = createToolServer({
            name: "mem",
            version: "1.0.0",
            tools: ["echo", "fail", "count"].map((name) => ({
              name,
              inputSchema: { type: "object" },
              handler: () => ({ content: [{ type: "text" as const, text: name === "count" ? "1" : "ok" }] }),
            })),
          });
          const host = withFaults(server, [{ tool: "fail", fault: { kind: "is-error", text: "no" } }]);
          const caller = createHostedCaller({ name: "mem", host });
          const runtime = createRuntime({ policy: { maxToolCalls: maxCalls, maxConsecutiveFailedToolCalls: maxFailed } });
          runtime.registerToolset({
            toolset: "util",
            specs: [
              spec("util", "echo", { text: "string" }),
              spec("util", "fail", { text: "string" }),
              spec("util", "count", { n: "integer" }),
            ],
            caller,
          });
          let stopped = false;
          for (let i = 0; i < steps.length; i++) {
            const s = steps[i] as (typeof steps)[number];
            const batch = s.parallel ? [s, steps[i + 1] ?? s] : [s];
            const results = await Promise.all(batch.map((b) => runtime.execute({ tool: b.tool, arguments: b.args })));
            for (const r of results) {
              if (!r.ok) check(r.failure);
              const policyStop = !r.ok && (r.failure.reason === "max_tool_calls" || r.failure.reason === "max_consecutive_failures");
              if (stopped) expect(policyStop).toBe(true); // once stopped, every later call is refused
              if (policyStop) expect(r.ok ? undefined : r.failure.recovery.action).toBe("finish");
            }
            if (results.some((r) => !r.ok && (r.failure.reason === "max_tool_calls" || r.failure.reason === "max_consecutive_failures")))
              stopped = true;
            // The fault layer counts every tools/call that reached the server.
            expect(host.faults.calls()).toBeLessThanOrEqual(maxCalls);
            expect(runtime.usage().toolCalls).toBe(host.faults.calls());
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
