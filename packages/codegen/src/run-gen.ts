/**
 * One `toolwright gen` run: load → resolve → generate → write (or check). Every failure before
 * writing is a `DesignError`, so nothing is written for a bad design.
 */

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { freshEntry, saveEntry } from "./cache.js";
import { designLabel } from "./load/design-label.js";
import type { TokenBill } from "./tokens/bill.js";
import { checkOutput, writeOutput } from "./write.js";

/** Options for one run. */
export interface GenOptions {
  readonly design: string;
  readonly out: string;
  /** Compare only; report stale files instead of writing. */
  readonly check?: boolean;
  readonly cwd?: string;
  /** Skip the run when nothing changed since the last one (default true; false neither reads nor writes the cache). See cache.ts. */
  readonly cache?: boolean;
  /** Deadline for loading the design, in ms (default 30 s). */
  readonly loadTimeoutMs?: number;
  /** Certify input schemas for these providers and emit their variants in the specs (`--providers`). */
  readonly providers?: readonly ("openai" | "anthropic" | "gemini")[];
  /** Called after each phase and before each file is written (for live progress). */
  readonly onProgress?: (event: GenProgress) => void;
}

/** One step of a generation, for live progress. */
export type GenProgress =
  | { readonly kind: "loaded"; readonly design: string; readonly ms: number }
  | { readonly kind: "resolved"; readonly toolsets: number; readonly tools: number; readonly ms: number }
  | { readonly kind: "generated"; readonly files: number; readonly ms: number }
  | { readonly kind: "writing"; readonly path: string; readonly done: number; readonly total: number };

/** What one run did. Paths are relative to the output folder. */
export interface GenSummary {
  readonly design: string;
  readonly out: string;
  readonly toolsets: number;
  readonly tools: number;
  readonly agents: number;
  /** MCP servers the design implements (each gets a scaffold). */
  readonly servers: number;
  readonly files: readonly string[];
  readonly written: readonly string[];
  readonly unchanged: readonly string[];
  readonly removed: readonly string[];
  readonly stale: readonly string[];
  readonly ms: number;
  /** The design and the local files it imports, relative to the working directory. */
  readonly inputs: readonly string[];
  /** True when nothing had changed and the run was answered from the cache. */
  readonly cached: boolean;
  /** Harmless losses found by provider certification, one line each. */
  readonly warnings: readonly string[];
  /** Definition tokens per provider, server, toolset and tool (absent only for a cache entry written before bills existed). */
  readonly bill?: TokenBill;
}

/** Runs one generation (or check). Throws `DesignError` for design problems. */
export async function runGen(options: GenOptions): Promise<GenSummary> {
  const started = performance.now();
  const cwd = options.cwd ?? process.cwd();
  const outDir = resolve(cwd, options.out);
  const designPath = resolve(cwd, options.design);
  const providers = options.providers ?? [];
  // The cache does not record --providers, so a provider run neither reads nor writes it.
  const useCache = options.cache !== false && providers.length === 0;
  if (useCache && existsSync(designPath)) {
    const label = designLabel(designPath, cwd);
    const hit = freshEntry(designPath, outDir, label);
    // An entry without a bill predates it: regenerate so the bill is always reported.
    if (hit?.bill) {
      const files = Object.keys(hit.outputs);
      return {
        design: label,
        out: options.out,
        toolsets: hit.toolsets,
        tools: hit.tools,
        agents: hit.agents,
        servers: hit.servers,
        files,
        written: [],
        unchanged: files,
        removed: [],
        stale: [],
        ms: Math.round(performance.now() - started),
        inputs: hit.localInputs,
        cached: true,
        warnings: [],
        bill: hit.bill,
      };
    }
  }
  // Loaded only on a cache miss: tsx, ajv and json-schema-to-typescript cost more to import than a cached run.
  const [{ loadDesign, loadOptions }, { resolveDesign }, { generate }, { certifyProviders }, { tokenBill }] = await Promise.all([
    import("./load/load-design.js"),
    import("./resolve/resolve.js"),
    import("./generate.js"),
    import("./resolve/providers.js"),
    import("./tokens/bill.js"),
  ]);
  const progress = options.onProgress ?? (() => {});
  let mark = performance.now();
  const lap = () => {
    const now = performance.now();
    const ms = Math.round(now - mark);
    mark = now;
    return ms;
  };
  const loaded = await loadDesign(options.design, cwd, loadOptions(options.loadTimeoutMs));
  progress({ kind: "loaded", design: loaded.label, ms: lap() });
  const resolved = resolveDesign(loaded.design, { file: loaded.label, designPath: loaded.path, toJsonSchema: loaded.toJsonSchema, cwd });
  const warnings = providers.length > 0 ? certifyProviders(resolved, providers) : [];
  const ir = providers.length > 0 ? { ...resolved, providers } : resolved;
  const tools = ir.toolsets.reduce((n, t) => n + t.tools.length, 0);
  progress({ kind: "resolved", toolsets: ir.toolsets.length, tools, ms: lap() });
  const files = await generate(ir);
  const bill = tokenBill(ir);
  progress({ kind: "generated", files: files.size, ms: lap() });
  const report = options.check
    ? checkOutput(outDir, files, loaded.label)
    : writeOutput(outDir, files, loaded.label, (path, done, total) => progress({ kind: "writing", path, done, total }), cwd);
  const counts = {
    toolsets: ir.toolsets.length,
    tools,
    agents: ir.agents.length,
    servers: ir.mcpServers.length,
  };
  // mcp.json files the connections came from are inputs too: an edited entry changes the generated caller.
  const inputs = [...loaded.inputs, ...ir.configFiles].map((f) => designLabel(f, cwd));
  const allInputs = [...loaded.allInputs, ...ir.configFiles];
  // --no-cache writes nothing outside --out, so it also records nothing.
  if (useCache && report.stale.length === 0 && providers.length === 0)
    saveEntry(loaded.path, outDir, { source: loaded.label, allInputs, files, localInputs: inputs, bill, ...counts });
  return {
    design: loaded.label,
    out: options.out,
    ...counts,
    files: [...files.keys()],
    written: report.written,
    unchanged: report.unchanged,
    removed: report.removed,
    stale: report.stale,
    ms: Math.round(performance.now() - started),
    inputs,
    cached: false,
    warnings,
    bill,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The one-line summary printed after a run. */
export function summaryLine(s: GenSummary, check: boolean): string {
  const servers = s.servers > 0 ? `, ${plural(s.servers, "server")}` : "";
  const counts = `${plural(s.toolsets, "toolset")}, ${plural(s.tools, "tool")}${servers}, ${plural(s.files.length, "file")}`;
  if (check) {
    return s.stale.length === 0
      ? `toolwright gen --check: ${counts} up to date in ${s.ms} ms (${s.out})`
      : `toolwright gen --check: ${plural(s.stale.length, "stale file")} in ${s.out}; run toolwright gen ${s.design} --out ${s.out}`;
  }
  const removed = `${s.removed.length > 0 ? `, ${s.removed.length} removed` : ""}${s.cached ? ", nothing changed" : ""}`;
  return `toolwright gen: ${counts} (${s.written.length} written, ${s.unchanged.length} unchanged${removed}) in ${s.ms} ms -> ${s.out}`;
}
