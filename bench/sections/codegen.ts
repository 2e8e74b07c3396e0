/**
 * Section 8: `toolwright gen` on a synthetic 1,000-tool design, against json-schema-to-typescript
 * alone on the same schemas (fresh processes, wall time), plus an unchanged re-run.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import { syntheticDesign } from "../lib/synthetic-design.ts";
import type { BenchConfig } from "./config.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HERE = fileURLToPath(new URL("..", import.meta.url));
const CLI = `${ROOT}packages/codegen/dist/bin.js`;

interface ToolLike {
  readonly name: string;
  readonly input: unknown;
  readonly output?: unknown;
}

/** Writes the design and the JSON schemas json-schema-to-typescript gets. */
async function prepare(dir: string, tools: number): Promise<{ design: string; schemas: string; count: number }> {
  mkdirSync(dir, { recursive: true });
  const design = `${dir}/design.ts`;
  writeFileSync(design, syntheticDesign(tools));
  const dsl = (await import("@toolwright/dsl")) as unknown as { toJsonSchema(s: unknown): object };
  const mod = (await import(`${pathToFileURL(design).href}?t=${Date.now()}`)) as {
    default: { toolsets: readonly { name: string; tools: readonly ToolLike[] }[] };
  };
  const list: { name: string; schema: object }[] = [];
  for (const ts of mod.default.toolsets) {
    for (const tool of ts.tools) {
      const base = `${ts.name}_${tool.name}`.replace(/[^A-Za-z0-9]+/g, "_");
      list.push({ name: `${base}_payload`, schema: dsl.toJsonSchema(tool.input) });
      if (tool.output) list.push({ name: `${base}_result`, schema: dsl.toJsonSchema(tool.output) });
    }
  }
  const schemas = `${dir}/schemas.json`;
  writeFileSync(schemas, JSON.stringify(list));
  return { design, schemas, count: list.length };
}

/** Runs the comparison; skipped (with a note) when the CLI is not built. */
export async function measureCodegen(config: BenchConfig, log: (line: string) => void): Promise<{ rows: Row[]; notes: string[] }> {
  if (!existsSync(CLI)) return { rows: [], notes: ["Codegen section skipped: packages/codegen/dist/bin.js is not built."] };
  const dir = `${HERE}.cache/codegen-${config.codegenTools}`;
  const { design, schemas, count } = await prepare(dir, config.codegenTools);
  const first: number[] = [];
  const rerun: number[] = [];
  const alone: number[] = [];
  for (let rep = 0; rep < config.codegenReps; rep++) {
    const out = `${dir}/out`;
    rmSync(out, { recursive: true, force: true });
    const gen = await run(process.execPath, [CLI, "gen", design, "--out", out], { cwd: ROOT, timeoutMs: 600_000 });
    if (gen.code !== 0) throw new Error(`toolwright gen failed (exit ${gen.code}): ${(gen.stderr || gen.stdout).slice(-1500)}`);
    first.push(gen.wallMs);
    const again = await run(process.execPath, [CLI, "gen", design, "--out", out], { cwd: ROOT, timeoutMs: 600_000 });
    if (again.code !== 0) throw new Error(`toolwright gen re-run failed (exit ${again.code}): ${again.stderr.slice(-800)}`);
    rerun.push(again.wallMs);
    const j2t = await run(process.execPath, [`${HERE}codegen-worker.mjs`, schemas], { cwd: ROOT, timeoutMs: 600_000 });
    parseResult(j2t, "json-schema-to-typescript");
    alone.push(j2t.wallMs);
    log(`  codegen: repetition ${rep + 1}/${config.codegenReps} done`);
  }
  const base = { section: "codegen", server: "-", unit: "ms", better: "lower" as const };
  return {
    rows: [
      makeRow({ ...base, measure: "first run", client: "toolwright", label: "toolwright gen", values: first }),
      makeRow({ ...base, measure: "first run", client: "raw", label: "json-schema-to-typescript alone", values: alone }),
      makeRow({ ...base, measure: "unchanged re-run", client: "toolwright", label: "toolwright gen (nothing changed)", values: rerun }),
    ],
    notes: [
      `Codegen: ${config.codegenTools} tools (${count} input and output schemas), wall time of a fresh process each (node start, design load, write).`,
    ],
  };
}
