// json-schema-to-typescript alone on the design's schemas, in a fresh process:
// `node codegen-worker.mjs <schemas.json>`. Uses the options toolwright gen passes.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const t0 = performance.now();
const { compile } = await import("json-schema-to-typescript");
const schemas = JSON.parse(readFileSync(process.argv[2], "utf8"));
let chars = 0;
for (const { name, schema } of schemas) {
  const text = await compile(schema, name, {
    bannerComment: "",
    declareExternallyReferenced: true,
    ignoreMinAndMaxItems: true,
    unknownAny: true,
    strictIndexSignatures: false,
    format: true,
    style: { printWidth: 120, semi: true, singleQuote: false, trailingComma: "all", tabWidth: 2, useTabs: false },
    $refOptions: { resolve: { external: false } },
  });
  chars += text.length;
}
process.stdout.write(`RESULT ${JSON.stringify({ ms: performance.now() - t0, schemas: schemas.length, chars })}\n`);
