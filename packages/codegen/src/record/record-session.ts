/**
 * `toolwright record`: a scripted session on one of the design's servers, written as a cassette.
 * The script lists the tools, then calls each chosen tool of that server once with its example
 * payload (the design's `examples`, else the one resolved from the lock's input schema), in name
 * order so re-recording gives the same cassette. Tools annotated destructive are skipped unless
 * named with `--tool`, as a recording runs against the real server.
 */
import { resolve } from "node:path";
import type { ExternalServerDecl } from "@toolwright/dsl";
import type { RecordTarget } from "@toolwright/testkit";
import { DesignError } from "../errors.js";
import type { IrTool } from "../ir/ir.js";
import { callerOptionsFor } from "./caller-options.js";

/** What `recordSession` needs. */
export interface RecordSessionOptions {
  readonly design: string;
  readonly cwd: string;
  readonly server: string | undefined;
  /** Tools to call (wire names); default every tool with an example that is not destructive. */
  readonly tools: readonly string[] | undefined;
  readonly timeoutMs: number;
  readonly loadTimeoutMs?: number | undefined;
}

/** What a recording did. */
export interface RecordSessionResult {
  readonly server: string;
  readonly cassette: string;
  /** Tools called, with whether the call succeeded (a failure is recorded too). */
  readonly called: readonly { readonly tool: string; readonly ok: boolean }[];
  /** Tools not called, with the reason. */
  readonly skipped: readonly { readonly tool: string; readonly reason: string }[];
}

/** Loads the design, connects to the server, runs the script and returns the cassette text. Throws `DesignError` on bad input. */
export async function recordSession(options: RecordSessionOptions): Promise<RecordSessionResult> {
  const [{ loadDesign, loadOptions }, { resolveDesign }, { createRecordingCaller }] = await Promise.all([
    import("../load/load-design.js"),
    import("../resolve/resolve.js"),
    // An optional peer of the CLI (only record and mock need it): missing, it is named with its install line.
    import("@toolwright/testkit").catch((error: unknown) => {
      throw new Error(
        `toolwright record writes cassettes with @toolwright/testkit, which is not installed (${(error as Error).message.split("\n")[0]}); install it: npm install -D @toolwright/testkit`,
      );
    }),
  ]);
  const loaded = await loadDesign(options.design, options.cwd, loadOptions(options.loadTimeoutMs));
  const file = loaded.label;
  const external = loaded.design.servers.filter((s): s is ExternalServerDecl => s.kind === "external-server");
  const server = pickServer(external, options.server, file);
  const target = callerOptionsFor(server, { file, designPath: loaded.path, cwd: options.cwd }, options.timeoutMs);
  if (target === undefined) {
    throw new DesignError(
      { file, server: server.name },
      "record needs a command or url connection (an mcpJson() entry cannot be recorded yet)",
    );
  }
  const resolved = resolveDesign(loaded.design, { file, designPath: loaded.path, toJsonSchema: loaded.toJsonSchema, cwd: options.cwd });
  const tools = resolved.toolsets.filter((t) => t.server === server.name).flatMap((t) => t.tools);
  const plan = planCalls(tools, options.tools, file, server.name);
  const recording = createRecordingCaller(target as RecordTarget, { server: server.name });
  const called: { tool: string; ok: boolean }[] = [];
  try {
    const listed = await recording.caller.listTools({ timeoutMs: options.timeoutMs });
    if (!listed.ok) throw new Error(`server "${server.name}": ${listed.failure.message}`);
    for (const { tool, payload } of plan.calls) {
      const outcome = await recording.caller.callTool({ name: tool, arguments: payload }, { timeoutMs: options.timeoutMs });
      called.push({ tool, ok: outcome.ok });
    }
    return { server: server.name, cassette: recording.cassette(), called, skipped: plan.skipped };
  } finally {
    await recording.close();
  }
}

function pickServer(external: readonly ExternalServerDecl[], wanted: string | undefined, file: string): ExternalServerDecl {
  if (external.length === 0) throw new DesignError({ file }, "declares no externalServer(...) to record");
  if (wanted !== undefined) {
    const found = external.find((s) => s.name === wanted);
    if (!found)
      throw new DesignError(
        { file },
        `--server ${wanted}: no externalServer of that name (have: ${external.map((s) => s.name).join(", ")})`,
      );
    return found;
  }
  if (external.length > 1)
    throw new DesignError({ file }, `name the server to record with --server (have: ${external.map((s) => s.name).join(", ")})`);
  return external[0] as ExternalServerDecl;
}

function planCalls(tools: readonly IrTool[], wanted: readonly string[] | undefined, file: string, server: string) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of wanted ?? []) {
    if (!byName.has(name)) throw new DesignError({ file, server }, `--tool ${name}: the server's toolsets have no tool of that name`);
  }
  const calls: { tool: string; payload: { [key: string]: unknown } }[] = [];
  const skipped: { tool: string; reason: string }[] = [];
  for (const tool of [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const named = wanted?.includes(tool.name) === true;
    if (wanted !== undefined && !named) continue;
    if (!named && tool.annotations?.destructive === true) {
      skipped.push({ tool: tool.name, reason: "annotated destructive (name it with --tool to call it)" });
      continue;
    }
    if (tool.exampleJson === undefined) {
      skipped.push({ tool: tool.name, reason: "no example payload in the design or the lock's input schema" });
      continue;
    }
    calls.push({ tool: tool.name, payload: JSON.parse(tool.exampleJson) as { [key: string]: unknown } });
  }
  return { calls, skipped };
}

/** The output path, resolved against the working directory. */
export const outputPath = (cwd: string, out: string) => resolve(cwd, out);
