// Runs under Node >= 22.13 with @ai-sdk/code-mode and ai 7 installed next to it (see
// bench/code-mode/setup.sh): per-program overhead of @ai-sdk/code-mode on the programs the
// Toolwright sandbox rows use (an empty program; HOST_CALLS calls to an in-memory tool), printed
// as one RESULT line of JSON in milliseconds.
import { performance } from "node:perf_hooks";
import { experimental_runCodeMode as runCodeMode } from "@ai-sdk/code-mode";
import { jsonSchema, tool } from "ai";

const WARM_RUNS = Number(process.argv[2] ?? 40);
const HOST_CALLS = Number(process.argv[3] ?? 50);
const list = tool({
  description: "List items.",
  inputSchema: jsonSchema({ type: "object", properties: {}, additionalProperties: false }),
  execute: async () => "0 records",
});
const tools = { list };
const empty = "return 1;";
const calls = `let n = 0; for (let i = 0; i < ${HOST_CALLS}; i++) { await tools.list({}); n++; } return n;`;
const time = async (js) => {
  const t = performance.now();
  await runCodeMode({ js, tools });
  return performance.now() - t;
};
const first = await time(empty);
const warm = [];
const withCalls = [];
for (let i = 0; i < WARM_RUNS; i++) {
  warm.push(await time(empty));
  withCalls.push(await time(calls));
}
const check = await runCodeMode({ js: calls, tools });
process.stdout.write(`RESULT ${JSON.stringify({ first, warm, withCalls, check })}\n`);
process.exit(0);
