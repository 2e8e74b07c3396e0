// Validation in a fresh process: `node validation-worker.mjs '{"mode":...,"payloads":N,"module":path}'`.
// toolwright: the precompiled standalone validator wrapped by the runtime's createDecoder.
// sdk, sdk2: the SDK's own AjvJsonSchemaValidator (1.32.2, v2), which compiles the schema with ajv at run time.
// raw: the precompiled validate function alone (boolean only), the floor.
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { payloads, SCHEMA } from "./lib/validation-fixture.mjs";

const task = JSON.parse(process.argv[2] ?? "{}");
const data = payloads(task.payloads);

const t0 = performance.now();
let check;
if (task.mode === "sdk" || task.mode === "sdk2") {
  const { AjvJsonSchemaValidator } =
    task.mode === "sdk2"
      ? await import("@modelcontextprotocol/client/validators/ajv")
      : await import("@modelcontextprotocol/sdk/validation/ajv");
  const validator = new AjvJsonSchemaValidator().getValidator(SCHEMA);
  check = (v) => validator(v).valid;
} else {
  const mod = await import(pathToFileURL(task.module).href);
  const validate = mod[task.exportName ?? "default"];
  if (task.mode === "toolwright") {
    const { createDecoder } = await import("@toolwright/runtime/codegen");
    const decode = createDecoder(validate);
    check = (v) => decode(v).ok;
  } else {
    check = (v) => validate(v);
  }
}
const setupMs = performance.now() - t0;
// Not timed: a warm-up over the first 2,000 payloads. Then three timed passes over all of them,
// each after a full GC (the payload set is large; collecting it mid-pass is what made runs noisy);
// the median pass is reported.
let valid = 0;
for (let i = 0; i < Math.min(data.length, 2000); i++) check(data[i]);
const passes = [];
for (let pass = 0; pass < 3; pass++) {
  globalThis.gc?.();
  valid = 0;
  const t1 = performance.now();
  for (let i = 0; i < data.length; i++) if (check(data[i])) valid++;
  passes.push(performance.now() - t1);
}
const runMs = passes.sort((a, b) => a - b)[1];
process.stdout.write(`RESULT ${JSON.stringify({ setupMs, runMs, valid, total: data.length })}\n`);
