import { describe, expect, it } from "vitest";
import {
  FAILURE_REASONS,
  type FailureKind,
  type FailureReason,
  type FailureSource,
  type RecoveryAction,
  registerSecretValues,
  validateFailure,
} from "./failure.js";
import {
  callContext,
  failureFrom,
  failureFromFault,
  failureFromInvalidInput,
  failureFromInvalidOutput,
  failureFromLocal,
  failureFromToolError,
  failureFromUnparsableArguments,
  LOCAL_MAP,
  mayHaveRun,
  messageWithoutServer,
  retryAfterMsFromHeader,
} from "./failure-mapping.js";
import type { WireFault } from "./wire-fault.js";

const at = { tool: "files.read", server: "fs" };
const sent = { ...at, input: { path: "/x", token: "s3cr3t" }, exampleJson: '{"path":"/tmp/a.txt"}' };

type Row = readonly [label: string, fault: WireFault, kind: FailureKind, action: RecoveryAction];
const rpc = (code: number, data?: unknown): WireFault => ({ type: "rpc", code, message: "boom", ...(data === undefined ? {} : { data }) });
const http = (status: number, retryAfterMs?: number): WireFault => ({
  type: "http",
  status,
  message: "status",
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});
const transport = (code: string, exitCode?: number): WireFault => ({
  type: "transport",
  code,
  message: `transport ${code}`,
  ...(exitCode === undefined ? {} : { exitCode }),
});

// Every local reason: the runtime, the manager or a caller decided without a server's answer.
const LOCAL_TABLE: readonly (readonly [FailureReason, FailureKind, RecoveryAction])[] = [
  ["tool_unavailable", "invalid_call", "replan"],
  ["max_tool_calls", "canceled", "finish"],
  ["max_consecutive_failures", "canceled", "finish"],
  ["time_budget", "timeout", "finish"],
  ["tool_timeout", "timeout", "retry"],
  ["confirmation_denied", "canceled", "replan"],
  ["outcome_unknown", "internal", "replan"],
  ["tool_hidden", "invalid_call", "replan"],
  ["tool_held", "invalid_call", "replan"],
  ["not_approved", "canceled", "finish"],
  ["server_disabled", "unavailable", "replan"],
  ["server_not_configured", "unavailable", "replan"],
  ["manager_stopped", "unavailable", "finish"],
  ["caller_failed", "internal", "retry"],
  ["invalid_failure", "internal", "replan"],
  ["config_rejected", "invalid_call", "correct_call"],
  ["config_write_failed", "internal", "replan"],
];

// Every row of the mapping, with the input known (as the runtime's typed path has it).
const TABLE: readonly Row[] = [
  ["JSON-RPC -32700 parse error", rpc(-32700), "internal", "retry"],
  ["JSON-RPC -32600 invalid request", rpc(-32600), "invalid_call", "replan"],
  ["JSON-RPC -32601 method not found", rpc(-32601), "invalid_call", "replan"],
  ["JSON-RPC -32602 invalid params", rpc(-32602), "invalid_call", "correct_call"],
  ["JSON-RPC -32602 naming an unknown tool", { type: "rpc", code: -32602, message: "Unknown tool: nope" }, "invalid_call", "replan"],
  ["JSON-RPC -32602 tool not found", { type: "rpc", code: -32602, message: "Tool nope not found" }, "invalid_call", "replan"],
  ["JSON-RPC -32603 internal error", rpc(-32603), "internal", "retry"],
  ["JSON-RPC -32000 connection closed", rpc(-32000), "unavailable", "retry"],
  ["JSON-RPC -32001 request timeout", rpc(-32001), "timeout", "retry"],
  ["JSON-RPC -32002 resource not found", rpc(-32002), "invalid_call", "correct_call"],
  ["JSON-RPC -32042 URL elicitation required", rpc(-32042), "auth_required", "finish"],
  ["JSON-RPC -32020 header mismatch", rpc(-32020), "internal", "retry"],
  ["JSON-RPC -32021 missing client capability", rpc(-32021), "invalid_call", "replan"],
  ["JSON-RPC -32022 unsupported protocol version", rpc(-32022), "unavailable", "retry"],
  ["JSON-RPC -32050 other server-defined", rpc(-32050), "internal", "replan"],
  ["JSON-RPC -32500 reserved, unknown", rpc(-32500), "internal", "replan"],
  ["JSON-RPC 4001 application code", rpc(4001, { reason: "quota" }), "domain_rejection", "replan"],
  ["HTTP 400", http(400), "invalid_call", "replan"],
  ["HTTP 401", http(401), "auth_required", "finish"],
  ["HTTP 403", http(403), "auth_required", "finish"],
  ["HTTP 404", http(404), "unavailable", "replan"],
  ["HTTP 405", http(405), "unavailable", "replan"],
  ["HTTP 408", http(408), "timeout", "retry"],
  ["HTTP 409", http(409), "unavailable", "retry"],
  ["HTTP 413", http(413), "invalid_call", "correct_call"],
  ["HTTP 418 other 4xx", http(418), "invalid_call", "replan"],
  ["HTTP 429 with Retry-After", http(429, 7000), "rate_limited", "retry"],
  ["HTTP 429 without Retry-After", http(429), "rate_limited", "retry"],
  ["HTTP 500", http(500), "unavailable", "retry"],
  ["HTTP 501", http(501), "unavailable", "replan"],
  ["HTTP 502", http(502), "unavailable", "retry"],
  ["HTTP 503 with Retry-After", http(503, 2000), "rate_limited", "retry"],
  ["HTTP 503 without Retry-After", http(503), "unavailable", "retry"],
  ["HTTP 302 unexpected", http(302), "internal", "replan"],
  ["ECONNREFUSED", transport("ECONNREFUSED"), "unavailable", "retry"],
  ["ECONNRESET", transport("ECONNRESET"), "unavailable", "retry"],
  ["EPIPE", transport("EPIPE"), "unavailable", "retry"],
  ["spawn ENOENT", transport("ENOENT"), "unavailable", "finish"],
  ["spawn EACCES", transport("EACCES"), "unavailable", "finish"],
  ["process exit", transport("EXIT", 1), "unavailable", "retry"],
  ["socket ETIMEDOUT", transport("ETIMEDOUT"), "timeout", "retry"],
  ["oversized message", transport("EOVERSIZE"), "malformed_result", "replan"],
  ["protocol garbage", transport("EPROTO"), "malformed_result", "replan"],
  ["unknown transport code", transport("EWHATEVER"), "unavailable", "retry"],
  ["request timeout", { type: "timeout", phase: "request", message: "60000 ms" }, "timeout", "retry"],
  ["connect timeout", { type: "timeout", phase: "connect", message: "10000 ms" }, "unavailable", "retry"],
  ["caller abort", { type: "canceled", message: "aborted by caller" }, "canceled", "finish"],
  ["task failed", { type: "task", status: "failed", taskId: "t1", message: "boom" }, "domain_rejection", "replan"],
  ["task cancelled by the server", { type: "task", status: "cancelled", taskId: "t1", message: "stop" }, "canceled", "finish"],
  ["task expired before its result", { type: "task", status: "expired", taskId: "t1", message: "gone" }, "unavailable", "replan"],
];

// Where each kind of wire fault is built: the layer whose facts it maps.
const SOURCE_OF: { readonly [T in WireFault["type"]]: FailureSource } = {
  rpc: "rpc",
  http: "http",
  transport: "transport",
  timeout: "transport",
  canceled: "local",
  malformed: "tool",
  task: "tool",
};

describe("failureFromFault: one row per case", () => {
  it.each(TABLE)("%s → %s / %s", (_label, fault, kind, action) => {
    const f = failureFromFault(fault, sent);
    expect(f.kind).toBe(kind);
    expect(f.recovery.action).toBe(action);
    expect(f.retryable).toBe(action === "retry");
    expect(f.tool).toBe("files.read");
    expect(f.server).toBe("fs");
    expect(f.source).toBe(SOURCE_OF[fault.type]);
    expect(validateFailure(f)).toEqual([]);
    expect(JSON.parse(JSON.stringify(f))).toEqual(f);
    if (action === "correct_call") {
      expect(f.recovery.priorInput).toEqual({ path: "/x", token: "[redacted]" });
      expect(f.recovery.exampleJson).toBe('{"path":"/tmp/a.txt"}');
    } else expect(f.recovery).toEqual({ action });
  });

  it.each(TABLE)("%s without the sent input still validates (correctable cases degrade to replan)", (_label, fault, kind, action) => {
    const f = failureFromFault(fault, at);
    expect(f.kind).toBe(kind);
    expect(f.recovery.action).toBe(action === "correct_call" ? "replan" : action);
    expect(validateFailure(f)).toEqual([]);
  });

  it("lets an HTTP 404 decide over its body's code (-32001 is both 'Session not found' and request timeout)", () => {
    const gone = failureFromFault({ type: "rpc", code: -32001, message: "Session not found", httpStatus: 404 }, at);
    expect(gone).toMatchObject({ kind: "unavailable", recovery: { action: "replan" }, httpStatus: 404, rpc: { code: -32001 } });
    // Without the 404, -32001 stays a request timeout; a 400 body keeps its code's meaning.
    expect(failureFromFault({ type: "rpc", code: -32001, message: "Request timed out" }, at).kind).toBe("timeout");
    expect(failureFromFault({ type: "rpc", code: -32602, message: "bad", httpStatus: 400 }, at).kind).toBe("invalid_call");
  });

  it("keeps the JSON-RPC code and data, redacting secret-looking keys", () => {
    const f = failureFromFault(rpc(-32603, { detail: "db down", apiKey: "k-123", nested: { password: "p" } }), at);
    expect(f.rpc).toEqual({ code: -32603, data: { detail: "db down", apiKey: "[redacted]", nested: { password: "[redacted]" } } });
  });

  it("takes field issues from -32602 error data when the server sends them", () => {
    const issues = [{ field: "path", constraint: "invalid_field_type", expected: "string" }];
    const f = failureFromFault(rpc(-32602, { issues }), sent);
    expect(f.recovery).toMatchObject({ action: "correct_call", issues });
  });

  it("429 and 503 carry retryAfterMs; HTTP status kept", () => {
    expect(failureFromFault(http(429, 7000), at)).toMatchObject({ httpStatus: 429, retryAfterMs: 7000, retryable: true });
    expect(failureFromFault(http(503, 2000), at)).toMatchObject({ httpStatus: 503, retryAfterMs: 2000 });
    expect(failureFromFault(http(401, 5000), at)).not.toHaveProperty("retryAfterMs");
  });

  it("transport failures keep exit code and a redacted stderr tail", () => {
    const f = failureFromFault(
      { type: "transport", code: "EXIT", message: "exited", exitCode: 3, stderrTail: "fatal: Authorization: Bearer abc.def" },
      at,
    );
    expect(f).toMatchObject({ exitCode: 3, kind: "unavailable" });
    expect(f.stderrTail).toBe("fatal: Authorization: Bearer [redacted]");
  });
});

describe("isError, local validation and policy rows", () => {
  const content = [{ type: "text", text: "Access denied - path outside allowed directories: /etc/passwd" }];

  it("isError → domain_rejection / replan, content kept", () => {
    const f = failureFromToolError(content, sent);
    expect(f).toMatchObject({ kind: "domain_rejection", recovery: { action: "replan" }, content, retryable: false });
    expect(f.message).toContain("Access denied");
    expect(validateFailure(f)).toEqual([]);
  });

  it("isError reporting the SDK's input validation → domain_rejection / correct_call with the input", () => {
    const f = failureFromToolError([{ type: "text", text: "MCP error -32602: Input validation error: expected string" }], sent);
    expect(f.recovery).toMatchObject({ action: "correct_call", priorInput: { path: "/x" } });
    expect(validateFailure(f)).toEqual([]);
  });

  it("local input validation → invalid_call / correct_call with issues, prior input and example", () => {
    const issues = [{ field: "depth", constraint: "invalid_field_type", expected: "integer", actual: "deep" }] as const;
    const f = failureFromInvalidInput(issues, { depth: "deep" }, '{"depth":2}', at);
    expect(f).toMatchObject({
      kind: "invalid_call",
      recovery: { action: "correct_call", issues, priorInput: { depth: "deep" }, exampleJson: '{"depth":2}' },
    });
    expect(validateFailure(f)).toEqual([]);
  });

  it("unparsable model arguments → invalid_call / correct_call, raw text as the rejected input", () => {
    const f = failureFromUnparsableArguments('{"path": ', "malformed JSON", undefined, at);
    expect(f.recovery).toMatchObject({
      action: "correct_call",
      priorInput: '{"path": ',
      issues: [{ field: "", constraint: "invalid_field_type" }],
    });
    expect(validateFailure(f)).toEqual([]);
  });

  it("output validation → malformed_result / replan with the issues and the content kept", () => {
    const f = failureFromInvalidOutput([{ field: "count", constraint: "missing_field" }], content, at);
    expect(f).toMatchObject({ kind: "malformed_result", recovery: { action: "replan", issues: [{ field: "count" }] }, content });
    expect(validateFailure(f)).toEqual([]);
  });

  it.each(LOCAL_TABLE)("local %s → %s / %s, source local, no invented JSON-RPC code", (reason, kind, action) => {
    const f = failureFromLocal(reason, "stopped", sent);
    expect(f).toMatchObject({ kind, reason, source: "local", recovery: { action } });
    expect(f.rpc).toBeUndefined();
    expect(f.retryable).toBe(action === "retry");
    if (action === "correct_call") expect(f.recovery).toMatchObject({ priorInput: { path: "/x" }, exampleJson: sent.exampleJson });
    expect(validateFailure(f)).toEqual([]);
  });

  it("the local table has one row per reason, and the test table one per row", () => {
    expect(LOCAL_TABLE.map(([reason]) => reason)).toEqual([...FAILURE_REASONS]);
    expect(Object.keys(LOCAL_MAP)).toEqual([...FAILURE_REASONS]);
  });
});

describe("mayHaveRun: could repeating the call repeat a side effect?", () => {
  it.each([
    ["request timeout", { type: "timeout", phase: "request", message: "x" }, true],
    ["JSON-RPC -32001 timeout", rpc(-32001), true],
    ["JSON-RPC -32603 internal", rpc(-32603), true],
    ["HTTP 500", http(500), true],
    ["HTTP 502", http(502), true],
    ["HTTP 504", http(504), true],
    ["HTTP 408", http(408), false],
    ["HTTP 429", http(429, 1000), false],
    ["HTTP 503", http(503), false],
    ["ECONNREFUSED", transport("ECONNREFUSED"), false],
    ["connect timeout", { type: "timeout", phase: "connect", message: "x" }, false],
    ["JSON-RPC -32700 parse error", rpc(-32700), false],
  ] as const)("%s → %s", (_label, fault, expected) => {
    expect(mayHaveRun(failureFromFault(fault as WireFault, at))).toBe(expected);
  });
});

describe("rows driven by the facts in the context", () => {
  const call = { name: "read", arguments: { path: 1 } };

  it("a caller that puts the request into the context builds -32602 as correct_call with the input and the example", () => {
    const f = failureFromFault(rpc(-32602), callContext("fs", call, { tool: "files.read", exampleJson: '{"path":"a"}' }));
    expect(f).toMatchObject({ tool: "files.read", server: "fs", source: "rpc", rpc: { code: -32602 } });
    expect(f.recovery).toEqual({ action: "correct_call", priorInput: { path: 1 }, exampleJson: '{"path":"a"}' });
    expect(validateFailure(f)).toEqual([]);
  });

  it("without facts a failure names the wire name; a -32602 naming an unknown tool stays replan", () => {
    const f = failureFromFault({ type: "rpc", code: -32602, message: "Unknown tool: x" }, callContext("fs", call, undefined));
    expect(f).toMatchObject({ tool: "read", recovery: { action: "replan" } });
  });

  it.each([
    ["request timeout", { type: "timeout", phase: "request", message: "x" }],
    ["JSON-RPC -32603", rpc(-32603)],
    ["HTTP 502", http(502)],
  ] as const)("not safe to repeat: %s on a tool not declared read-only or idempotent → replan, saying why", (_label, fault) => {
    const retried = failureFromFault(fault as WireFault, { ...sent, repeatable: true });
    expect(retried.recovery.action).toBe("retry");
    const f = failureFromFault(fault as WireFault, { ...sent, repeatable: false });
    expect(f).toMatchObject({ recovery: { action: "replan" }, retryable: false });
    expect(f.message).toMatch(/not safe to repeat as is: files\.read is not declared read-only or idempotent and may have run$/);
    expect(validateFailure(f)).toEqual([]);
  });

  it("a failure refused before running (429 with Retry-After) is retried even when the tool is not repeatable", () => {
    const f = failureFromFault(http(429, 2000), { ...sent, repeatable: false });
    expect(f).toMatchObject({ recovery: { action: "retry" }, retryAfterMs: 2000 });
  });

  it("a request timeout under the tool timeout says so; under the time budget it is the budget running out", () => {
    const timeout: WireFault = { type: "timeout", phase: "request", message: "no answer" };
    expect(failureFromFault(timeout, { ...at, deadline: "tool_timeout" })).toMatchObject({
      kind: "timeout",
      reason: "tool_timeout",
      source: "transport",
      recovery: { action: "retry" },
    });
    const budget = failureFromFault(timeout, { ...at, deadline: "time_budget" });
    expect(budget).toMatchObject({ kind: "timeout", reason: "time_budget", source: "local", recovery: { action: "finish" } });
    expect(budget.message).toBe("the run time budget ran out during files.read; stop calling tools");
    // A connect deadline is unavailable, not a timeout: no deadline row applies.
    const connect = failureFromFault({ type: "timeout", phase: "connect", message: "x" }, { ...at, deadline: "time_budget" });
    expect(connect).toMatchObject({ kind: "unavailable", recovery: { action: "retry" } });
    expect(connect.reason).toBeUndefined();
  });
});

describe("failureFrom: anything thrown becomes a failure", () => {
  it("a ToolFailure passes through unchanged", () => {
    const f = failureFromFault(rpc(-32603), at);
    expect(failureFrom(f, at)).toBe(f);
  });

  it("an AbortError is canceled, a TimeoutError a request timeout", () => {
    const abort = new DOMException("stop", "AbortError");
    expect(failureFrom(abort, at)).toMatchObject({ kind: "canceled", source: "local", recovery: { action: "finish" } });
    const timeout = new DOMException("late", "TimeoutError");
    expect(failureFrom(timeout, at)).toMatchObject({ kind: "timeout", source: "transport" });
  });

  it("an error carrying a wire fault is mapped as that fault", () => {
    const error = Object.assign(new Error("refused"), { fault: http(429, 1000) });
    expect(failureFrom(error, at)).toMatchObject({ kind: "rate_limited", httpStatus: 429, retryAfterMs: 1000, source: "http" });
  });

  it("any other error or value is the local reason caller_failed, its message redacted, no invented code", () => {
    const f = failureFrom(new Error("db said token=abc123 and Bearer xyz.789"), at);
    expect(f).toMatchObject({ kind: "internal", reason: "caller_failed", source: "local", recovery: { action: "retry" } });
    expect(f.message).toBe("fs: the caller threw: db said token=[redacted] and Bearer [redacted]");
    expect(f.rpc).toBeUndefined();
    expect(failureFrom("plain", at).message).toBe("fs: the caller threw: plain");
    expect(
      failureFrom(
        {
          toString: () => {
            throw new Error("no");
          },
        },
        at,
      ).message,
    ).toBe("fs: the caller threw: [object]");
    expect(validateFailure(failureFrom(undefined, at))).toEqual([]);
  });

  it("registered secrets leave a thrown message too", () => {
    const release = registerSecretValues(["tw-thrown-secret"]);
    try {
      expect(failureFrom(new Error("leaked tw-thrown-secret"), at).message).not.toContain("tw-thrown-secret");
    } finally {
      release();
    }
  });
});

describe("Retry-After", () => {
  it("parses delta-seconds and HTTP dates", () => {
    expect(retryAfterMsFromHeader("7")).toBe(7000);
    expect(retryAfterMsFromHeader("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000);
    expect(retryAfterMsFromHeader("soon")).toBeUndefined();
    expect(retryAfterMsFromHeader(null)).toBeUndefined();
  });
});

describe("hostile inputs (#18)", () => {
  it("a malformed result: malformed_result / replan, the issues and the array content as evidence", () => {
    const issues = [{ field: "content[1].type", constraint: "missing_field" as const }];
    const f = failureFromFault(
      { type: "malformed", message: "tools/call result breaks the MCP result shape", issues, content: [{ type: "text", text: "a" }, {}] },
      sent,
    );
    expect(f).toMatchObject({
      kind: "malformed_result",
      retryable: false,
      recovery: { action: "replan", issues },
      content: [{ type: "text", text: "a" }, {}],
    });
    expect(f.message).toBe("fs: tools/call result breaks the MCP result shape");
    expect(validateFailure(f)).toEqual([]);
  });

  it("a dropped tool is a local reason even with the input in the context: no correct_call for a tool that cannot be called", () => {
    const f = failureFromLocal("tool_unavailable", "fs: tool read is unavailable: bad x-mcp-header", sent);
    expect(f).toMatchObject({ reason: "tool_unavailable", source: "local", recovery: { action: "replan" } });
    expect(Object.hasOwn(f.recovery, "priorInput")).toBe(false);
  });

  it("messageWithoutServer removes the server prefix once, and nothing else", () => {
    const f = failureFromFault(transport("ENOENT"), at);
    expect(f.message).toBe("fs: transport ENOENT");
    expect(messageWithoutServer(f)).toBe("transport ENOENT");
    expect(messageWithoutServer({ server: "fs", message: "fsck: x" })).toBe("fsck: x");
  });

  it("registered secret values leave every string of every built failure, keys included, until released", () => {
    const release = registerSecretValues(["tw-unit-secret-value"]);
    try {
      const data = { echoed: "tw-unit-secret-value", "tw-unit-secret-value": ["x tw-unit-secret-value y"] };
      const f = failureFromFault({ type: "rpc", code: -32603, message: "bad tw-unit-secret-value", data }, sent);
      const g = failureFromToolError([{ type: "text", text: "got tw-unit-secret-value" }], sent);
      for (const failure of [f, g]) expect(JSON.stringify(failure)).not.toContain("tw-unit-secret-value");
      expect(f.rpc?.data).toEqual({ echoed: "[redacted]", "[redacted]": ["x [redacted] y"] });
      expect(validateFailure(f)).toEqual([]);
    } finally {
      release();
    }
    expect(failureFromToolError([{ type: "text", text: "tw-unit-secret-value" }], at).message).toBe("tw-unit-secret-value");
  });
});
