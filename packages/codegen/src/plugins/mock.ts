/**
 * Mock plugin: `<toolset>/mock.gen.ts`, a typed mock of the toolset's server for tests (issue 29).
 * `create<Toolset>Mock(handlers?)` returns the toolset's tools (their generated specs: wire schemas
 * and precompiled validators), a default answer per tool (`mock-answer.ts`: the output schema's
 * example, or a deterministic sample, or text) and the test's handlers, typed from the generated
 * payload and result types. A handler may also return `<Toolset>MockReply<T>` (the kit's `result()`):
 * its own content blocks, `isError` and `_meta`, with `structuredContent` typed by the output schema.
 *
 * The module imports only the runtime and its own folder, like every generated file: it is plain
 * data, and `@toolwright/testkit` (`startMock`) reads it structurally and runs it (records calls,
 * checks answers, serves it in memory, over stdio or HTTP). So a project that never installs the
 * kit still compiles its generated code, and the mock engine exists once, in the kit, not in every
 * toolset's output. It is not re-exported from the toolset's `index.ts`: test code stays out of
 * what applications import.
 */
import { fileHeader } from "../emit/generated-file.js";
import { docName, docText, printLiteral } from "../emit/literal.js";
import type { IrDesign, IrToolset } from "../ir/ir.js";
import { mockAnswer } from "./mock-answer.js";
import type { Plugin } from "./plugin.js";

function emitMock(ir: IrDesign, ts: IrToolset, out: Parameters<Plugin["emit"]>[1]): void {
  const s = ts.symbols;
  const f = out.file(s.mock.file, fileHeader(ir.file, ts.name));
  const ToolSpec = f.runtime("ToolSpec");
  // Spelled through the runtime's CallOptions, not `AbortSignal`: generated code compiles with no DOM and no Node types.
  const Signal = `NonNullable<${f.runtime("CallOptions")}["signal"]>`;
  const CallToolResult = f.runtime("CallToolResult");
  const Call = s.mockCall.name;
  const Full = s.mockResult.name;
  const Handlers = s.mockHandlers.name;
  const Mock = s.mockType.name;
  f.print(
    `/** What a handler of the ${docName(ts.name)} mock is told about the call it answers. */`,
    `${f.export("interface", Call)} {`,
    "  /** Wire name of the tool. */",
    "  readonly tool: string;",
    "  /** 1-based among the calls to this tool. */",
    "  readonly call: number;",
    "  /** 1-based among every call the mock got. */",
    "  readonly seq: number;",
    "  /** Aborted when the client cancels the call or the connection closes. */",
    `  readonly signal: ${Signal};`,
    "  /** The request's `_meta` as the client sent it (`{}` when none): idempotency key, progress token. */",
    "  readonly _meta: { readonly [key: string]: unknown };",
    "}",
    "",
    "/**",
    ` * A full result a handler of the ${docName(ts.name)} mock may return instead of its plain answer, to send`,
    " * its own content blocks, `isError` or `_meta` as the real server does: make it with `result({...})` of",
    " * `@toolwright/testkit`. `structuredContent` is typed (and checked) by the tool's output schema.",
    " */",
    `${f.export("interface", Full)}<T> {`,
    `  readonly "toolwright/mock-result": true;`,
    "  /** Sent as given; absent: the JSON of `structuredContent` as one text block. */",
    `  readonly content?: ${CallToolResult}["content"];`,
    "  readonly structuredContent?: T;",
    "  readonly isError?: boolean;",
    "  readonly _meta?: { readonly [key: string]: unknown };",
    "}",
    "",
    "/**",
    ` * Handlers of a mock of toolset ${docName(ts.name)}, one per tool, all optional: a tool without one answers`,
    " * its default (the output schema's example, a sample of the schema, or text). Every answer is checked",
    " * against the tool's output schema before it is sent.",
    " */",
    `${f.export("interface", Handlers)} {`,
  );
  for (const tool of ts.tools) {
    const Payload = f.import(tool.symbols.payload);
    const Result = f.import(tool.symbols.result);
    const doc = tool.description ?? tool.title ?? `Answers ${JSON.stringify(tool.name)}.`;
    // A text tool (no output schema) has no structured answer: its full result carries blocks only.
    const Answer = `${Result} | ${Full}<${tool.output === undefined ? "never" : Result}>`;
    f.print(
      `  /** ${docText(doc)} (tool ${docName(tool.name)}) */`,
      `  ${tool.memberName}?(payload: ${Payload}, call: ${Call}): ${Answer} | Promise<${Answer}>;`,
    );
  }
  f.print(
    "}",
    "",
    `/** A mock of toolset ${docName(ts.name)} as plain data: start it with \`startMock\` of \`@toolwright/testkit\`. */`,
    `${f.export("interface", Mock)} {`,
    "  readonly toolset: string;",
    "  readonly server: string;",
    "  readonly tools: readonly {",
    `    readonly spec: ${ToolSpec};`,
    `    readonly answer: { readonly from: "example" | "schema" | "text" | "none"; readonly value: unknown };`,
    `    readonly handler: ((payload: never, call: ${Call}) => unknown) | undefined;`,
    "    /** The tool as its server listed it (the lock's entry), listed by the mock as is. */",
    "    readonly listed?: unknown;",
    "  }[];",
    "}",
    "",
    "/**",
    ` * Creates a mock of toolset ${docName(ts.name)} from the lock: tools without a handler answer their default.`,
    ` * Run it with \`startMock(${s.mock.name}(handlers))\` from \`@toolwright/testkit\`.`,
    " */",
    `${f.export("function", s.mock.name)}(${ts.tools.length === 0 ? "_handlers" : "handlers"}: ${Handlers} = {}): ${Mock} {`,
    "  return {",
    `    toolset: ${printLiteral(ts.name)},`,
    `    server: ${printLiteral(ts.server)},`,
    "    tools: [",
  );
  // A pulled toolset lists each tool as the lock holds it (the catalogue's snapshot, not a copy),
  // so a mock's tools/list equals the server's: execution, _meta, icons and `$schema` included.
  const pulled = ts.source === "lock" && ts.toolFingerprints !== undefined && ts.snapshots !== undefined;
  const catalogue = pulled ? f.import(s.catalogue) : undefined;
  for (const tool of ts.tools) {
    const spec = f.import(tool.symbols.spec);
    const listed = catalogue !== undefined && Object.hasOwn(ts.snapshots ?? {}, tool.name);
    f.print(
      "      {",
      `        spec: ${spec},`,
      `        answer: ${printLiteral(mockAnswer(tool), 8)},`,
      `        handler: handlers.${tool.memberName},`,
      ...(listed ? [`        listed: ${catalogue}.snapshots?.[${printLiteral(tool.name)}],`] : []),
      "      },",
    );
  }
  f.print("    ],", "  };", "}");
}

/** Emits `<toolset>/mock.gen.ts` for every toolset. */
export const mockPlugin: Plugin = {
  name: "mock",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) emitMock(ir, ts, out);
  },
};
