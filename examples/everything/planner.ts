/**
 * The walking-skeleton planner: calls three tools of the real server-everything over stdio through
 * the generated typed client, then shows an invalid payload caught locally (nothing is sent).
 * Run with: npm run demo
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createRuntime } from "@toolwright/runtime";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { createEverythingClient, everythingRequests, type GetSumPayload, registerEverythingToolset } from "./src/gen/everything/index.js";

/** The path of server-everything's entry point, resolved from this package's node_modules. */
export function serverEverythingEntry(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");
}

async function main(): Promise<number> {
  const caller = createStdioCaller({ name: "everything", command: process.execPath, args: [serverEverythingEntry(), "stdio"] });
  const client = createEverythingClient(caller);
  let failures = 0;
  try {
    const echo = await client.echo({ message: "hello from toolwright" });
    if (echo.ok) console.log(`echo -> ${echo.value}`);
    else {
      failures++;
      console.log("echo failed:", echo.failure);
    }

    const sum = await client.getSum({ a: 2, b: 40 });
    if (sum.ok) console.log(`get-sum -> ${sum.value}`);
    else {
      failures++;
      console.log("get-sum failed:", sum.failure);
    }

    const weather = await client.getStructuredContent({ location: "Chicago" });
    if (weather.ok) {
      // `weather.value` is typed: { temperature: number; conditions: string; humidity: number }.
      const { temperature, conditions, humidity } = weather.value;
      console.log(`get-structured-content -> ${temperature} °C, ${conditions}, ${humidity}% humidity`);
    } else {
      failures++;
      console.log("get-structured-content failed:", weather.failure);
    }

    // The same tools through the runtime registry, as a planner loop would call them.
    const runtime = createRuntime();
    registerEverythingToolset(runtime, caller);
    const viaRuntime = await runtime.execute(everythingRequests.getSum({ a: 1, b: 1 }));
    if (viaRuntime.ok) console.log(`runtime.execute(everything.get-sum) -> ${String(viaRuntime.value)}`);
    else {
      failures++;
      console.log("runtime.execute failed:", viaRuntime.failure);
    }

    // A payload the generated validator rejects: caught locally, never sent to the server.
    const bad = await client.getSum({ a: 2, b: "forty" } as unknown as GetSumPayload);
    if (bad.ok) {
      failures++;
      console.log("unexpected: the invalid payload was accepted");
    } else {
      console.log(`invalid payload -> ${bad.failure.kind} (${bad.failure.recovery.action}):`);
      for (const issue of bad.failure.recovery.issues ?? []) console.log(`  ${JSON.stringify(issue)}`);
    }
  } finally {
    await caller.close();
  }
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
