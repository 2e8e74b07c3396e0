import { describe, expect, it } from "vitest";
import {
  combineFailures,
  isToolFailure,
  redactSecrets,
  redactText,
  strongestAction,
  type ToolFailure,
  toJsonValue,
  validateFailure,
} from "./failure.js";

const base: ToolFailure = {
  kind: "unavailable",
  message: "down",
  recovery: { action: "retry" },
  tool: "t.x",
  server: "s",
  retryable: true,
};
const correct: ToolFailure = {
  kind: "invalid_call",
  message: "bad args",
  recovery: { action: "correct_call", issues: [{ field: "a", constraint: "missing_field" }], priorInput: {}, exampleJson: '{"a":1}' },
  tool: "t.x",
  server: "s",
  retryable: false,
};

describe("validateFailure", () => {
  it("accepts well-formed failures", () => {
    expect(validateFailure(base)).toEqual([]);
    expect(validateFailure(correct)).toEqual([]);
    expect(isToolFailure(correct)).toBe(true);
  });

  it.each([
    ["unknown kind", { ...base, kind: "exploded" }, /unknown kind/],
    ["unknown action", { ...base, recovery: { action: "panic" } }, /unknown action/],
    ["correct_call without evidence", { ...correct, recovery: { action: "correct_call" } }, /needs evidence/],
    ["correct_call on a timeout", { ...correct, kind: "timeout" }, /cannot take action correct_call/],
    ["evidence on finish", { ...base, retryable: false, recovery: { action: "finish", priorInput: {} } }, /carries no correction data/],
    [
      "issues on finish",
      { ...base, retryable: false, recovery: { action: "finish", issues: [{ field: "", constraint: "missing_field" }] } },
      /no issues|no evidence/,
    ],
    ["example on replan", { ...base, retryable: false, recovery: { action: "replan", exampleJson: "{}" } }, /carries no correction data/],
    ["retryable with finish", { ...base, recovery: { action: "finish" } }, /retryable failure must have action retry/],
    ["retry without retryable", { ...base, retryable: false }, /requires retryable/],
    ["retry on canceled", { ...base, kind: "canceled" }, /cannot take action retry/],
    ["retryAfterMs on a non-retryable", { ...base, retryable: false, recovery: { action: "replan" }, retryAfterMs: 10 }, /retryAfterMs/],
    ["negative retryAfterMs", { ...base, retryAfterMs: -1 }, /retryAfterMs/],
    ["empty message", { ...base, message: "" }, /message/],
    ["empty issues", { ...correct, recovery: { ...correct.recovery, issues: [] } }, /non-empty/],
    [
      "bad issue constraint",
      { ...correct, recovery: { ...correct.recovery, issues: [{ field: "a", constraint: "weird" }] } },
      /not a field issue/,
    ],
    ["exampleJson not JSON", { ...correct, recovery: { ...correct.recovery, exampleJson: "{nope" } }, /not valid JSON/],
    ["bad httpStatus", { ...base, httpStatus: 42 }, /httpStatus/],
    ["unknown reason", { ...base, reason: "bored" }, /unknown reason/],
    ["a function inside", { ...base, rpc: { code: 1, data: { f: () => 1 } } }, /not a JSON value/],
    ["an undefined field", { ...base, httpStatus: undefined, exitCode: 1.5 }, /exitCode/],
    ["NaN inside data", { ...base, rpc: { code: 1, data: Number.NaN } }, /finite/],
    ["missing recovery", { ...base, recovery: undefined }, /recovery must be an object/],
  ])("rejects %s", (_label, value, problem) => {
    const problems = validateFailure(value);
    expect(problems.join("\n")).toMatch(problem);
    expect(isToolFailure(value)).toBe(false);
  });

  it("rejects non-objects", () => {
    expect(validateFailure(null)).toEqual(["failure is not an object"]);
    expect(validateFailure("x")).toEqual(["failure is not an object"]);
  });
});

describe("combineFailures", () => {
  const mk = (action: ToolFailure["recovery"]["action"], tool: string): ToolFailure =>
    action === "correct_call" ? { ...correct, tool } : { ...base, tool, retryable: action === "retry", recovery: { action } };

  it("strongest action wins: finish > correct_call > replan > retry", () => {
    expect(strongestAction(["retry", "replan"])).toBe("replan");
    expect(strongestAction(["replan", "correct_call", "retry"])).toBe("correct_call");
    expect(strongestAction(["correct_call", "finish", "retry"])).toBe("finish");
    expect(strongestAction([])).toBeUndefined();
  });

  it("returns the first failure with the winning action and keeps all of them", () => {
    const all = [mk("retry", "a"), mk("correct_call", "b"), mk("replan", "c"), mk("correct_call", "d")];
    const combined = combineFailures(all);
    expect(combined?.action).toBe("correct_call");
    expect(combined?.failure.tool).toBe("b");
    expect(combined?.failures).toHaveLength(4);
    expect(combineFailures([])).toBeUndefined();
  });
});

describe("redaction and JSON values", () => {
  it("redacts values of secret-looking keys at any depth", () => {
    expect(
      redactSecrets({
        Authorization: "Bearer x",
        list: [{ api_key: "k", apiKey: "k2", name: "n" }],
        nested: { client_secret: 1, password: "p" },
      }),
    ).toEqual({
      Authorization: "[redacted]",
      list: [{ api_key: "[redacted]", apiKey: "[redacted]", name: "n" }],
      nested: { client_secret: "[redacted]", password: "[redacted]" },
    });
  });

  it("leaves keys that only contain a secret word alone (maxTokens, tokenCount, secretName)", () => {
    expect(
      redactSecrets({ maxTokens: 5, max_tokens: 6, tokenCount: 7, secretName: "db", x_api_key: "k", "X-Auth": "a", clientSecret: "s" }),
    ).toEqual({
      maxTokens: 5,
      max_tokens: 6,
      tokenCount: 7,
      secretName: "db",
      x_api_key: "[redacted]",
      "X-Auth": "[redacted]",
      clientSecret: "[redacted]",
    });
    expect(redactText("max_tokens: 500 and access_token=abc")).toBe("max_tokens: 500 and access_token=[redacted]");
  });

  it("redacts bearer tokens and key=value secrets in text", () => {
    expect(redactText("got Bearer eyJhbGciOi.x.y and token=abc123 and password: hunter2")).toBe(
      "got Bearer [redacted] and token=[redacted] and password: [redacted]",
    );
  });

  it("turns odd values into plain JSON", () => {
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(toJsonValue({ a: undefined, b: 1n, c: [undefined] })).toEqual({ b: "1", c: [null] });
    expect(typeof toJsonValue(cyclic)).toBe("string");
    expect(toJsonValue(undefined)).toBeNull();
    const hostile = {
      toJSON() {
        throw new Error("no");
      },
      toString: 1,
      valueOf: 1,
    };
    expect(toJsonValue(hostile)).toBe("[unserializable object]");
    const proto = toJsonValue(JSON.parse('{"__proto__":{"polluted":true},"a":1}')) as { [key: string]: unknown };
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(["__proto__", "a"]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
