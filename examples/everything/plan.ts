/**
 * The walking-skeleton plan: three tools of server-everything through the generated typed client,
 * the same tool through the runtime registry, then an invalid payload caught locally (nothing is
 * sent). It takes any `Caller`: `planner.ts` passes the real server over stdio, `planner.test.ts`
 * the generated mock, offline.
 */
import { type Caller, createRuntime } from "@toolwright/runtime";
import { createEverythingClient, everythingRequests, type GetSumPayload, registerEverythingToolset } from "./src/gen/everything/index.js";

/** Runs the plan, printing each step through `log`; returns the number of failed steps. */
export async function runPlan(caller: Caller, log: (line: string) => void = console.log): Promise<number> {
  const client = createEverythingClient(caller);
  let failures = 0;
  const echo = await client.echo({ message: "hello from toolwright" });
  if (echo.ok) log(`echo -> ${echo.value}`);
  else {
    failures++;
    log(`echo failed: ${echo.failure.message}`);
  }

  const sum = await client.getSum({ a: 2, b: 40 });
  if (sum.ok) log(`get-sum -> ${sum.value}`);
  else {
    failures++;
    log(`get-sum failed: ${sum.failure.message}`);
  }

  const weather = await client.getStructuredContent({ location: "Chicago" });
  if (weather.ok) {
    // `weather.value` is typed: { temperature: number; conditions: string; humidity: number }.
    const { temperature, conditions, humidity } = weather.value;
    log(`get-structured-content -> ${temperature} °C, ${conditions}, ${humidity}% humidity`);
  } else {
    failures++;
    log(`get-structured-content failed: ${weather.failure.message}`);
  }

  // The same tools through the runtime registry, as a planner loop would call them.
  const runtime = createRuntime();
  registerEverythingToolset(runtime, caller);
  const viaRuntime = await runtime.execute(everythingRequests.getSum({ a: 1, b: 1 }));
  if (viaRuntime.ok) log(`runtime.execute(everything.get-sum) -> ${String(viaRuntime.value)}`);
  else {
    failures++;
    log(`runtime.execute failed: ${viaRuntime.failure.message}`);
  }

  // A payload the generated validator rejects: caught locally, never sent to the server.
  const bad = await client.getSum({ a: 2, b: "forty" } as unknown as GetSumPayload);
  if (bad.ok) {
    failures++;
    log("unexpected: the invalid payload was accepted");
  } else {
    log(`invalid payload -> ${bad.failure.kind} (${bad.failure.recovery.action}):`);
    for (const issue of bad.failure.recovery.issues ?? []) log(`  ${JSON.stringify(issue)}`);
  }
  return failures;
}
