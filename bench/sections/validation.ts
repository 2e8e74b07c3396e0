/**
 * Section 7: validating payloads with a precompiled codec (Toolwright) against ajv compiling the
 * same schema at run time (the SDK's AjvJsonSchemaValidator), and the bare precompiled function.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import { type BenchConfig, CLIENTS } from "./config.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));
const CACHE = `${HERE}.cache`;
const WORKER = `${HERE}validation-worker.mjs`;

/**
 * Writes the precompiled validator module. `toolwright gen` emits these for real designs; the
 * benchmark builds one with ajv standalone from the same options so the schema is identical.
 */
export async function buildPrecompiledValidator(): Promise<string> {
  const { default: Ajv } = await import("ajv");
  const { default: addFormats } = await import("ajv-formats");
  const standalone = (await import("ajv/dist/standalone/index.js")).default as unknown as (ajv: unknown, v: unknown) => string;
  const { SCHEMA } = (await import("../lib/validation-fixture.mjs")) as { SCHEMA: object };
  const AjvCtor = Ajv as unknown as new (o: object) => { compile(s: object): unknown };
  const ajv = new AjvCtor({ strict: false, allErrors: true, validateFormats: true, code: { source: true, esm: true } });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  const source = standalone(ajv, ajv.compile(SCHEMA));
  mkdirSync(CACHE, { recursive: true });
  const file = `${CACHE}/bench-validator.mjs`;
  // ajv's ESM output still calls require() for its runtime helpers (ucs2length, formats).
  const prelude = 'import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n';
  writeFileSync(file, prelude + source);
  return file;
}

interface ValidationResult {
  readonly setupMs: number;
  readonly runMs: number;
  readonly valid: number;
  readonly total: number;
}

/** Runs the three validators in fresh processes, interleaved, `config.reps` times. */
export async function measureValidation(config: BenchConfig, log: (line: string) => void): Promise<Row[]> {
  const module = await buildPrecompiledValidator();
  const got = new Map<string, ValidationResult[]>();
  for (let rep = 0; rep < config.reps; rep++) {
    for (const client of CLIENTS) {
      const finished = await run(
        process.execPath,
        [WORKER, JSON.stringify({ mode: client, payloads: config.validationPayloads, module })],
        {
          timeoutMs: 120_000,
        },
      );
      const r = parseResult<ValidationResult>(finished, `validation ${client}`);
      got.set(client, [...(got.get(client) ?? []), r]);
    }
  }
  const counts = new Set([...got.values()].flat().map((r) => r.valid));
  if (counts.size !== 1) throw new Error(`validators disagree on valid payload counts: ${[...counts].join(", ")}`);
  log(`  validation: ${config.reps} repetitions done (${[...counts][0]} of ${config.validationPayloads} valid in every validator)`);
  const labels = {
    toolwright: "toolwright (precompiled + decoder)",
    sdk: "sdk (ajv compile at run time)",
    raw: "raw precompiled fn",
  } as const;
  const n = config.validationPayloads.toLocaleString("en-US");
  return CLIENTS.flatMap((client) => {
    const rs = got.get(client) ?? [];
    const base = { section: "validation", server: "-", client, label: labels[client] };
    return [
      makeRow({ ...base, measure: "setup (import or compile)", unit: "ms", better: "lower", values: rs.map((r) => r.setupMs) }),
      makeRow({ ...base, measure: `validate ${n} payloads`, unit: "ms", better: "lower", values: rs.map((r) => r.runMs) }),
      makeRow({ ...base, measure: "setup + validate", unit: "ms", better: "lower", values: rs.map((r) => r.setupMs + r.runMs) }),
    ];
  });
}
