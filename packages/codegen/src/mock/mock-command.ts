/**
 * `toolwright mock <design> --toolset <name>`: serves the generated mock of one toolset over stdio
 * (the default) or streamable HTTP on 127.0.0.1, so a test or an agent can start it as a command
 * like any MCP server. It generates the design's code into a private folder under
 * `node_modules/.cache/toolwright/mock/` (or serves an existing `gen --out` folder with `--out`),
 * loads that toolset's `mock.gen.ts` with tsx, and runs it with `serveMock` of `@toolwright/testkit`,
 * the same engine `startMock` uses in memory. The mock answers the generated defaults, or with
 * `--handlers FILE` the handlers that module exports (mock-handlers.ts).
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Argv, CommandModule } from "yargs";
import { commandErrorText } from "../command-error.js";
import { loadHandlers, type MockFactory } from "./mock-handlers.js";

interface MockIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd?: string;
  readonly signal?: AbortSignal;
}

interface MockArgs {
  readonly design: string;
  readonly toolset: string;
  readonly out: string | undefined;
  readonly http: boolean;
  readonly port: number;
  readonly record: string | undefined;
  /** `--verify`: a cassette to replay against the live server and the mock, instead of serving. */
  readonly verify?: string | undefined;
  readonly ignore?: readonly string[] | undefined;
  /** `--handlers`: a module whose default export is the mock's handlers (answers in the child). */
  readonly handlers?: string | undefined;
}

type MockModule = { readonly [name: string]: unknown };
type Definition = { readonly toolset: string; readonly server: string; readonly tools: readonly unknown[] };
type Testkit = {
  serveMock(
    definition: Definition,
    options: { transport: "stdio" | "http"; port: number; record?: string },
  ): Promise<{ readonly url: string | undefined; readonly closed: Promise<void>; close(): Promise<void> }>;
};

/** The generated mock factories of a `gen --out` folder, by toolset name (each module's one `create*Mock`). */
async function loadDefinitions(outDir: string): Promise<Map<string, MockFactory>> {
  const { tsImport } = await import("tsx/esm/api");
  const found = new Map<string, MockFactory>();
  const dirs = readdirSync(outDir, { withFileTypes: true }).filter(
    (d) => d.isDirectory() && existsSync(join(outDir, d.name, "mock.gen.ts")),
  );
  for (const dir of dirs.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const mod = (await tsImport(pathToFileURL(join(outDir, dir.name, "mock.gen.ts")).href, import.meta.url)) as MockModule;
    for (const [name, value] of Object.entries(mod)) {
      if (!/^create\w*Mock$/.test(name) || typeof value !== "function") continue;
      const factory = value as (handlers: object) => Definition;
      found.set(factory({}).toolset, factory);
    }
  }
  return found;
}

/** Loads `@toolwright/testkit` from where the project resolves packages (it is the mock's engine). */
async function loadTestkit(cwd: string): Promise<Testkit> {
  let entry: string;
  try {
    entry = createRequire(join(cwd, "package.json")).resolve("@toolwright/testkit");
  } catch {
    throw new Error("toolwright mock runs the mock with @toolwright/testkit; install it: npm install -D @toolwright/testkit");
  }
  return (await import(pathToFileURL(entry).href)) as Testkit;
}

/** Serves the mock until the client ends stdin (stdio) or the signal aborts; returns the exit code. Never throws. */
export async function mockAction(args: MockArgs, io: MockIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  let scratch: string | undefined;
  try {
    let outDir: string;
    if (args.out !== undefined) outDir = resolve(cwd, args.out);
    else {
      // Inside the project, so the generated files resolve @toolwright/runtime as the project's own code does.
      scratch = join(cwd, "node_modules", ".cache", "toolwright", "mock", `${process.pid}-${Date.now().toString(36)}`);
      const { runGen } = await import("../run-gen.js");
      await runGen({ design: args.design, out: relative(cwd, scratch), cwd, cache: false });
      outDir = scratch;
    }
    if (!existsSync(outDir))
      throw new Error(`toolwright mock: no generated code at ${args.out} (run toolwright gen first, or leave out --out)`);
    const definitions = await loadDefinitions(outDir);
    const factory = definitions.get(args.toolset);
    if (factory === undefined) {
      const names = [...definitions.keys()].map((n) => JSON.stringify(n)).join(", ");
      throw new Error(`toolwright mock: the design has no toolset ${JSON.stringify(args.toolset)} (it has ${names || "none"})`);
    }
    const handlers = args.handlers === undefined ? {} : await loadHandlers(args.handlers, cwd, args.toolset, factory);
    const definition = factory(handlers) as Definition;
    const testkit = await loadTestkit(cwd);
    if (args.verify !== undefined) {
      const { verifyMock } = await import("./mock-verify.js");
      const outcome = await verifyMock({
        design: args.design,
        cwd,
        cassette: args.verify,
        ignore: args.ignore ?? [],
        definition,
        testkit: testkit as unknown as Parameters<typeof verifyMock>[0]["testkit"],
        timeoutMs: 30_000,
      });
      for (const line of outcome.lines) (outcome.ok ? io.stdout : io.stderr)(line);
      return outcome.ok ? 0 : 1;
    }
    const served = await testkit.serveMock(definition, {
      transport: args.http ? "http" : "stdio",
      port: args.port,
      ...(args.record === undefined ? {} : { record: resolve(cwd, args.record) }),
    });
    // stdout is the MCP channel over stdio, so the address goes to stderr.
    if (served.url !== undefined) io.stderr(`toolwright mock: serving toolset "${definition.toolset}" at ${served.url}`);
    // SIGTERM and SIGINT end it gracefully too, so the scratch folder is removed (finally, below).
    let stop: () => void = () => {};
    const stopped = new Promise<void>((done) => {
      stop = done;
    });
    io.signal?.addEventListener("abort", stop, { once: true });
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    try {
      await Promise.race([served.closed, stopped]);
    } finally {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
    }
    await served.close();
    return 0;
  } catch (error) {
    io.stderr(commandErrorText(error));
    return 2;
  } finally {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The yargs command; `setAction` receives the work to run after parsing. */
export function mockCommand(io: MockIo, setAction: (action: () => Promise<number>) => void): CommandModule {
  return {
    command: "mock [design]",
    describe: "Serve the generated mock of one toolset (answers from the lock's schemas and examples) over stdio or streamable HTTP",
    builder: (y: Argv) =>
      y
        .positional("design", { type: "string", default: "design.ts", describe: "TypeScript design file" })
        .option("toolset", { type: "string", demandOption: true, describe: "The toolset to mock (its name in the design)" })
        .option("out", { type: "string", describe: "Serve the code already generated in this folder (gen --out) instead of generating it" })
        .option("http", { type: "boolean", default: false, describe: "Serve streamable HTTP on 127.0.0.1 instead of stdio" })
        .option("port", { type: "number", default: 0, describe: "HTTP port (0: an ephemeral port, printed on stderr)" })
        .option("record", { type: "string", describe: "Append every call and failure to this file, one JSON line each" })
        .option("handlers", {
          type: "string",
          describe:
            "A module whose default export is the mock's handlers (what create<Toolset>Mock takes); answers are checked against the output schemas",
        })
        .option("verify", {
          type: "string",
          describe:
            "Instead of serving: replay this cassette against the live server (answers must equal the recorded ones) and the mock (same lists, same answer structure); exit 1 on any difference",
        })
        .option("ignore", {
          type: "string",
          array: true,
          describe: "With --verify: result paths left out of the comparison (e.g. content)",
        })
        .example("$0 mock design.ts --toolset everything", "serve the mock over stdio")
        .example("$0 mock design.ts --toolset everything --http --port 3001", "serve it over HTTP")
        .example("$0 mock design.ts --toolset everything --handlers test/everything-handlers.ts", "answer with your handlers")
        .example(
          "$0 mock design.ts --toolset everything --verify everything.cassette.jsonl",
          "check the server and the mock against a cassette",
        ),
    handler: (a) => {
      const args: MockArgs = {
        design: String(a.design),
        toolset: String(a.toolset),
        out: a.out === undefined ? undefined : String(a.out),
        http: a.http === true,
        port: Number(a.port),
        record: a.record === undefined ? undefined : String(a.record),
        verify: a.verify === undefined ? undefined : String(a.verify),
        ignore: Array.isArray(a.ignore) ? a.ignore.map(String) : undefined,
        handlers: a.handlers === undefined ? undefined : String(a.handlers),
      };
      setAction(() => mockAction(args, io));
    },
  };
}
