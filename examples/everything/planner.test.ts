/**
 * The walking-skeleton plan, offline: the same `runPlan` that `planner.ts` runs against the real
 * server-everything, here against the mock generated from the design (`src/gen/everything/mock.gen.ts`),
 * in memory. No process, no network; the mock checks every answer against the output schema and
 * records what the plan called.
 */
import { startMock } from "@toolwright/testkit";
import { expect, it } from "vitest";
import { runPlan } from "./plan.js";
import { createEverythingMock } from "./src/gen/everything/mock.gen.js";

it("runs the plan against the generated mock, with handlers shaped like the real server's answers", async () => {
  await using mock = await startMock(
    createEverythingMock({
      echo: ({ message }) => `Echo: ${message}`,
      getSum: ({ a, b }) => `The sum of ${a} and ${b} is ${a + b}.`,
      getStructuredContent: ({ location }) => ({
        temperature: location === "Chicago" ? 22.5 : 30,
        conditions: "Partly cloudy",
        humidity: 65,
      }),
    }),
  );
  const lines: string[] = [];
  expect(await runPlan(mock.caller, (line) => lines.push(line))).toBe(0);
  expect(lines.slice(0, 4)).toEqual([
    "echo -> Echo: hello from toolwright",
    "get-sum -> The sum of 2 and 40 is 42.",
    "get-structured-content -> 22.5 °C, Partly cloudy, 65% humidity",
    "runtime.execute(everything.get-sum) -> The sum of 1 and 1 is 2.",
  ]);
  // The invalid payload never left the process: the mock saw four calls, not five.
  expect(lines[4]).toBe("invalid payload -> invalid_call (correct_call):");
  expect(mock.calls.map((c) => c.tool)).toEqual(["echo", "get-sum", "get-structured-content", "get-sum"]);
  expect(mock.callsTo("get-sum").map((c) => c.arguments)).toEqual([
    { a: 2, b: 40 },
    { a: 1, b: 1 },
  ]);
  expect(mock.failures).toEqual([]);
});

it("runs the plan on the mock's defaults alone (answers generated from the design's schemas)", async () => {
  await using mock = await startMock(createEverythingMock());
  const lines: string[] = [];
  expect(await runPlan(mock.caller, (line) => lines.push(line))).toBe(0);
  expect(lines[0]).toBe("echo -> mock answer of everything.echo");
  expect(lines[2]).toBe("get-structured-content -> 0 °C, string, 0% humidity");
});

it("fails the step, naming tool and field, when a handler answers the wrong shape", async () => {
  await using mock = await startMock(
    createEverythingMock({ getStructuredContent: () => ({ temperature: 20, conditions: 7, humidity: 1 }) as never }),
  );
  const lines: string[] = [];
  expect(await runPlan(mock.caller, (line) => lines.push(line))).toBe(1);
  expect(lines[2]).toMatch(
    /^get-structured-content failed: .*mock everything\.get-structured-content: the handler's answer breaks the output schema: conditions/,
  );
});
