/**
 * `toolwright mock --toolset NAME --verify CASSETTE`: the faithfulness check. Replays the
 * cassette's requests against the live server (every answer must equal the recorded one) and
 * against the generated mock in memory (lists must equal the recorded ones; every other answer
 * must have the recorded structure), and reports every difference, so a mock that drifted from
 * its server fails CI.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ExternalServerDecl } from "@toolwright/dsl";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import type { VerifyReport } from "@toolwright/testkit";
import { callerOptionsFor } from "../record/caller-options.js";

/** What the check needs from the mock command. */
export interface MockVerifyInput {
  readonly design: string;
  readonly cwd: string;
  readonly cassette: string;
  readonly ignore: readonly string[];
  /** The toolset's generated mock definition (its `server` names the design's externalServer). */
  readonly definition: { readonly toolset: string; readonly server: string };
  readonly testkit: {
    verifyCassette(
      cassette: string,
      caller: SessionCaller,
      options: { ignore: readonly string[]; compare: "value" | "shape" },
    ): Promise<VerifyReport>;
    startMock(definition: never, options: { transport: "memory" }): Promise<{ readonly caller: SessionCaller; close(): Promise<void> }>;
  };
  readonly timeoutMs: number;
}

/** The lines to print and whether everything matched. */
export interface MockVerifyOutcome {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

/** Runs both checks; throws on bad input (unknown server, unreadable cassette). */
export async function verifyMock(input: MockVerifyInput): Promise<MockVerifyOutcome> {
  const text = readFileSync(resolve(input.cwd, input.cassette), "utf8");
  const live = await liveCaller(input);
  let liveReport: VerifyReport;
  try {
    liveReport = await input.testkit.verifyCassette(text, live, { ignore: input.ignore, compare: "value" });
  } finally {
    await live.close();
  }
  const mock = await input.testkit.startMock(input.definition as never, { transport: "memory" });
  let mockReport: VerifyReport;
  try {
    mockReport = await input.testkit.verifyCassette(text, mock.caller, { ignore: input.ignore, compare: "shape" });
  } finally {
    await mock.close();
  }
  const lines: string[] = [];
  for (const [who, report] of [
    ["live server", liveReport],
    ["mock", mockReport],
  ] as const) {
    lines.push(
      `${who}: ${report.checked} request(s) replayed, ${report.differences.length} differ${report.differences.length === 1 ? "s" : ""}`,
    );
    for (const d of report.differences) for (const line of d.differences) lines.push(`  ${who}: #${d.index} ${d.request}: ${line}`);
  }
  return { ok: liveReport.ok && mockReport.ok, lines };
}

async function liveCaller(input: MockVerifyInput): Promise<SessionCaller> {
  const [{ loadDesign, loadOptions }] = await Promise.all([import("../load/load-design.js")]);
  const loaded = await loadDesign(input.design, input.cwd, loadOptions(undefined));
  const server = loaded.design.servers.find(
    (s): s is ExternalServerDecl => s.kind === "external-server" && s.name === input.definition.server,
  );
  if (server === undefined) {
    throw new Error(
      `toolwright mock --verify: toolset "${input.definition.toolset}" has no externalServer "${input.definition.server}" in ${loaded.label} to replay against`,
    );
  }
  const options = callerOptionsFor(server, { file: loaded.label, designPath: loaded.path, cwd: input.cwd }, input.timeoutMs);
  if (options === undefined)
    throw new Error(
      `toolwright mock --verify: server "${server.name}" needs a command or url connection (an mcpJson() entry cannot be replayed yet)`,
    );
  return "http" in options ? createHttpCaller(options.http) : createStdioCaller(options.stdio);
}
