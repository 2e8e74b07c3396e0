// Validation in a fresh process: `node validation-worker.mjs '{"mode":...,"payloads":N,"module":path}'`.
// toolwright: the precompiled standalone validator wrapped by the runtime's createDecoder.
// sdk: the SDK's own AjvJsonSchemaValidator, which compiles the schema with ajv at run time.
// raw: the precompiled validate function alone (boolean only), the floor.
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { payloads, SCHEMA } from "./lib/validation-fixture.mjs";

const task = JSON.parse(process.argv[2] ?? "{}");
const data = payloads(task.payloads);

const t0 = performance.now();
let check;
if (task.mode === "sdk") {
  const { AjvJsonSchemaValidator } = await import("@modelcontextprotocol/sdk/validation/ajv");
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
// Not timed: one pass so every path is warm, then the timed pass.
let valid = 0;
for (let i = 0; i < Math.min(data.length, 2000); i++) check(data[i]);
const t1 = performance.now();
for (let i = 0; i < data.length; i++) if (check(data[i])) valid++;
const runMs = performance.now() - t1;
process.stdout.write(`RESULT ${JSON.stringify({ setupMs, runMs, valid, total: data.length })}\n`);
