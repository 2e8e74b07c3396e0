/**
 * Worker for bench/sections/code-mode-check.ts: in a fresh process, builds the code-mode API of a
 * synthetic `tools`-tool toolset with the real generator, then times the type check: the first
 * check of a new checker (cold: the ES2023 library is parsed) and `warm` checks after it, of a
 * program that passes and one that fails. Prints `RESULT {json}`.
 */
import { performance } from "node:perf_hooks";
import { buildCodeModeApi, resolveDesign } from "@toolwright/codegen";
import { array, design, fromExternalMCP, integer, object, string, toolset } from "@toolwright/dsl";

const DOMAINS = ["billing", "crm", "calendar", "docs", "tickets", "inventory", "payroll", "analytics", "mail", "storage"];
const VERBS = ["list", "get", "create", "update", "delete", "search", "archive", "export", "import", "sync"];
const OBJECTS = ["invoice", "customer", "event", "page", "ticket", "item"];

const tools = Number(process.argv[2] ?? "300");
const warmChecks = Number(process.argv[3] ?? "30");

// The same shape as examples/providers/catalogue.ts (name, description, four fields), plus an enum
// and an output schema, so results are typed as they are for real servers.
const synthetic = toolset("synthetic", fromExternalMCP("synthetic"), (t) => {
  for (let i = 0; i < tools; i++) {
    const domain = DOMAINS[i % DOMAINS.length]!;
    const verb = VERBS[Math.floor(i / DOMAINS.length) % VERBS.length]!;
    const obj = OBJECTS[Math.floor(i / (DOMAINS.length * VERBS.length)) % OBJECTS.length]!;
    const round = Math.floor(i / (DOMAINS.length * VERBS.length * OBJECTS.length));
    t.tool(`${domain}_${verb}_${obj}${round > 0 ? `_${round}` : ""}`, {
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${obj}s in the ${domain} system. Returns the ${obj} records that match, with their ids and timestamps.`,
      input: object({
        id: string().describe(`The ${obj} id`),
        query: string().describe("Free-text filter").optional(),
        limit: integer().describe("Page size").optional(),
        order: string({ enum: ["newest", "oldest"] }).optional(),
      }),
      output: object({ records: array(object({ id: string(), updated: string() })), cursor: string().optional() }),
    });
  }
});

const genStart = performance.now();
const ir = resolveDesign(design({ toolsets: [synthetic] }), { file: "bench.ts" });
const api = await buildCodeModeApi(ir.toolsets[0]!);
const genMs = performance.now() - genStart;

const importStart = performance.now();
const { createTypeChecker } = await import("@toolwright/code-mode");
const importMs = performance.now() - importStart;

const first = api.index[0]!.name;
const last = api.index.at(-1)!.name;
const good = [
  `const a = await synthetic.${first}({ id: "1", order: "newest" });`,
  `const b = await synthetic.${last}({ id: a.records[0]?.id ?? "x", limit: 5 });`,
  "return b.records.map((r) => r.updated);",
].join("\n");
const bad = `const a = await synthetic.${first}({ id: 1, order: "latest" });\nreturn a.rows;`;

const coldStart = performance.now();
const checker = createTypeChecker([api]);
const firstResult = checker.check(good);
const coldMs = performance.now() - coldStart;
if (!firstResult.ok) throw new Error(`the bench program does not type-check: ${firstResult.failure.message}`);

const warmGood: number[] = [];
const warmBad: number[] = [];
for (let i = 0; i < warmChecks; i++) {
  // Each program differs a little, as a model's successive programs do.
  let t = performance.now();
  const ok = checker.check(`${good}\n// ${i}`);
  warmGood.push(performance.now() - t);
  if (!ok.ok) throw new Error("a good program failed");
  t = performance.now();
  const ko = checker.check(`${bad}\n// ${i}`);
  warmBad.push(performance.now() - t);
  if (ko.ok || ko.failure.diagnostics.length !== 3)
    throw new Error(`a bad program gave ${ko.ok ? "no" : ko.failure.diagnostics.length} diagnostics`);
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
process.stdout.write(
  `RESULT ${JSON.stringify({
    tools,
    genMs,
    importMs,
    coldMs,
    warmGoodMs: median(warmGood),
    warmBadMs: median(warmBad),
    declarationTokens: api.tokens,
    indexTokens: api.index.reduce((n, e) => n + e.tokens, 0),
  })}\n`,
);
