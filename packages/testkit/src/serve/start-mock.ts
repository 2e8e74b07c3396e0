/**
 * `startMock`: runs a generated mock three ways so the same planner code runs against each: in
 * memory (the runtime's tool server behind the real MCP client session, no process, no socket),
 * over streamable HTTP on 127.0.0.1 (an ephemeral port) and over stdio (the `toolwright mock`
 * command as a child process). Each start has its own record and its own server: no global state.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createHostedCaller, type SessionCaller } from "@toolwright/runtime/caller";
import { createHttpCaller } from "@toolwright/runtime/http";
import { serveHttp, type ToolServer } from "@toolwright/runtime/server";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { createMockServer, type MockFailure, type MockServerOptions } from "../mock/mock-server.js";
import type { MockCall, MockDefinition } from "../mock/types.js";

/** How a started mock is reached. */
export type MockTransport = "memory" | "http" | "stdio";

/** Options of `startMock`. */
export interface StartMockOptions extends MockServerOptions {
  /** Default `memory`. */
  readonly transport?: MockTransport;
  /**
   * stdio only: the design file the child `toolwright mock` serves (it generates the same mock from
   * it). Handler functions of this process cannot answer in the child: give `handlers` instead.
   */
  readonly design?: string;
  /**
   * stdio only: a module (path, relative to `cwd`, or file URL) whose default export is the mock's
   * handlers, the object `create<Toolset>Mock(handlers)` takes. The child imports it (TypeScript
   * too) and answers with it; every answer is checked against the output schema as in memory.
   */
  readonly handlers?: string | URL;
  /** stdio only: serve the code already generated in this folder (`gen --out`) instead of generating it from `design`. */
  readonly out?: string;
  /** stdio only: where the design is resolved and `@toolwright/codegen` is found (default `process.cwd()`). */
  readonly cwd?: string;
  /**
   * stdio only: how long the child may take to answer `initialize` (default 120 s: without `out`
   * it generates the design's code first, which takes seconds on a busy machine).
   */
  readonly connectTimeoutMs?: number;
}

/** A started mock: a caller for it, its address, and its record. */
export interface RunningMock extends AsyncDisposable {
  readonly toolset: string;
  readonly transport: MockTransport;
  /** A caller connected to the mock: pass it to the generated client (`create<Toolset>Client(caller)`). */
  readonly caller: SessionCaller;
  /** The streamable HTTP endpoint (`http` only). */
  readonly url: string | undefined;
  /** The runtime tool server answering (`memory` and `http`; the child owns it over stdio): notifications and faults go through it. */
  readonly server: ToolServer | undefined;
  /** The command that serves the mock over stdio (`stdio` only). */
  readonly command: { readonly command: string; readonly args: readonly string[] } | undefined;
  /** Every call the mock got, in order. */
  readonly calls: readonly MockCall[];
  /** The calls to one tool (wire name), in order. */
  callsTo(tool: string): readonly MockCall[];
  /** Answers that broke their tool's contract (each answered as an `isError` result naming the field). */
  readonly failures: readonly MockFailure[];
  /** Closes the caller and the server (and ends the child process); safe to call twice. */
  close(): Promise<void>;
}

/** The `toolwright` bin of the `@toolwright/codegen` installed where `cwd` resolves packages. */
export function toolwrightBin(cwd: string): string {
  let entry: string;
  try {
    entry = createRequire(join(resolve(cwd), "package.json")).resolve("@toolwright/codegen");
  } catch {
    throw new Error(
      `startMock: a stdio mock runs \`toolwright mock\`, but @toolwright/codegen is not installed where ${cwd} resolves packages`,
    );
  }
  return join(dirname(entry), "bin.js");
}

/** The handlers module as an absolute file path; refused now, naming it, when it is not a file. */
function handlersFile(toolset: string, given: string | URL, cwd: string): string {
  const file = given instanceof URL || given.startsWith("file:") ? fileURLToPath(given) : resolve(cwd, given);
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    // Reported below with the path.
  }
  if (!isFile)
    throw new TypeError(
      `startMock(${toolset}): handlers ${JSON.stringify(String(given))} is not a file (resolved to ${JSON.stringify(file)})`,
    );
  return file;
}

/** What the stdio child wrote to its record file: one JSON line per call or failure. */
function readRecord(file: string): { calls: MockCall[]; failures: MockFailure[] } {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    // Not written yet: no call has arrived.
  }
  const calls: MockCall[] = [];
  const failures: MockFailure[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const entry = JSON.parse(line) as { kind: string } & (MockCall | MockFailure);
    const { kind, ...rest } = entry;
    if (kind === "call") calls.push(rest as MockCall);
    else if (kind === "failure") failures.push(rest as MockFailure);
  }
  return { calls, failures };
}

async function startStdio(definition: MockDefinition, options: StartMockOptions): Promise<RunningMock> {
  if (options.design === undefined && options.out === undefined) {
    throw new TypeError(
      `startMock(${definition.toolset}): a stdio mock needs \`design\` (the design file) or \`out\` (its generated code)`,
    );
  }
  const withHandlers = definition.tools.filter((t) => t.handler !== undefined).map((t) => t.spec.name);
  if (withHandlers.length > 0) {
    throw new TypeError(
      `startMock(${definition.toolset}): handlers run in this process and cannot answer over stdio (${withHandlers.join(", ")}); give \`handlers\` a module that exports them, or use transport "memory" or "http"`,
    );
  }
  if (options.intercept !== undefined)
    throw new TypeError(`startMock(${definition.toolset}): \`intercept\` runs in this process; use transport "memory" or "http"`);
  const cwd = options.cwd ?? process.cwd();
  const handlers = options.handlers === undefined ? undefined : handlersFile(definition.toolset, options.handlers, cwd);
  const dir = await mkdtemp(join(tmpdir(), "toolwright-mock-"));
  const record = join(dir, "calls.jsonl");
  const command = {
    command: process.execPath,
    args: [
      toolwrightBin(cwd),
      "mock",
      ...(options.design === undefined ? [] : [options.design]),
      "--toolset",
      definition.toolset,
      ...(options.out === undefined ? [] : ["--out", options.out]),
      "--record",
      record,
      ...(handlers === undefined ? [] : ["--handlers", handlers]),
    ],
  };
  const caller = createStdioCaller({
    name: definition.server,
    command: command.command,
    args: command.args,
    cwd,
    connectTimeoutMs: options.connectTimeoutMs ?? 120_000,
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await caller.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    toolset: definition.toolset,
    transport: "stdio",
    caller,
    url: undefined,
    server: undefined,
    command,
    get calls() {
      return readRecord(record).calls;
    },
    callsTo(tool) {
      if (!definition.tools.some((t) => t.spec.name === tool))
        throw new TypeError(`mock ${definition.toolset}: no tool ${JSON.stringify(tool)}`);
      return readRecord(record).calls.filter((c) => c.tool === tool);
    },
    get failures() {
      return readRecord(record).failures;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Starts a generated mock (`create<Toolset>Mock(handlers)`) and connects a caller to it. Close it
 * when done: `await using mock = await startMock(...)`, or `afterEach(() => mock.close())`.
 */
export async function startMock(definition: MockDefinition, options: StartMockOptions = {}): Promise<RunningMock> {
  const transport = options.transport ?? "memory";
  if (transport === "stdio") return startStdio(definition, options);
  if (options.handlers !== undefined) {
    throw new TypeError(
      `startMock(${definition.toolset}): a handlers module is for the stdio child; in memory and over HTTP pass the functions to create<Toolset>Mock(handlers)`,
    );
  }
  const mock = createMockServer(definition, options);
  let caller: SessionCaller;
  let url: string | undefined;
  let stopServer: () => Promise<void> = async () => {};
  if (transport === "memory") caller = createHostedCaller({ name: definition.server, host: mock.server });
  else if (transport === "http") {
    const handle = await serveHttp(mock.server, { host: "127.0.0.1", port: 0 });
    url = handle.url;
    caller = createHttpCaller({ name: definition.server, url });
    stopServer = () => handle.close();
  } else throw new TypeError(`startMock(${definition.toolset}): unknown transport ${JSON.stringify(transport)} (memory, http or stdio)`);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await caller.close();
    } finally {
      await stopServer();
    }
  };
  return {
    toolset: definition.toolset,
    transport,
    caller,
    url,
    server: mock.server,
    command: undefined,
    get calls() {
      return mock.calls;
    },
    callsTo: (tool) => mock.callsTo(tool),
    get failures() {
      return mock.failures;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
