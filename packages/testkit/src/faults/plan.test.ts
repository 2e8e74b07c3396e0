import { describe, expect, it } from "vitest";
import { checkFaultPlan, createFaultSchedule, type FaultPlan } from "./plan.js";

describe("fault schedule", () => {
  it("hits by tool and call number, from call N, every call and any tool; the first matching rule wins", () => {
    const s = createFaultSchedule([
      { tool: "search", call: 2, fault: { kind: "hang" } },
      { tool: "search", from: 4, fault: { kind: "crash" } },
      { tool: "*", call: 1, fault: { kind: "is-error" } },
    ]);
    const kinds = [1, 2, 3, 4, 5].map(() => s.next("search")?.fault.kind);
    expect(kinds).toEqual(["is-error", "hang", undefined, "crash", "crash"]);
    expect(s.next("other")?.fault.kind).toBe("is-error");
    expect(s.next("other")).toBeUndefined();
    expect(s.calls("search")).toBe(5);
    expect(s.calls()).toBe(7);
    expect(s.injected.map((i) => `${i.tool}#${i.call}:${i.kind}`)).toEqual([
      "search#1:is-error",
      "search#2:hang",
      "search#4:crash",
      "search#5:crash",
      "other#1:is-error",
    ]);
  });

  it("counts a tool named __proto__ like any other", () => {
    const s = createFaultSchedule([{ tool: "__proto__", call: 2, fault: { kind: "hang" } }]);
    expect(s.next("__proto__")).toBeUndefined();
    expect(s.next("__proto__")?.call).toBe(2);
  });

  it.each([
    [[{ tool: "", fault: { kind: "hang" } }], /rule 0: "tool"/],
    [[{ tool: "a", call: 0, fault: { kind: "hang" } }], /rule 0 \(tool a\): "call" must be an integer >= 1/],
    [[{ tool: "a", call: 1, from: 2, fault: { kind: "hang" } }], /not both/],
    [[{ tool: "a", fault: { kind: "explode" } }], /unknown fault kind "explode"/],
    [[{ tool: "a", fault: { kind: "latency", ms: -1 } }], /latency "ms"/],
    [[{ tool: "a", fault: { kind: "http-status", status: 99 } }], /http-status "status"/],
  ])("refuses a malformed plan, naming the rule and field: %j", (plan, message) => {
    expect(() => checkFaultPlan(plan as unknown as FaultPlan)).toThrow(message);
  });
});
